package cfscale.javaapp;

import java.util.Map;
import org.eclipse.jetty.http.HttpField;
import org.eclipse.jetty.http.HttpFields;
import org.eclipse.jetty.server.Request;

/**
 * One request on its way through the app: the Jetty request, its correlation id (and the rule
 * for a given one), its query parameters (decoded on first use), and the time it spent waiting
 * for a pooled connection and executing statements, for server_timings.
 */
final class Exchange {
  static final String CORRELATION_HEADER = "X-Correlation-ID";
  static final int CORRELATION_MAX_BYTES = 64;

  final Request request;
  final String correlationId;
  private Map<String, String> query;
  private long poolWaitNs;
  private long dbNs;

  Exchange(Request request, String correlationId) {
    this.request = request;
    this.correlationId = correlationId;
  }

  /** A query parameter (first value wins), or null; malformed query strings answer 400. */
  String query(String name) throws HttpError {
    if (query == null) {
      query = FormParser.parseQuery(request.getHttpURI().getQuery());
    }
    return query.get(name);
  }

  void addPoolWait(long nanos) {
    poolWaitNs += nanos;
  }

  void addDb(long nanos) {
    dbNs += nanos;
  }

  long poolWaitUs() {
    return poolWaitNs / 1000;
  }

  long dbUs() {
    return dbNs / 1000;
  }

  /**
   * The X-Correlation-ID value, or null. Several such headers are joined with ", " (as Node's
   * http module does), which makes them invalid, exactly as in node-app.
   */
  static String correlationHeader(HttpFields headers) {
    String value = null;
    for (HttpField f : headers) {
      if (f.is(CORRELATION_HEADER)) {
        value = value == null ? f.getValue() : value + ", " + f.getValue();
      }
    }
    return value;
  }

  /** 1-64 bytes, each visible ASCII (0x21-0x7E). */
  static boolean isValidCorrelationId(String id) {
    if (id.length() > CORRELATION_MAX_BYTES) {
      return false;
    }
    for (int i = 0; i < id.length(); i++) {
      char c = id.charAt(i);
      if (c < 0x21 || c > 0x7E) {
        return false;
      }
    }
    return !id.isEmpty();
  }
}
