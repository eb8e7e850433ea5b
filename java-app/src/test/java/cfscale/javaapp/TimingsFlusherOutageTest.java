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
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The timing buffer through a results-database outage (nothing lost): a PostgreSQL cluster of
 * its own (scripts/pg-cluster.sh, fresh in every run: TestPorts), stopped (a fast shutdown) and started again. While it is
 * down every flush fails as results-unavailable and keeps every record (and those recorded
 * meanwhile); once it is back one flush writes them all, once, and empties the buffer. And a
 * flush whose commit was not answered: {@link LostAckProxy} drops the connection after the
 * server committed, before the answer reaches the app; the next flush writes each record once.
 * And the rounds a flush files rows under: running or just finished for this app, else 409.
 */
class TimingsFlusherOutageTest {
  private static final Path ROOT = TestPorts.ROOT;
  private static Path clusterDir;
  private static int port;
  private static final String TOKEN = "Zm9vYmFyLWNvbnRyb2wtdG9rZW4tZm9yLXRlc3Rz";

  private static String resultsUrl;

  @BeforeAll
  static void startCluster() throws Exception {
    clusterDir = TestPorts.clusterDir("cfscale-timings-outage-java-");
    port = TestPorts.freePort();
    cluster("start", "--port", String.valueOf(port));
    resultsUrl = cluster("createdb", "results");
    try (Connection c = connect(); Statement st = c.createStatement()) {
      st.execute(Files.readString(ROOT.resolve("results-schema.sql")));
    }
  }

  @AfterAll
  static void stopCluster() throws Exception {
    cluster("stop");
    TestPorts.remove(clusterDir);
  }

  private static String cluster(String cmd, String... args) throws IOException, InterruptedException {
    List<String> argv = Stream.concat(Stream.of(ROOT.resolve("scripts/pg-cluster.sh").toString(), cmd, "--dir", clusterDir.toString()),
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

  /** A round of app: status, finished that many seconds ago (-1: not), heartbeat that many seconds ago. */
  private static long insertRound(String app, String status, int finishedSecAgo, int heartbeatSecAgo) throws Exception {
    try (Connection c = connect(); java.sql.PreparedStatement ps = c.prepareStatement(
        "INSERT INTO rounds (start_at, platform, app, target_url, app_instances, loadgens, model, parallel, duration_ms, "
            + "status, finished_at, heartbeat_at) VALUES (now(), 'local', ?, 'http://test', 1, 1, 'closed', 1, 1000, ?, "
            + "CASE WHEN ? < 0 THEN NULL ELSE now() - make_interval(secs => ?) END, now() - make_interval(secs => ?)) RETURNING id")) {
      ps.setString(1, app);
      ps.setString(2, status);
      ps.setInt(3, finishedSecAgo);
      ps.setInt(4, finishedSecAgo);
      ps.setInt(5, heartbeatSecAgo);
      try (ResultSet rs = ps.executeQuery()) {
        rs.next();
        return rs.getLong(1);
      }
    }
  }

  private static Config config(String url) throws ConfigException {
    return Config.fromEnv(Map.of("DATABASE_URL", url, "RESULTS_DATABASE_URL", url, "DB_POOL_TIMEOUT_MS", "1000", "CONTROL_TOKEN", TOKEN));
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource(delimiter = '|', value = {
      "pending, heartbeat fresh|java-app|pending|-1|0|true",
      "running|java-app|running|-1|0|true",
      "done a minute ago|java-app|done|60|0|true",
      "failed a minute ago|java-app|failed|60|0|true",
      "done 11 minutes ago|java-app|done|660|0|false",
      "cancelled an hour ago|java-app|cancelled|3600|0|false",
      "pending, its control process gone|java-app|pending|-1|300|false",
      "another app's running round|other-app|pending|-1|0|false",
  })
  void flushFilesRowsOnlyUnderARoundRunningOrJustFinishedForThisApp(String name, String app, String status,
      int finishedSecAgo, int heartbeatSecAgo, boolean takes) throws Exception {
    long round = insertRound(app, status, finishedSecAgo, heartbeatSecAgo);
    TimingBuffer buffer = new TimingBuffer(100, true);
    TimingsFlusher flusher = new TimingsFlusher(buffer, config(resultsUrl));
    for (int i = 0; i < 5; i++) {
      buffer.record("round-" + round + "-" + i, TimingBuffer.ROUTE_HEALTH, 200, 1, 2, 3, 4);
    }
    if (takes) {
      assertEquals(5, flusher.flush(round));
    } else {
      HttpError e = assertThrows(HttpError.class, () -> flusher.flush(round));
      assertEquals(409, e.status);
      assertEquals("round is not running for this app", e.getMessage());
    }
    assertEquals(takes ? 0 : 5, buffer.state().count());
    assertEquals(takes ? 5 : 0, rows(round));
  }

  @Test
  void aRoundThatDoesNotExistIsRefused() throws Exception {
    TimingBuffer buffer = new TimingBuffer(10, true);
    buffer.record("nowhere", TimingBuffer.ROUTE_HEALTH, 200, 1, 2, 3, 4);
    HttpError e = assertThrows(HttpError.class, () -> new TimingsFlusher(buffer, config(resultsUrl)).flush(Long.MAX_VALUE));
    assertEquals(409, e.status);
    assertEquals(1, buffer.state().count());
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
    Config config = config(resultsUrl);
    long round = insertRound("java-app", "pending", -1, 0);
    TimingBuffer buffer = new TimingBuffer(1000, true);
    TimingsFlusher flusher = new TimingsFlusher(buffer, config);
    for (int i = 0; i < 300; i++) {
      buffer.record("before-" + i, TimingBuffer.ROUTE_HEALTH, 200, 1, 2, 3, 4);
    }
    cluster("stop");
    try {
      assertThrows(ResultsUnavailableException.class, () -> flusher.flush(round));
      assertEquals(300, buffer.state().count());
      for (int i = 0; i < 20; i++) {
        buffer.record("during-" + i, TimingBuffer.ROUTE_HEALTH, 200, 1, 2, 3, 4);
      }
      assertThrows(ResultsUnavailableException.class, () -> flusher.flush(round));
      assertEquals(320, buffer.state().count());
    } finally {
      cluster("start", "--port", String.valueOf(port));
    }
    assertEquals(320, flusher.flush(round));
    assertEquals(0, buffer.state().count());
    assertEquals(320, stored(round));
    assertEquals(0, flusher.flush(round));
    assertEquals(320, stored(round));
  }

  @Test
  void aFlushCommittedWhoseAnswerWasLostIsNotWrittenAgain() throws Exception {
    long round = insertRound("java-app", "pending", -1, 0);
    try (LostAckProxy proxy = new LostAckProxy("127.0.0.1", port, Pattern.compile("^COMMIT"))) {
      URI u = new URI(resultsUrl);
      String viaProxy = "postgres://" + u.getRawUserInfo() + "@127.0.0.1:" + proxy.port() + u.getPath() + "?sslmode=disable";
      Config config = config(viaProxy);
      TimingBuffer buffer = new TimingBuffer(20_000, true);
      TimingsFlusher flusher = new TimingsFlusher(buffer, config);
      int n = 2 * TimingsFlusher.BATCH_ROWS + 5;
      for (int i = 0; i < n; i++) {
        buffer.record("before-" + i, TimingBuffer.ROUTE_HEALTH, 200, 1, 2, 3, 4);
      }
      assertThrows(ResultsUnavailableException.class, () -> flusher.flush(round));
      assertEquals(1, proxy.losses.get());
      assertEquals(n, rows(round), "committed, the answer lost");
      assertEquals(n, buffer.state().count(), "the buffer keeps records whose write is not known");
      for (int i = 0; i < 3; i++) {
        buffer.record("after-" + i, TimingBuffer.ROUTE_HEALTH, 200, 1, 2, 3, 4);
      }
      assertEquals(n + 3, flusher.flush(round));
      assertEquals(0, buffer.state().count());
      assertEquals(n + 3, rows(round));
      assertEquals(n + 3, stored(round));
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
