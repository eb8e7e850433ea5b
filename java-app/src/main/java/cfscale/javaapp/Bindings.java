package cfscale.javaapp;

import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The service bindings in VCAP_SERVICES, and how a PostgreSQL binding is found in them.
 *
 * VCAP_SERVICES is an object keyed by service label whose values are arrays of bindings with
 * {@code name}, {@code label}, {@code tags} and {@code credentials}
 * (docs/cf-platform.md §4). Brokers differ in credential keys: {@code uri}
 * first, else {@code hostname}|{@code host} (a9s uses {@code host}), {@code port} (a number or,
 * as in the CF docs example, a string), {@code name}|{@code dbname}|{@code database},
 * {@code username}|{@code user}, {@code password}.
 */
final class Bindings {
  static final String VARIABLE = "VCAP_SERVICES";

  private final List<Map<String, Object>> bindings;

  private Bindings(List<Map<String, Object>> bindings) {
    this.bindings = bindings;
  }

  @SuppressWarnings("unchecked")
  static Bindings parse(String vcapServices) throws ConfigException {
    Object root;
    try {
      root = Json.parse(vcapServices);
    } catch (Json.ParseException e) {
      throw new ConfigException(VARIABLE + " is not valid JSON: " + e.getMessage());
    }
    if (!(root instanceof Map)) {
      throw new ConfigException(VARIABLE + " must be a JSON object");
    }
    List<Map<String, Object>> all = new ArrayList<>();
    for (Map.Entry<String, Object> service : ((Map<String, Object>) root).entrySet()) {
      if (!(service.getValue() instanceof List)) {
        throw new ConfigException(VARIABLE + " \"" + service.getKey() + "\" must be an array of bindings");
      }
      for (Object b : (List<Object>) service.getValue()) {
        if (!(b instanceof Map)) {
          throw new ConfigException(VARIABLE + " \"" + service.getKey() + "\" must be an array of binding objects");
        }
        all.add((Map<String, Object>) b);
      }
    }
    return new Bindings(all);
  }

  /** The binding whose {@code name} is {@code name}, or null. */
  DatabaseBinding byName(String name) throws ConfigException {
    for (Map<String, Object> b : bindings) {
      if (name.equals(b.get("name"))) {
        return credentials(b);
      }
    }
    return null;
  }

  /** The first binding whose tags or label contain "postgres" and whose name is not {@code excludedName}, or null. */
  DatabaseBinding firstPostgres(String excludedName) throws ConfigException {
    for (Map<String, Object> b : bindings) {
      if (excludedName.equals(b.get("name"))) {
        continue;
      }
      if (isPostgres(b)) {
        return credentials(b);
      }
    }
    return null;
  }

  private static boolean isPostgres(Map<String, Object> binding) {
    if (binding.get("label") instanceof String label && mentionsPostgres(label)) {
      return true;
    }
    if (binding.get("tags") instanceof List<?> tags) {
      for (Object tag : tags) {
        if (tag instanceof String t && mentionsPostgres(t)) {
          return true;
        }
      }
    }
    return false;
  }

  private static boolean mentionsPostgres(String s) {
    return s.toLowerCase(Locale.ROOT).contains("postgres");
  }

  @SuppressWarnings("unchecked")
  private static DatabaseBinding credentials(Map<String, Object> binding) throws ConfigException {
    String source = VARIABLE + " binding \"" + binding.get("name") + "\"";
    if (!(binding.get("credentials") instanceof Map)) {
      throw new ConfigException(source + " has no credentials object");
    }
    Map<String, Object> c = (Map<String, Object>) binding.get("credentials");
    String uri = text(source, c, "uri");
    if (uri != null && !uri.isEmpty()) {
      return DatabaseBinding.fromUrl(source + " credentials.uri", uri);
    }
    return DatabaseBinding.of(source,
        first(source, c, "hostname", "host"),
        portText(source, c.get("port")),
        first(source, c, "name", "dbname", "database"),
        first(source, c, "username", "user"),
        text(source, c, "password"),
        "");
  }

  private static String first(String source, Map<String, Object> c, String... keys) throws ConfigException {
    for (String key : keys) {
      String v = text(source, c, key);
      if (v != null) {
        return v;
      }
    }
    return null;
  }

  private static String text(String source, Map<String, Object> c, String key) throws ConfigException {
    Object v = c.get(key);
    if (v == null || v instanceof String) {
      return (String) v;
    }
    throw new ConfigException(source + " credentials." + key + " must be a string");
  }

  private static String portText(String source, Object port) throws ConfigException {
    if (port == null || port instanceof String) {
      return (String) port;
    }
    if (port instanceof BigDecimal n) {
      try {
        return n.toBigIntegerExact().toString();
      } catch (ArithmeticException e) {
        // fall through to the error below
      }
    }
    throw new ConfigException(source + " credentials.port must be an integer or a string");
  }
}
