package cfscale.javaapp;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Types;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.Properties;
import java.util.UUID;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import org.postgresql.PGConnection;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.postgresql.copy.CopyIn;

/**
 * Writes the timing buffer into server_timings in the results database with pgjdbc's
 * CopyManager (COPY ... FROM STDIN, text format), {@link #BATCH_ROWS} rows per write, in one
 * transaction that also records the flush's id in server_timings_flushes. A fresh connection
 * per flush: flushes are rare (end of a round, shutdown) and the results database must not hold
 * pool connections. When it cannot connect the buffer is left as it was; when the COPY fails
 * the records are put back with their flush id, and the next flush writes them first under the
 * same id: when the commit had happened and only its answer was lost, the id is there and the
 * records are dropped instead of written twice. A flush for a round files its rows
 * under it only while the round is running or just finished for this app (round_takes_timings
 * in results-schema.sql); any other round is refused with 409 and nothing is written.
 *
 * <p>How long a flush may take: connecting and logging in are bounded by DB_POOL_TIMEOUT_MS
 * (rounded up to seconds: pgjdbc's connectTimeout and loginTimeout); each step after that (the
 * COPY's start, every batch written, the end of the COPY, the commit) by
 * {@link #FLUSH_STEP_TIMEOUT_MS}. A results database that does not answer at all (frozen, a
 * network black hole) would otherwise hold the flush for ever, and a blocked socket write has
 * no timeout in Java: a watchdog aborts the connection, the flush fails with SQLSTATE 08xxx
 * (503 results database unavailable) and the records are put back.
 */
final class TimingsFlusher {
  private static final Logger LOG = LoggerFactory.getLogger("java-app");
  /** Rows per writeToCopy call: bounds the bytes held at once (~150 B per row). */
  static final int BATCH_ROWS = 5000;
  /**
   * Longest step of a flush, in ms (a batch is ~750 kB and normally takes milliseconds). Not
   * DB_STATEMENT_TIMEOUT_MS: that bounds the app's short queries; a COPY is bulk work.
   */
  static final int FLUSH_STEP_TIMEOUT_MS = 30_000;
  private static final ScheduledExecutorService WATCHDOGS = Executors.newSingleThreadScheduledExecutor(r -> {
    Thread t = new Thread(r, "timings-flush-watchdog");
    t.setDaemon(true);
    return t;
  });

  private static final String COPY_SQL = "COPY server_timings (round_id, app, instance_index, "
      + "correlation_id, route, status, started_at, handler_us, pool_wait_us, db_us) FROM STDIN";
  private static final String RECORD_FLUSH = "INSERT INTO server_timings_flushes "
      + "(flush_id, round_id, app, instance_index, rows) VALUES (?::uuid, ?, ?, ?, ?) ON CONFLICT (flush_id) DO NOTHING";
  private static final String ROUND_TAKES_TIMINGS =
      "SELECT round_takes_timings(r) FROM rounds r WHERE r.id = ? AND r.app = ?";
  static final String ROUND_REFUSED = "round is not running for this app";
  private static final DateTimeFormatter TIMESTAMP =
      DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss.SSSSSSxxx").withZone(ZoneOffset.UTC);

  private final TimingBuffer buffer;
  private final DatabaseBinding results;
  private final String appName;
  private final int instanceIndex;
  private final int connectTimeoutSec;

  TimingsFlusher(TimingBuffer buffer, Config config) {
    this.buffer = buffer;
    this.results = config.resultsDatabase();
    this.appName = config.appName();
    this.instanceIndex = config.instanceIndex();
    this.connectTimeoutSec = Math.max(1, (config.dbPoolTimeoutMs() + 999) / 1000);
  }

  /** Writes and empties the buffer; returns the number of rows written. */
  synchronized int flush(Long roundId) throws ResultsUnavailableException, SQLException, HttpError {
    if (results == null) {
      throw new ResultsUnavailableException("no results database configured", null);
    }
    try (Connection c = connect(); Watchdog watchdog = new Watchdog(c)) {
      if (roundId != null && !roundTakesTimings(c, watchdog, roundId)) {
        LOG.warn("flush refused: round {} is neither running nor just finished for {}", roundId, appName);
        throw new HttpError(409, ROUND_REFUSED);
      }
      TimingBuffer.Segment records = buffer.detach();
      try {
        int n = 0;
        if (records.flushId != null) { // a failed flush's records, first: maybe committed
          n += write(c, watchdog, records, roundId);
        }
        if (records.count() > 0) {
          records.flushId = UUID.randomUUID().toString();
          records.flushRows = records.count();
          n += write(c, watchdog, records, roundId);
        }
        buffer.release(records);
        return n;
      } catch (SQLException | RuntimeException e) {
        buffer.restore(records);
        throw e;
      }
    } catch (SQLException e) {
      if (DatabaseUnavailableException.isConnectionFailure(e)) {
        throw new ResultsUnavailableException(e.getMessage(), e);
      }
      throw e;
    }
  }

  /** Whether the round is running or just finished for this app. */
  private boolean roundTakesTimings(Connection c, Watchdog watchdog, long roundId) throws SQLException {
    watchdog.arm();
    try (PreparedStatement ps = c.prepareStatement(ROUND_TAKES_TIMINGS)) {
      ps.setLong(1, roundId);
      ps.setString(2, appName);
      try (ResultSet rs = ps.executeQuery()) {
        return rs.next() && rs.getBoolean(1);
      }
    }
  }

  private Connection connect() throws SQLException {
    Properties props = new Properties();
    props.setProperty("user", results.user());
    props.setProperty("password", results.password());
    props.setProperty("connectTimeout", Integer.toString(connectTimeoutSec));
    props.setProperty("loginTimeout", Integer.toString(connectTimeoutSec));
    props.setProperty("ApplicationName", appName + "-timings");
    Connection c = DriverManager.getConnection(results.jdbcUrl(), props);
    c.setAutoCommit(false);
    return c;
  }

  /**
   * Writes the segment's first flushRows records as flush flushId, in one transaction (nothing
   * when that id is recorded already), and drops them from the segment; returns their number.
   */
  private int write(Connection c, Watchdog watchdog, TimingBuffer.Segment s, Long roundId) throws SQLException {
    int n = s.flushRows;
    watchdog.arm();
    boolean fresh;
    try (PreparedStatement ps = c.prepareStatement(RECORD_FLUSH)) {
      ps.setString(1, s.flushId);
      if (roundId == null) {
        ps.setNull(2, Types.BIGINT);
      } else {
        ps.setLong(2, roundId);
      }
      ps.setString(3, appName);
      ps.setInt(4, instanceIndex);
      ps.setInt(5, n);
      fresh = ps.executeUpdate() == 1;
    }
    if (fresh) {
      copy(c, watchdog, s, n, roundId);
    } else {
      LOG.info("{} timings were written by an earlier flush whose answer was lost", n);
    }
    watchdog.arm();
    c.commit();
    s.dropFirst(n);
    s.flushId = null;
    return n;
  }

  private void copy(Connection c, Watchdog watchdog, TimingBuffer.Segment s, int n, Long roundId) throws SQLException {
    watchdog.arm();
    CopyIn copy = c.unwrap(PGConnection.class).getCopyAPI().copyIn(COPY_SQL);
    try {
      String prefix = (roundId == null ? "\\N" : roundId.toString()) + "\t" + escape(appName) + "\t"
          + instanceIndex + "\t";
      ByteArrayOutputStream batch = new ByteArrayOutputStream(BATCH_ROWS * 160);
      for (int i = 0; i < n; i++) {
        String row = prefix + escape(s.correlationIds[i]) + "\t" + TimingBuffer.ROUTES[s.routes[i]]
            + "\t" + s.statuses[i] + "\t" + TIMESTAMP.format(instant(s.startedAtUs[i]))
            + "\t" + s.handlerUs[i] + "\t" + s.poolWaitUs[i] + "\t" + s.dbUs[i] + "\n";
        batch.writeBytes(row.getBytes(StandardCharsets.UTF_8));
        if ((i + 1) % BATCH_ROWS == 0 || i == n - 1) {
          watchdog.arm();
          copy.writeToCopy(batch.toByteArray(), 0, batch.size());
          batch.reset();
        }
      }
      watchdog.arm();
      copy.endCopy();
    } finally {
      if (copy.isActive()) {
        copy.cancelCopy();
      }
    }
  }

  /** Aborts its connection when one step takes over FLUSH_STEP_TIMEOUT_MS: arm() before each step. */
  private static final class Watchdog implements AutoCloseable {
    private final Connection connection;
    private ScheduledFuture<?> pending;

    Watchdog(Connection connection) {
      this.connection = connection;
    }

    void arm() {
      close();
      pending = WATCHDOGS.schedule(this::abort, FLUSH_STEP_TIMEOUT_MS, TimeUnit.MILLISECONDS);
    }

    private void abort() {
      try {
        connection.abort(Runnable::run); // closes the socket: a blocked read or write fails at once
      } catch (SQLException e) {
        // already closed
      }
    }

    @Override
    public void close() {
      if (pending != null) {
        pending.cancel(false);
      }
    }
  }

  private static Instant instant(long epochUs) {
    return Instant.ofEpochSecond(Math.floorDiv(epochUs, 1_000_000L), Math.floorMod(epochUs, 1_000_000L) * 1000);
  }

  /** COPY text format: backslash, tab, newline and carriage return must be escaped. */
  static String escape(String s) {
    StringBuilder sb = null;
    for (int i = 0; i < s.length(); i++) {
      char ch = s.charAt(i);
      String rep = switch (ch) {
        case '\\' -> "\\\\";
        case '\t' -> "\\t";
        case '\n' -> "\\n";
        case '\r' -> "\\r";
        default -> null;
      };
      if (rep != null && sb == null) {
        sb = new StringBuilder(s.length() + 8).append(s, 0, i);
      }
      if (sb != null) {
        sb.append(rep != null ? rep : String.valueOf(ch));
      }
    }
    return sb == null ? s : sb.toString();
  }
}
