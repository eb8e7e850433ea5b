package cfscale.javaapp;

import java.util.concurrent.TimeUnit;
import org.eclipse.jetty.http.UriCompliance;
import org.eclipse.jetty.server.HttpConfiguration;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.server.handler.GracefulHandler;
import org.eclipse.jetty.util.thread.QueuedThreadPool;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Jetty, the pool, the timing buffer and their lifecycle: start, and a graceful stop that
 * stops accepting, lets in-flight requests finish, flushes timings when TIMINGS_FLUSH_ON_EXIT
 * is set, and closes the pool, all within SHUTDOWN_TIMEOUT_MS.
 */
final class AppServer {
  private static final Logger LOG = LoggerFactory.getLogger("java-app");
  /**
   * One acceptor and one selector thread, whatever the core count (Jetty's default scales the
   * selectors with the cores), so JETTY_THREADS_MAX - 2 threads serve requests on every host.
   * The acceptor must be a thread of its own: only then does ServerConnector.close() close the
   * listening socket at once on SIGTERM.
   */
  private static final int ACCEPTORS = 1;
  private static final int SELECTORS = 1;

  private final Config config;
  private final Server server;
  private final ServerConnector connector;
  private final FramingConnectionFactory framing;
  private final AdStore store;
  private final TimingsFlusher flusher;

  private AppServer(Config config, Server server, ServerConnector connector, FramingConnectionFactory framing,
      AdStore store, TimingsFlusher flusher) {
    this.config = config;
    this.server = server;
    this.connector = connector;
    this.framing = framing;
    this.store = store;
    this.flusher = flusher;
  }

  static AppServer start(Config config) throws Exception {
    TimingBuffer timings = new TimingBuffer(config.timingsCapacity(), config.timingsEnabled());
    TimingsFlusher flusher = new TimingsFlusher(timings, config);
    AdStore store = AdStore.open(config);

    QueuedThreadPool threads = new QueuedThreadPool(config.jettyThreadsMax(), config.jettyThreadsMin());
    threads.setName("jetty");
    Server server = new Server(threads);
    HttpConfiguration http = new HttpConfiguration();
    http.setSendServerVersion(false);
    http.setSendXPoweredBy(false);
    // Paths are routed raw (contract: no percent-decoding); Jetty must not reject e.g. %2F itself.
    http.setUriCompliance(UriCompliance.UNSAFE);
    // Server-level limits from the settings spec (contract/settings.json), none left to Jetty's
    // defaults: the request head's size (HTTP_MAX_HEADER_BYTES, request line included), and a
    // connection without a byte for HTTP_IDLE_TIMEOUT_MS is closed (between requests, or while
    // a body is awaited).
    http.setRequestHeaderSize(config.httpMaxHeaderBytes());
    http.setIdleTimeout(config.httpIdleTimeoutMs());
    FramingConnectionFactory framing = new FramingConnectionFactory(http, config.httpHeaderTimeoutMs(), config.instanceIndex());
    ServerConnector connector = new ServerConnector(server, ACCEPTORS, SELECTORS, framing);
    connector.setIdleTimeout(config.httpIdleTimeoutMs());
    connector.setPort(config.port());
    server.addConnector(connector);
    server.setHandler(new GracefulHandler(new Router(config.instanceIndex(), timings, store, flusher, new ControlAuth(config.controlToken(), config.controlOpen()))));
    server.setErrorHandler(new PlainErrorHandler(config.instanceIndex()));
    server.setStopAtShutdown(false);
    server.setStopTimeout(config.shutdownTimeoutMs() / 2);
    server.start();
    return new AppServer(config, server, connector, framing, store, flusher);
  }

  int port() {
    return connector.getLocalPort();
  }

  /** Graceful stop; true when everything finished cleanly. */
  boolean stop() {
    boolean clean = true;
    long t0 = System.nanoTime();
    try {
      // Close the listening socket first: new connections are refused at once, while Jetty's
      // graceful stop (GracefulHandler) lets the requests in flight finish.
      connector.close();
      server.stop();
      framing.stopChecking();
    } catch (Exception e) {
      LOG.warn("jetty stop: {}", e.toString());
      clean = false;
    }
    LOG.info("http server stopped after {} ms", TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0));
    if (config.timingsFlushOnExit()) {
      try {
        LOG.info("flushed {} timings on exit", flusher.flush(null));
      } catch (Exception e) {
        LOG.warn("timings flush on exit failed: {}", e.toString());
        clean = false;
      }
    }
    store.close();
    return clean;
  }
}
