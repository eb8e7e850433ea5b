package cfscale.javaapp;

import java.util.Map;
import org.eclipse.jetty.server.Request;

/**
 * One request on its way through the app: the Jetty request, its correlation id, its query
 * parameters (decoded on first use), and the time it spent waiting for a pooled connection
 * and executing statements, for server_timings.
 */
final class Exchange {
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
}
