package cfscale.javaapp;

import java.io.ByteArrayOutputStream;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;

/**
 * Where one PostgreSQL database is and how to log in: from a CF binding's credentials or a
 * {@code postgres://user:pass@host:port/db} URL. {@link #toString()} masks the password, so a
 * binding can be logged as it is.
 *
 * @param source   where it came from, for messages (e.g. {@code DATABASE_URL}, {@code VCAP_SERVICES "java-db"})
 * @param host     host name or address (IPv6 without brackets)
 * @param port     TCP port, default 5432
 * @param database database name
 * @param user     user name ("" when none)
 * @param password password ("" when none)
 * @param query    URL query (e.g. {@code sslmode=require}) passed on to the JDBC URL, "" when none
 */
record DatabaseBinding(String source, String host, int port, String database, String user,
    String password, String query) {

  static final int DEFAULT_PORT = 5432;

  /** Parses {@code postgres://} or {@code postgresql://} URLs; userinfo is percent-decoded. */
  static DatabaseBinding fromUrl(String source, String url) throws ConfigException {
    String rest;
    if (url.startsWith("postgres://")) {
      rest = url.substring("postgres://".length());
    } else if (url.startsWith("postgresql://")) {
      rest = url.substring("postgresql://".length());
    } else {
      throw new ConfigException(source + " must be a postgres:// URL");
    }
    String user = "";
    String password = "";
    int at = rest.lastIndexOf('@');
    if (at >= 0) {
      String userinfo = rest.substring(0, at);
      rest = rest.substring(at + 1);
      int colon = userinfo.indexOf(':');
      user = percentDecode(source, colon < 0 ? userinfo : userinfo.substring(0, colon));
      password = colon < 0 ? "" : percentDecode(source, userinfo.substring(colon + 1));
    }
    String query = "";
    int q = rest.indexOf('?');
    if (q >= 0) {
      query = rest.substring(q + 1);
      rest = rest.substring(0, q);
    }
    int slash = rest.indexOf('/');
    String hostPort = slash < 0 ? rest : rest.substring(0, slash);
    String database = slash < 0 ? "" : percentDecode(source, rest.substring(slash + 1));
    String host;
    String portText = null;
    if (hostPort.startsWith("[")) {
      int close = hostPort.indexOf(']');
      if (close < 0) {
        throw new ConfigException(source + " has an unterminated [IPv6] host");
      }
      host = hostPort.substring(1, close);
      String after = hostPort.substring(close + 1);
      if (after.startsWith(":")) {
        portText = after.substring(1);
      } else if (!after.isEmpty()) {
        throw new ConfigException(source + " has text after the [IPv6] host");
      }
    } else {
      int colon = hostPort.lastIndexOf(':');
      host = colon < 0 ? hostPort : hostPort.substring(0, colon);
      portText = colon < 0 ? null : hostPort.substring(colon + 1);
    }
    return of(source, host, portText, database, user, password, query);
  }

  /** Builds a binding from parts; {@code portText} null or "" means the default port. */
  static DatabaseBinding of(String source, String host, String portText, String database,
      String user, String password, String query) throws ConfigException {
    if (host == null || host.isEmpty()) {
      throw new ConfigException(source + " has no host");
    }
    if (database == null || database.isEmpty()) {
      throw new ConfigException(source + " has no database name");
    }
    int port = DEFAULT_PORT;
    if (portText != null && !portText.isEmpty()) {
      port = parsePort(source, portText);
    }
    return new DatabaseBinding(source, host, port, database, user == null ? "" : user,
        password == null ? "" : password, query == null ? "" : query);
  }

  private static int parsePort(String source, String text) throws ConfigException {
    if (text.length() > 5 || !text.chars().allMatch(c -> c >= '0' && c <= '9')) {
      throw new ConfigException(source + " port must be an integer from 1 to 65535, got \"" + text + "\"");
    }
    int port = Integer.parseInt(text);
    if (port < 1 || port > 65535) {
      throw new ConfigException(source + " port must be an integer from 1 to 65535, got \"" + text + "\"");
    }
    return port;
  }

  private static String percentDecode(String source, String s) throws ConfigException {
    if (s.indexOf('%') < 0) {
      return s;
    }
    ByteArrayOutputStream out = new ByteArrayOutputStream(s.length());
    byte[] bytes = s.getBytes(StandardCharsets.UTF_8);
    for (int i = 0; i < bytes.length; i++) {
      byte b = bytes[i];
      if (b != '%') {
        out.write(b);
        continue;
      }
      int hi = i + 1 < bytes.length ? Character.digit(bytes[i + 1], 16) : -1;
      int lo = i + 2 < bytes.length ? Character.digit(bytes[i + 2], 16) : -1;
      if (hi < 0 || lo < 0) {
        throw new ConfigException(source + " has malformed percent-encoding");
      }
      out.write(hi * 16 + lo);
      i += 2;
    }
    return out.toString(StandardCharsets.UTF_8);
  }

  /** The JDBC URL without credentials (pgjdbc gets user and password as properties). */
  String jdbcUrl() {
    String h = host.indexOf(':') >= 0 ? "[" + host + "]" : host;
    String db = URLEncoder.encode(database, StandardCharsets.UTF_8).replace("+", "%20");
    return "jdbc:postgresql://" + h + ":" + port + "/" + db + (query.isEmpty() ? "" : "?" + query);
  }

  /** postgres://user:***@host:port/db — safe to log. */
  @Override
  public String toString() {
    String h = host.indexOf(':') >= 0 ? "[" + host + "]" : host;
    String auth = user.isEmpty() ? "" : user + (password.isEmpty() ? "" : ":***") + "@";
    return "postgres://" + auth + h + ":" + port + "/" + database + (query.isEmpty() ? "" : "?" + query);
  }
}
