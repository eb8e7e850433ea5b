package cfscale.javaapp;

import io.pivotal.cfenv.core.CfCredentials;
import io.pivotal.cfenv.core.CfEnv;
import io.pivotal.cfenv.core.CfService;
import io.pivotal.cfenv.jdbc.PostgresqlJdbcUrlCreator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * The PostgreSQL bindings of VCAP_SERVICES, read with java-cfenv (docs/bindings.md): the
 * same rule as every other part — a binding by name; with no name asked, the first with a
 * tag containing "postgres", else the first whose label does, leaving one name out.
 * java-cfenv-jdbc builds the JDBC URL from the broker's jdbcUrl or uri; TLS is then set as
 * the broker asks (DatabaseBinding). Missing credentials stop the app with one line naming
 * the binding and the field.
 */
final class Bindings {
  static final String VARIABLE = "VCAP_SERVICES";
  private static final List<String> HOST_KEYS = List.of("hostname", "host", "hosts");
  private static final List<String> DATABASE_KEYS = List.of("name", "dbname", "database", "db");
  private static final List<String> USER_KEYS = List.of("username", "user");
  private static final List<String> CA_KEYS = List.of("sslrootcert", "ca_cert", "cacrt", "ca", "tls_ca");

  private final CfEnv env;

  private Bindings(CfEnv env) {
    this.env = env;
  }

  static Bindings parse(String vcapServices) throws ConfigException {
    try {
      return new Bindings(new CfEnv(null, vcapServices));
    } catch (RuntimeException e) {
      throw new ConfigException(VARIABLE + " is not a JSON object of service arrays");
    }
  }

  /** The binding named {@code name}, or null. */
  CfService byName(String name) {
    List<CfService> found = env.findServicesByName(Pattern.quote(name));
    return found.isEmpty() ? null : found.get(0);
  }

  /** The first binding tagged, else labelled, "postgres" whose name is not {@code excludedName}, or null. */
  CfService firstPostgres(String excludedName) {
    List<CfService> candidates = env.findAllServices().stream()
        .filter(s -> !excludedName.equals(s.getName())).toList();
    for (CfService s : candidates) {
      if (s.getTags().stream().anyMatch(Bindings::mentionsPostgres)) {
        return s;
      }
    }
    return candidates.stream().filter(s -> mentionsPostgres(s.getLabel())).findFirst().orElse(null);
  }

  private static boolean mentionsPostgres(String s) {
    return s != null && s.toLowerCase(Locale.ROOT).contains("postgres");
  }

  /** Connection settings of one binding: java-cfenv's JDBC URL, TLS as the broker asks. */
  static DatabaseBinding connection(CfService service) throws ConfigException {
    String source = VARIABLE + " binding \"" + service.getName() + "\"";
    Map<String, Object> c = service.getCredentials().getMap();
    if (c == null || c.isEmpty()) {
      throw new ConfigException(source + ": no credentials object");
    }
    String uri = text(c, "uri", "url");
    String jdbc = text(c, "jdbcUrl", "jdbc_url");
    if (uri != null && !uri.startsWith("postgres://") && !uri.startsWith("postgresql://")) {
      throw new ConfigException(source + ": credentials.uri is not a postgres:// URL");
    }
    Map<String, String> uriQuery = DatabaseBinding.query(uri == null ? null : queryOf(uri));
    Map<String, String> jdbcQuery = DatabaseBinding.query(jdbc == null ? null : queryOf(jdbc));
    boolean anyUrl = uri != null || jdbc != null;
    require(source, anyUrl || text(c, HOST_KEYS) != null, "host", HOST_KEYS);
    require(source, anyUrl || text(c, DATABASE_KEYS) != null, "database", DATABASE_KEYS);
    require(source, hasUser(uri) || jdbcQuery.containsKey("user") || text(c, USER_KEYS) != null, "user", USER_KEYS);
    require(source, hasPassword(uri) || jdbcQuery.containsKey("password") || text(c, "password") != null, "password",
        List.of("password"));
    // We picked the binding (name, tag, label); java-cfenv builds its JDBC URL even when
    // its own look-up would not know it for PostgreSQL (a9s: label a9s-postgresql, tag sql).
    String url;
    try {
      url = new PostgresqlJdbcUrlCreator().createJdbcUrl(service);
    } catch (RuntimeException e) {
      throw new ConfigException(source + ": java-cfenv cannot build a JDBC URL from the credentials (" + e.getMessage() + ")");
    }
    CfCredentials creds = service.getCredentials();
    int q = url.indexOf('?');
    Map<String, String> params = DatabaseBinding.query(q < 0 ? null : url.substring(q + 1));
    String explicit = uriQuery.get("sslmode");
    if (explicit == null) {
      explicit = text(c, "sslmode");
    }
    if (explicit == null) {
      explicit = jdbcQuery.get("sslmode");
    }
    Object requireSsl = c.get("require_ssl");
    boolean hinted = Boolean.TRUE.equals(requireSsl) || "true".equals(requireSsl) || "true".equals(jdbcQuery.get("ssl"));
    String ca = ca(c);
    String sslmode = DatabaseBinding.resolveSslmode(source, explicit, ca, hinted);
    params.keySet().removeIf(k -> k.equals("user") || k.equals("password") || k.startsWith("ssl")
        || k.equals("verifyServerCertificate"));
    String user = creds.getUsername() != null ? creds.getUsername() : jdbcQuery.get("user");
    String password = creds.getPassword() != null ? creds.getPassword() : jdbcQuery.get("password");
    // A client certificate needs both halves (SAP BTP gives sslcert alone: not presented).
    String cert = c.get("sslcert") instanceof String s && s.contains("BEGIN CERTIFICATE") ? s : null;
    String key = c.get("sslkey") instanceof String s && s.contains("PRIVATE KEY-----") ? s : null;
    boolean client = cert != null && key != null;
    String base = q < 0 ? url : url.substring(0, q);
    if (!anyUrl) {
      // Built from fields, java-cfenv takes the database from `name` only (dbname alone gives
      // ".../null"): the path is the database the same keys as in every part name.
      base = base.substring(0, base.lastIndexOf('/') + 1) + text(c, DATABASE_KEYS);
    }
    return DatabaseBinding.of(source, base, params, user, password, sslmode, ca,
        client ? cert : null, client ? key : null);
  }

  private static void require(String source, boolean present, String what, List<String> keys) throws ConfigException {
    if (!present) {
      throw new ConfigException(source + ": credentials have no " + what + " (uri, jdbcUrl or " + String.join("|", keys) + ")");
    }
  }

  private static String queryOf(String url) {
    int q = url.indexOf('?');
    return q < 0 ? null : url.substring(q + 1);
  }

  private static boolean hasUser(String uri) {
    return uri != null && uri.matches("^[a-z]+://[^/@]+@.*");
  }

  private static boolean hasPassword(String uri) {
    return uri != null && uri.matches("^[a-z]+://[^/@:]*:[^/@]+@.*");
  }

  private static String text(Map<String, Object> c, String... keys) {
    return text(c, List.of(keys));
  }

  private static String text(Map<String, Object> c, List<String> keys) {
    for (String k : keys) {
      Object v = c.get(k);
      if (v instanceof List<?> list && !list.isEmpty()) {
        v = list.get(0);
      }
      if (v instanceof String s && !s.isEmpty()) {
        return s;
      }
    }
    return null;
  }

  private static String ca(Map<String, Object> c) {
    for (String k : CA_KEYS) {
      if (c.get(k) instanceof String s && s.contains("BEGIN CERTIFICATE")) {
        return s;
      }
    }
    if (c.get("tls") instanceof Map<?, ?> tls && tls.get("ca") instanceof String s && s.contains("BEGIN CERTIFICATE")) {
      return s;
    }
    return null;
  }
}
