package cfscale.javaapp;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executor;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The ads table behind a HikariCP pool. Every call measures pool wait (getConnection) and
 * statement time (System.nanoTime) into the Exchange, and turns connection trouble into
 * {@link DatabaseUnavailableException}. The table is created (with exactly the statement in
 * results-schema.sql) the first time the database is reachable; the pool starts even when the
 * database is down ({@code initializationFailTimeout=-1}) and recovers by itself.
 *
 * <p>Statements are bounded by DB_STATEMENT_TIMEOUT_MS twice (contract "Database trouble"):
 * <ul>
 *   <li>server side, {@code statement_timeout} in pgjdbc's startup {@code options}: a slow or
 *   blocked statement is cancelled by PostgreSQL (SQLSTATE 57014), answered 503, and the
 *   connection, still sound, goes back to the pool;</li>
 *   <li>client side, {@link Connection#setNetworkTimeout} (the socket's read timeout, in ms) of
 *   {@link #STATEMENT_GRACE_MS} more, set on every checkout: a database that does not answer
 *   at all (backend SIGSTOPped, network black hole) cannot cancel anything, so pgjdbc gives up
 *   with SQLSTATE 08006 and closes the connection, HikariCP evicts it, and the answer is 503.
 *   pgjdbc's {@code socketTimeout} property would do the same per connection but only in whole
 *   seconds, and {@code Statement.setQueryTimeout} sends a cancel request, which a frozen
 *   server never carries out.</li>
 * </ul>
 * The grace lets the clean server-side cancel win whenever the server is alive; both come
 * within DB_STATEMENT_TIMEOUT_MS + 1 s. HikariCP's liveness check of an idle connection is a
 * statement too: its {@code validationTimeout} is at most DB_STATEMENT_TIMEOUT_MS + grace.
 */
final class AdStore implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger("java-app");

  /** Exactly as in results-schema.sql (AdStoreTest compares them). */
  static final String CREATE_TABLE = """
      CREATE TABLE IF NOT EXISTS ads (
        id         bigserial PRIMARY KEY,
        title      text        NOT NULL,
        body       text        NOT NULL DEFAULT '',
        price      numeric(12,2) NOT NULL DEFAULT 0,
        contact    text        NOT NULL DEFAULT '',
        created_at timestamptz NOT NULL DEFAULT now()
      );""";

  private static final String INSERT =
      "INSERT INTO ads (title, body, price, contact) VALUES (?, ?, ?::numeric, ?) RETURNING id";
  /** price and created are formatted by PostgreSQL, so both apps print the same text. */
  private static final String SELECT_ONE =
      "SELECT id, title, price::text, contact, "
      + "to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS.MS\"Z\"'), body "
      + "FROM ads WHERE id = ?";
  private static final String SELECT_PAGE =
      "SELECT id, price::text, title FROM ads ORDER BY id DESC OFFSET ? LIMIT ?";
  private static final String COUNT = "SELECT count(*) FROM ads";
  /** query_canceled: statement_timeout fired (or an operator cancelled the statement). */
  static final String QUERY_CANCELED = "57014";
  /** The client-side network timeout is this much later than the server's statement_timeout. */
  static final int STATEMENT_GRACE_MS = 500;
  /** HikariCP refuses a validationTimeout below 250 ms. */
  private static final int MIN_VALIDATION_TIMEOUT_MS = 250;
  /** pgjdbc ignores the executor of setNetworkTimeout; JDBC wants one. */
  private static final Executor DIRECT = Runnable::run;

  record Ad(long id, String title, String price, String contact, String created, String body) {
  }

  record Line(long id, String price, String title) {
  }

  record Page(long total, List<Line> lines) {
  }

  @FunctionalInterface
  private interface Work<T> {
    T run(Connection c) throws SQLException;
  }

  private final HikariDataSource pool;
  private final int networkTimeoutMs;
  private volatile boolean tableReady;

  AdStore(HikariDataSource pool, int statementTimeoutMs) {
    this.pool = pool;
    this.networkTimeoutMs = statementTimeoutMs + STATEMENT_GRACE_MS;
  }

  /** The app database pool: DB_POOL_SIZE connections, fixed; DB_POOL_TIMEOUT_MS wait. */
  static AdStore open(Config config) {
    DatabaseBinding db = config.database();
    HikariConfig hc = new HikariConfig();
    hc.setPoolName(config.appName() + "-db");
    hc.setJdbcUrl(db.jdbcUrl());
    hc.setUsername(db.user());
    hc.setPassword(db.password());
    hc.setMaximumPoolSize(config.dbPoolSize());
    hc.setMinimumIdle(config.dbPoolSize());
    hc.setConnectionTimeout(config.dbPoolTimeoutMs());
    hc.setValidationTimeout(Math.max(MIN_VALIDATION_TIMEOUT_MS,
        Math.min(config.dbPoolTimeoutMs(), config.dbStatementTimeoutMs() + STATEMENT_GRACE_MS)));
    hc.setInitializationFailTimeout(-1);
    // A new connection must not outlast the pool wait by much (the 503 comes within timeout + 1 s).
    hc.addDataSourceProperty("connectTimeout", Math.max(1, (config.dbPoolTimeoutMs() + 999) / 1000));
    hc.addDataSourceProperty("ApplicationName", config.appName());
    hc.addDataSourceProperty("options", "-c statement_timeout=" + config.dbStatementTimeoutMs());
    return new AdStore(new HikariDataSource(hc), config.dbStatementTimeoutMs());
  }

  long insert(Exchange ex, Validation.NewAd ad) throws DatabaseUnavailableException, SQLException {
    return withConnection(ex, c -> {
      try (PreparedStatement ps = c.prepareStatement(INSERT)) {
        ps.setString(1, ad.title());
        ps.setString(2, ad.body());
        ps.setString(3, ad.price());
        ps.setString(4, ad.contact());
        try (ResultSet rs = ps.executeQuery()) {
          rs.next();
          return rs.getLong(1);
        }
      }
    });
  }

  /** The ad, or null when absent. */
  Ad find(Exchange ex, long id) throws DatabaseUnavailableException, SQLException {
    return withConnection(ex, c -> {
      try (PreparedStatement ps = c.prepareStatement(SELECT_ONE)) {
        ps.setLong(1, id);
        try (ResultSet rs = ps.executeQuery()) {
          if (!rs.next()) {
            return null;
          }
          return new Ad(rs.getLong(1), rs.getString(2), rs.getString(3), rs.getString(4),
              rs.getString(5), rs.getString(6));
        }
      }
    });
  }

  Page page(Exchange ex, int offset, int limit) throws DatabaseUnavailableException, SQLException {
    return withConnection(ex, c -> {
      List<Line> lines = new ArrayList<>(limit);
      try (PreparedStatement ps = c.prepareStatement(SELECT_PAGE)) {
        ps.setInt(1, offset);
        ps.setInt(2, limit);
        try (ResultSet rs = ps.executeQuery()) {
          while (rs.next()) {
            lines.add(new Line(rs.getLong(1), rs.getString(2), rs.getString(3)));
          }
        }
      }
      try (PreparedStatement ps = c.prepareStatement(COUNT); ResultSet rs = ps.executeQuery()) {
        rs.next();
        return new Page(rs.getLong(1), lines);
      }
    });
  }

  private <T> T withConnection(Exchange ex, Work<T> work) throws DatabaseUnavailableException, SQLException {
    try {
      long t0 = System.nanoTime();
      Connection c;
      try {
        c = pool.getConnection();
      } finally {
        ex.addPoolWait(System.nanoTime() - t0);
      }
      try (c) {
        long t1 = System.nanoTime();
        try {
          c.setNetworkTimeout(DIRECT, networkTimeoutMs); // HikariCP resets it on return
          ensureTable(c);
          return work.run(c);
        } finally {
          ex.addDb(System.nanoTime() - t1);
        }
      }
    } catch (SQLException e) {
      if (DatabaseUnavailableException.isConnectionFailure(e) || isStatementCancelled(e)) {
        throw new DatabaseUnavailableException(e);
      }
      throw e;
    }
  }

  /** True when the server cancelled the statement (statement_timeout); the connection is sound. */
  static boolean isStatementCancelled(SQLException e) {
    return QUERY_CANCELED.equals(e.getSQLState());
  }

  private void ensureTable(Connection c) throws SQLException {
    if (tableReady) {
      return;
    }
    synchronized (this) {
      if (tableReady) {
        return;
      }
      try (Statement st = c.createStatement()) {
        st.execute(CREATE_TABLE);
      }
      tableReady = true;
      LOG.info("ads table ready");
    }
  }

  @Override
  public void close() {
    pool.close();
  }
}
