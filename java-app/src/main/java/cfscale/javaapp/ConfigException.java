package cfscale.javaapp;

/** An invalid setting: the message is one line that names the variable. The app exits 1. */
final class ConfigException extends Exception {
  ConfigException(String message) {
    super(message);
  }
}
