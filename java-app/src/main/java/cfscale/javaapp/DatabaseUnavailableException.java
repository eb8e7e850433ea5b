package cfscale.javaapp;

import java.sql.SQLException;
import java.sql.SQLNonTransientConnectionException;
import java.sql.SQLTransientConnectionException;

/**
 * The database is down, unreachable, or the pool timed out (DB_POOL_TIMEOUT_MS): answered
 * {@code 503 database unavailable} with {@code Retry-After: 1}. Anything else from the driver
 * is an internal error (500).
 */
final class DatabaseUnavailableException extends Exception {
  DatabaseUnavailableException(SQLException cause) {
    super(cause.getMessage(), cause);
  }

  /**
   * True for connection trouble: HikariCP's pool timeout (SQLTransientConnectionException),
   * connection-class SQLSTATEs (08xxx), and the server shutting down or starting
   * (57P01 admin_shutdown, 57P02 crash_shutdown, 57P03 cannot_connect_now).
   */
  static boolean isConnectionFailure(SQLException e) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t instanceof SQLTransientConnectionException || t instanceof SQLNonTransientConnectionException) {
        return true;
      }
      if (t instanceof SQLException s && s.getSQLState() != null) {
        String state = s.getSQLState();
        if (state.startsWith("08") || state.equals("57P01") || state.equals("57P02") || state.equals("57P03")) {
          return true;
        }
      }
    }
    return false;
  }
}
