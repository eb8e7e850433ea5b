package cfscale.javaapp;

/**
 * A client error with its status and the one-line reason of contract/README.md. Thrown by
 * parsing and validation, answered by the router's error boundary; never logged (it is data,
 * not a fault). The message never contains client input other than a number or a field name.
 */
final class HttpError extends Exception {
  final int status;

  HttpError(int status, String reason) {
    super(reason, null, false, false);
    this.status = status;
  }

  static HttpError badRequest(String reason) {
    return new HttpError(400, reason);
  }
}
