package cfscale.javaapp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The timing buffer through a results-database outage (nothing lost): a PostgreSQL cluster of
 * its own (scripts/pg-cluster.sh), stopped (a fast shutdown) and started again. While it is
 * down every flush fails as results-unavailable and keeps every record (and those recorded
 * meanwhile); once it is back one flush writes them all, once, and empties the buffer. And a
 * flush whose commit was not answered: {@link LostAckProxy} drops the connection after the
 * server committed, before the answer reaches the app; the next flush writes each record once.
 */
class TimingsFlusherOutageTest {
  private static final Path ROOT = Path.of("..").toAbsolutePath().normalize();
  private static final Path DIR = Path.of("/tmp/cfscale-timings-outage-pg-java");
  private static final int PORT = 41446;

  private static String resultsUrl;

  @BeforeAll
  static void startCluster() throws Exception {
    cluster("start", "--port", String.valueOf(PORT));
    resultsUrl = cluster("createdb", "results");
    try (Connection c = connect(); Statement st = c.createStatement()) {
      st.execute(Files.readString(ROOT.resolve("results-schema.sql")));
    }
  }

  @AfterAll
  static void stopCluster() throws Exception {
    cluster("stop");
  }

  private static String cluster(String cmd, String... args) throws IOException, InterruptedException {
    List<String> argv = Stream.concat(Stream.of(ROOT.resolve("scripts/pg-cluster.sh").toString(), cmd, "--dir", DIR.toString()),
        Stream.of(args)).toList();
    Process p = new ProcessBuilder(argv).redirectError(ProcessBuilder.Redirect.INHERIT).start();
    String out = new String(p.getInputStream().readAllBytes()).trim();
    if (p.waitFor() != 0) {
      throw new IOException("pg-cluster.sh " + String.join(" ", argv) + " failed");
    }
    return out;
  }

  private static Connection connect() throws Exception {
    URI u = new URI(resultsUrl);
    String[] userinfo = u.getRawUserInfo().split(":", 2);
    return DriverManager.getConnection("jdbc:postgresql://127.0.0.1:" + u.getPort() + u.getPath(), userinfo[0], userinfo[1]);
  }

  private static int stored(long round) throws Exception {
    try (Connection c = connect(); Statement st = c.createStatement();
        ResultSet rs = st.executeQuery("SELECT count(DISTINCT correlation_id) FROM server_timings WHERE round_id = " + round)) {
      rs.next();
      return rs.getInt(1);
    }
  }

  @Test
  void flushesDuringTheOutageKeepEveryRecordTheFirstAfterItWritesThemOnce() throws Exception {
    Config config = Config.fromEnv(Map.of("DATABASE_URL", resultsUrl, "RESULTS_DATABASE_URL", resultsUrl,
        "DB_POOL_TIMEOUT_MS", "1000"));
    TimingBuffer buffer = new TimingBuffer(1000, true);
    TimingsFlusher flusher = new TimingsFlusher(buffer, config);
    for (int i = 0; i < 300; i++) {
      buffer.record("before-" + i, TimingBuffer.ROUTE_HEALTH, 200, 1, 2, 3, 4);
    }
    cluster("stop");
    try {
      assertThrows(ResultsUnavailableException.class, () -> flusher.flush(88L));
      assertEquals(300, buffer.state().count());
      for (int i = 0; i < 20; i++) {
        buffer.record("during-" + i, TimingBuffer.ROUTE_HEALTH, 200, 1, 2, 3, 4);
      }
      assertThrows(ResultsUnavailableException.class, () -> flusher.flush(88L));
      assertEquals(320, buffer.state().count());
    } finally {
      cluster("start", "--port", String.valueOf(PORT));
    }
    assertEquals(320, flusher.flush(88L));
    assertEquals(0, buffer.state().count());
    assertEquals(320, stored(88L));
    assertEquals(0, flusher.flush(88L));
    assertEquals(320, stored(88L));
  }

  @Test
  void aFlushCommittedWhoseAnswerWasLostIsNotWrittenAgain() throws Exception {
    try (Connection c = connect(); Statement st = c.createStatement()) {
      st.execute("DELETE FROM server_timings WHERE round_id = 99"); // the cluster's directory outlives a run
    }
    try (LostAckProxy proxy = new LostAckProxy("127.0.0.1", PORT, Pattern.compile("^COMMIT"))) {
      URI u = new URI(resultsUrl);
      String viaProxy = "postgres://" + u.getRawUserInfo() + "@127.0.0.1:" + proxy.port() + u.getPath() + "?sslmode=disable";
      Config config = Config.fromEnv(Map.of("DATABASE_URL", viaProxy, "RESULTS_DATABASE_URL", viaProxy, "DB_POOL_TIMEOUT_MS", "1000"));
      TimingBuffer buffer = new TimingBuffer(20_000, true);
      TimingsFlusher flusher = new TimingsFlusher(buffer, config);
      int n = 2 * TimingsFlusher.BATCH_ROWS + 5;
      for (int i = 0; i < n; i++) {
        buffer.record("before-" + i, TimingBuffer.ROUTE_HEALTH, 200, 1, 2, 3, 4);
      }
      assertThrows(ResultsUnavailableException.class, () -> flusher.flush(99L));
      assertEquals(1, proxy.losses.get());
      assertEquals(n, rows(99L), "committed, the answer lost");
      assertEquals(n, buffer.state().count(), "the buffer keeps records whose write is not known");
      for (int i = 0; i < 3; i++) {
        buffer.record("after-" + i, TimingBuffer.ROUTE_HEALTH, 200, 1, 2, 3, 4);
      }
      assertEquals(n + 3, flusher.flush(99L));
      assertEquals(0, buffer.state().count());
      assertEquals(n + 3, rows(99L));
      assertEquals(n + 3, stored(99L));
    }
  }

  private static int rows(long round) throws Exception {
    try (Connection c = connect(); Statement st = c.createStatement();
        ResultSet rs = st.executeQuery("SELECT count(*) FROM server_timings WHERE round_id = " + round)) {
      rs.next();
      return rs.getInt(1);
    }
  }
}
