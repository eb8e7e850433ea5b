package cfscale.javaapp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** VCAP_SERVICES shapes seen on real foundations (docs/cf-platform.md §4). */
class BindingsTest {
  private static final String URI_BINDING = "{\"name\":\"java-db\",\"label\":\"csb-aws-postgresql\",\"tags\":[\"postgres\"],"
      + "\"credentials\":{\"uri\":\"postgres://u%3Ax:p%2Fw@db1.internal:5433/appdb\",\"jdbcUrl\":\"ignored\"}}";
  private static final String RESULTS_BINDING = "{\"name\":\"results-db\",\"label\":\"postgresql\",\"tags\":[\"postgresql\"],"
      + "\"credentials\":{\"hostname\":\"res.internal\",\"port\":\"5432\",\"name\":\"results\",\"username\":\"r\",\"password\":\"rp\"}}";
  private static final String A9S_BINDING = "{\"name\":\"a9s-db\",\"label\":\"a9s-postgresql13\",\"tags\":[\"sql\"],"
      + "\"credentials\":{\"host\":\"pg-a9s.service\",\"port\":5432,\"name\":\"d1\",\"username\":\"a9s\",\"password\":\"x\"}}";
  private static final String OTHER_BINDING = "{\"name\":\"cache\",\"label\":\"redis\",\"tags\":[\"redis\"],\"credentials\":{}}";

  private static Config config(String vcapServices, String... kv) throws ConfigException {
    Map<String, String> env = new HashMap<>();
    env.put("VCAP_SERVICES", vcapServices);
    env.put("DATABASE_URL", "postgres://ignored@when-vcap-is-set/x");
    for (int i = 0; i < kv.length; i += 2) {
      env.put(kv[i], kv[i + 1]);
    }
    return Config.fromEnv(env);
  }

  @Test
  void uriCredentialsAreDecoded() throws Exception {
    Config c = config("{\"csb-aws-postgresql\":[" + URI_BINDING + "]}", "DB_SERVICE_NAME", "java-db");
    assertEquals(new DatabaseBinding("VCAP_SERVICES binding \"java-db\" credentials.uri", "db1.internal", 5433,
        "appdb", "u:x", "p/w", ""), c.database());
    assertNull(c.resultsDatabase());
  }

  @Test
  void hostnameWithPortAsStringAndTheResultsBindingByName() throws Exception {
    Config c = config("{\"postgresql\":[" + RESULTS_BINDING + "]}", "DB_SERVICE_NAME", "results-db",
        "RESULTS_SERVICE_NAME", "results-db");
    assertEquals(new DatabaseBinding("VCAP_SERVICES binding \"results-db\"", "res.internal", 5432, "results", "r", "rp", ""),
        c.database());
    assertEquals(c.database(), c.resultsDatabase());
  }

  @Test
  void a9sHostWithNumericPort() throws Exception {
    Config c = config("{\"a9s-postgresql13\":[" + A9S_BINDING + "]}");
    assertEquals(new DatabaseBinding("VCAP_SERVICES binding \"a9s-db\"", "pg-a9s.service", 5432, "d1", "a9s", "x", ""),
        c.database());
  }

  @Test
  void byTagSkipsTheResultsBindingAndNonPostgres() throws Exception {
    String vcap = "{\"redis\":[" + OTHER_BINDING + "],\"postgresql\":[" + RESULTS_BINDING + "],"
        + "\"csb-aws-postgresql\":[" + URI_BINDING + "]}";
    Config c = config(vcap);
    assertEquals("db1.internal", c.database().host());
    assertEquals("res.internal", c.resultsDatabase().host());
  }

  @Test
  void byNameWinsOverTags() throws Exception {
    String vcap = "{\"csb-aws-postgresql\":[" + URI_BINDING + "],\"a9s-postgresql13\":[" + A9S_BINDING + "]}";
    assertEquals("pg-a9s.service", config(vcap, "DB_SERVICE_NAME", "a9s-db").database().host());
  }

  @Test
  void missingNamedBindingStopsTheApp() {
    ConfigException e = assertThrows(ConfigException.class,
        () -> config("{\"csb-aws-postgresql\":[" + URI_BINDING + "]}", "DB_SERVICE_NAME", "node-db"));
    assertEquals("DB_SERVICE_NAME: no binding named \"node-db\" in VCAP_SERVICES", e.getMessage());
    e = assertThrows(ConfigException.class,
        () -> config("{\"csb-aws-postgresql\":[" + URI_BINDING + "]}", "RESULTS_SERVICE_NAME", "res"));
    assertEquals("RESULTS_SERVICE_NAME: no binding named \"res\" in VCAP_SERVICES", e.getMessage());
  }

  @Test
  void noPostgresBindingStopsTheApp() {
    ConfigException e = assertThrows(ConfigException.class, () -> config("{\"redis\":[" + OTHER_BINDING + "]}"));
    assertEquals("DB_SERVICE_NAME: no PostgreSQL binding in VCAP_SERVICES (tags or label with \"postgres\")", e.getMessage());
  }

  @Test
  void malformedVcapServicesNamesTheVariable() {
    assertEquals("VCAP_SERVICES is not valid JSON: unexpected text after the value at offset 3",
        assertThrows(ConfigException.class, () -> config("{} x")).getMessage());
    assertEquals("VCAP_SERVICES must be a JSON object",
        assertThrows(ConfigException.class, () -> config("[]")).getMessage());
    assertEquals("VCAP_SERVICES \"p\" must be an array of bindings",
        assertThrows(ConfigException.class, () -> config("{\"p\":{}}")).getMessage());
    assertEquals("VCAP_SERVICES binding \"d\" credentials.port must be an integer or a string",
        assertThrows(ConfigException.class, () -> config(
            "{\"p\":[{\"name\":\"d\",\"tags\":[\"postgres\"],\"credentials\":{\"host\":\"h\",\"port\":5432.5,\"name\":\"n\"}}]}"))
            .getMessage());
    assertEquals("VCAP_SERVICES binding \"d\" has no host",
        assertThrows(ConfigException.class, () -> config(
            "{\"p\":[{\"name\":\"d\",\"label\":\"postgres\",\"credentials\":{\"name\":\"n\"}}]}")).getMessage());
  }
}
