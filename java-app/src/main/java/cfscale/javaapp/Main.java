package cfscale.javaapp;

import java.util.concurrent.CountDownLatch;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import sun.misc.Signal;

/**
 * java-app entry point: read the settings, log them (and, without a CONTROL_TOKEN, that the
 * control endpoints are closed), start the server, stop gracefully on SIGTERM.
 * A bad setting exits 1 with one line naming the variable; SIGTERM exits 0 after the graceful
 * stop (CF sends SIGKILL 10 s after SIGTERM: docs/cf-platform.md §4). With the argument
 * {@code --check-settings} it validates and logs the settings, exits 0 (or 1), and serves nothing.
 */
public final class Main {
  private Main() {
  }

  public static void main(String[] args) {
    Config config;
    try {
      config = Config.fromEnv(System.getenv());
    } catch (ConfigException e) {
      System.err.println(Config.DEFAULT_APP_NAME + ": " + e.getMessage());
      System.exit(1);
      return;
    }
    Logger log = LoggerFactory.getLogger("java-app");
    log.info("settings {}", config.describe());
    if (config.controlToken() == null && !config.controlOpen()) {
      log.warn(ControlAuth.CLOSED_LINE);
    }
    if (args.length > 0 && args[0].equals("--check-settings")) {
      System.exit(0);
    }
    // Our own signal handlers instead of a shutdown hook: a hook cannot choose the exit code
    // (143). They are installed before the start, so a SIGTERM during the start still stops
    // gracefully. The handler thread is a daemon, which the JVM would abandon once Jetty's
    // threads are gone, so the main thread waits for the signal and does the stopping itself.
    CountDownLatch stopRequested = new CountDownLatch(1);
    Signal.handle(new Signal("TERM"), sig -> stopRequested.countDown());
    Signal.handle(new Signal("INT"), sig -> stopRequested.countDown());
    AppServer app;
    try {
      app = AppServer.start(config);
    } catch (Exception e) {
      log.error("start failed: {}", e.toString());
      System.exit(1);
      return;
    }
    log.info("listening on port {}", app.port());
    awaitUninterruptibly(stopRequested);
    log.info("shutting down (SHUTDOWN_TIMEOUT_MS={})", config.shutdownTimeoutMs());
    startWatchdog(config.shutdownTimeoutMs(), log);
    boolean clean = app.stop();
    log.info("stopped{}", clean ? "" : " (with errors, see above)");
    System.exit(0);
  }

  private static void awaitUninterruptibly(CountDownLatch latch) {
    while (true) {
      try {
        latch.await();
        return;
      } catch (InterruptedException e) {
        // keep waiting: only a signal stops the app
      }
    }
  }

  /** If the graceful stop overruns SHUTDOWN_TIMEOUT_MS, exit 1 anyway before CF's SIGKILL. */
  private static void startWatchdog(long timeoutMs, Logger log) {
    Thread t = new Thread(() -> {
      try {
        Thread.sleep(timeoutMs);
      } catch (InterruptedException e) {
        return;
      }
      log.error("graceful stop exceeded SHUTDOWN_TIMEOUT_MS={}, exiting", timeoutMs);
      Runtime.getRuntime().halt(1);
    }, "shutdown-watchdog");
    t.setDaemon(true);
    t.start();
  }
}
