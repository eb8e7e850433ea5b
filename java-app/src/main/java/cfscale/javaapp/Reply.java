package cfscale.javaapp;

import java.util.List;

/**
 * What an endpoint answers: status, the plain-text body (UTF-8, ends with \n except an empty
 * page) and headers beyond the ones every response gets (Location, Allow, Retry-After,
 * X-Total-Count). The router writes it.
 */
record Reply(int status, String body, List<Header> headers) {

  record Header(String name, String value) {
  }

  static Reply ok(String body) {
    return new Reply(200, body, List.of());
  }

  /** An error: exactly one line, the reason. */
  static Reply error(int status, String reason) {
    return new Reply(status, reason + "\n", List.of());
  }

  static Reply error(int status, String reason, String header, String value) {
    return new Reply(status, reason + "\n", List.of(new Header(header, value)));
  }

  static Reply databaseUnavailable() {
    return error(503, "database unavailable", "Retry-After", "1");
  }
}
