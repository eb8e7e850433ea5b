package cfscale.javaapp;

/** The results database is not configured, down or unreachable: {@code 503 results database unavailable}. */
final class ResultsUnavailableException extends Exception {
  ResultsUnavailableException(String message, Throwable cause) {
    super(message, cause);
  }
}
