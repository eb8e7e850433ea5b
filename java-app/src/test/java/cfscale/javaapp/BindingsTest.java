package cfscale.javaapp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** VCAP_SERVICES shapes seen on real foundations (docs/cf-platform.md §4, docs/bindings.md), read with java-cfenv. */
class BindingsTest {
  private static final String URI_BINDING = "{\"name\":\"java-db\",\"label\":\"csb-aws-postgresql\",\"tags\":[\"postgres\"],"
      + "\"credentials\":{\"uri\":\"postgres://u:pw@db1.internal:5433/appdb\"}}";
  private static final String RESULTS_BINDING = "{\"name\":\"results-db\",\"label\":\"postgresql\",\"tags\":[\"postgresql\"],"
      + "\"credentials\":{\"hostname\":\"res.internal\",\"port\":\"5432\",\"name\":\"results\",\"username\":\"r\",\"password\":\"rp\"}}";
  private static final String A9S_BINDING = "{\"name\":\"a9s-db\",\"label\":\"a9s-postgresql13\",\"tags\":[\"sql\"],"
      + "\"credentials\":{\"host\":\"pg-a9s.service\",\"port\":5432,\"name\":\"d1\",\"username\":\"a9s\",\"password\":\"x\"}}";
  private static final String OTHER_BINDING = "{\"name\":\"cache\",\"label\":\"redis\",\"tags\":[\"redis\"],\"credentials\":{}}";

  private static Config config(String vcapServices, String... kv) throws ConfigException {
    Map<String, String> env = new HashMap<>();
    env.put("VCAP_SERVICES", vcapServices);
    env.put("DATABASE_URL", "postgres://ignored@when-vcap-is-set/x");
    env.put("CONTROL_TOKEN", "Zm9vYmFyLWNvbnRyb2wtdG9rZW4tZm9yLXRlc3Rz");
    for (int i = 0; i < kv.length; i += 2) {
      env.put(kv[i], kv[i + 1]);
    }
    return Config.fromEnv(env);
  }

  @Test
  void uriCredentialsAreDecoded() throws Exception {
    Config c = config("{\"csb-aws-postgresql\":[" + URI_BINDING + "]}", "DB_SERVICE_NAME", "java-db");
    assertEquals(new DatabaseBinding("VCAP_SERVICES binding \"java-db\"",
        "jdbc:postgresql://db1.internal:5433/appdb?sslmode=disable", "u", "pw", "disable"), c.database());
    assertNull(c.resultsDatabase());
  }

  @Test
  void hostnameWithPortAsStringAndTheResultsBindingByName() throws Exception {
    Config c = config("{\"postgresql\":[" + RESULTS_BINDING + "]}", "DB_SERVICE_NAME", "results-db",
        "RESULTS_SERVICE_NAME", "results-db");
    assertEquals(new DatabaseBinding("VCAP_SERVICES binding \"results-db\"",
        "jdbc:postgresql://res.internal:5432/results?sslmode=disable", "r", "rp", "disable"), c.database());
    assertEquals(c.database(), c.resultsDatabase());
  }

  @Test
  void a9sHostWithNumericPort() throws Exception {
    Config c = config("{\"a9s-postgresql13\":[" + A9S_BINDING + "]}");
    assertEquals(new DatabaseBinding("VCAP_SERVICES binding \"a9s-db\"",
        "jdbc:postgresql://pg-a9s.service:5432/d1?sslmode=disable", "a9s", "x", "disable"), c.database());
  }

  @Test
  void databaseFromEveryFieldName() throws Exception {
    // No uri or jdbcUrl: the database comes from name|dbname|database|db, as in every part (docs/bindings.md §2).
    for (String key : new String[] {"name", "dbname", "database", "db"}) {
      String binding = "{\"name\":\"only-" + key + "\",\"label\":\"postgresql-db\",\"tags\":[],"
          + "\"credentials\":{\"hostname\":\"h.internal\",\"port\":\"5432\",\"" + key + "\":\"the_db\","
          + "\"username\":\"u\",\"password\":\"p\"}}";
      assertEquals("jdbc:postgresql://h.internal:5432/the_db?sslmode=disable",
          config("{\"postgresql-db\":[" + binding + "]}").database().jdbcUrl(), key);
    }
  }

  @Test
  void severalHostsTheFirstIsUsed() throws Exception {
    // Fields only, no host or hostname: the first of `hosts` (docs/bindings.md §2, §4).
    String binding = "{\"name\":\"a9s-cluster\",\"label\":\"a9s-postgresql11\",\"tags\":[\"sql\"],"
        + "\"credentials\":{\"hosts\":[\"pg-0.internal\",\"pg-1.internal\"],\"port\":5432,\"name\":\"d\","
        + "\"username\":\"u\",\"password\":\"p\"}}";
    assertEquals("jdbc:postgresql://pg-0.internal:5432/d?sslmode=disable",
        config("{\"a9s-postgresql11\":[" + binding + "]}").database().jdbcUrl());
  }

  @Test
  void multiHostUrlStopsTheApp() {
    // pure pg cannot try several hosts; every part refuses rather than guess (docs/bindings.md §4).
    for (String key : new String[] {"uri", "jdbcUrl"}) {
      String url = key.equals("uri") ? "postgres://u:p@h1:5432,h2:5433/db" : "jdbc:postgresql://h1:5432,h2:5433/db?user=u&password=p";
      String binding = "{\"name\":\"m\",\"label\":\"postgres\",\"tags\":[\"postgres\"],"
          + "\"credentials\":{\"" + key + "\":\"" + url + "\"}}";
      ConfigException e = assertThrows(ConfigException.class, () -> config("{\"postgres\":[" + binding + "]}"));
      assertEquals("VCAP_SERVICES binding \"m\": credentials." + key + " names several hosts (h1:5432,h2:5433); "
          + "cfscale connects to one: give one host, or hosts (the first is used)", e.getMessage());
    }
  }

  @Test
  void clientKeyGoesToPgjdbcAsPkcs8Der() throws Exception {
    byte[] pkcs8 = java.security.KeyPairGenerator.getInstance("RSA").generateKeyPair().getPrivate().getEncoded();
    String pem = "-----BEGIN PRIVATE KEY-----\n" + java.util.Base64.getMimeEncoder().encodeToString(pkcs8)
        + "\n-----END PRIVATE KEY-----\n";
    org.junit.jupiter.api.Assertions.assertArrayEquals(pkcs8, DatabaseBinding.pkcs8Der("s", pem));
    // A DATABASE_URL's sslcert/sslkey files: the key is handed to pgjdbc converted, in a file of its own.
    java.nio.file.Path dir = java.nio.file.Files.createTempDirectory("bindings-test");
    java.nio.file.Path cert = java.nio.file.Files.writeString(dir.resolve("c.pem"), "-----BEGIN CERTIFICATE-----\nx\n-----END CERTIFICATE-----\n");
    java.nio.file.Path key = java.nio.file.Files.writeString(dir.resolve("k.pem"), pem);
    DatabaseBinding db = DatabaseBinding.fromUrl("DATABASE_URL", "postgres://u@h/d?sslmode=require&sslcert=" + cert + "&sslkey=" + key);
    String keyFile = DatabaseBinding.query(db.jdbcUrl().substring(db.jdbcUrl().indexOf('?') + 1)).get("sslkey");
    assertTrue(keyFile.endsWith(".pk8"), db.jdbcUrl());
    org.junit.jupiter.api.Assertions.assertArrayEquals(pkcs8, java.nio.file.Files.readAllBytes(java.nio.file.Path.of(keyFile)));
    ConfigException e = assertThrows(ConfigException.class,
        () -> DatabaseBinding.pkcs8Der("s", "-----BEGIN EC PRIVATE KEY-----\nAA==\n-----END EC PRIVATE KEY-----\n"));
    assertEquals("s: sslkey must be an unencrypted PKCS-8 or RSA PEM key, got EC PRIVATE KEY", e.getMessage());
    e = assertThrows(ConfigException.class, () -> DatabaseBinding.fromUrl("DATABASE_URL", "postgres://u@h/d?sslcert=" + cert));
    assertEquals("DATABASE_URL: sslcert and sslkey go together", e.getMessage());
  }

  @Test
  void byTagSkipsTheResultsBindingAndNonPostgres() throws Exception {
    String vcap = "{\"redis\":[" + OTHER_BINDING + "],\"postgresql\":[" + RESULTS_BINDING + "],"
        + "\"csb-aws-postgresql\":[" + URI_BINDING + "]}";
    Config c = config(vcap);
    assertTrue(c.database().jdbcUrl().contains("//db1.internal:"), c.database().jdbcUrl());
    assertTrue(c.resultsDatabase().jdbcUrl().contains("//res.internal:"), c.resultsDatabase().jdbcUrl());
  }

  @Test
  void byNameWinsOverTags() throws Exception {
    String vcap = "{\"csb-aws-postgresql\":[" + URI_BINDING + "],\"a9s-postgresql13\":[" + A9S_BINDING + "]}";
    assertTrue(config(vcap, "DB_SERVICE_NAME", "a9s-db").database().jdbcUrl().contains("//pg-a9s.service:"));
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
    assertEquals("DB_SERVICE_NAME: not set and VCAP_SERVICES has no postgres binding (tag or label) besides the results one",
        e.getMessage());
  }

  @Test
  void malformedVcapServicesNamesTheVariable() {
    assertEquals("VCAP_SERVICES is not a JSON object of service arrays",
        assertThrows(ConfigException.class, () -> config("nope")).getMessage());
    assertEquals("VCAP_SERVICES is not a JSON object of service arrays",
        assertThrows(ConfigException.class, () -> config("[]")).getMessage());
    assertEquals("VCAP_SERVICES binding \"d\": credentials have no host (uri, jdbcUrl or hostname|host|hosts)",
        assertThrows(ConfigException.class, () -> config(
            "{\"p\":[{\"name\":\"d\",\"label\":\"postgres\",\"credentials\":{\"name\":\"n\"}}]}")).getMessage());
  }

  @Test
  void tlsAsTheBrokerAsks() throws Exception {
    String azure = "{\"name\":\"az\",\"label\":\"csb-azure-postgresql-flexible-server\",\"tags\":[\"postgres\"],\"credentials\":{"
        + "\"uri\":\"postgresql://u:p@h:5432/d\",\"jdbcUrl\":\"jdbc:postgresql://h:5432/d?user=u&password=p&ssl=true&sslmode=require\"}}";
    DatabaseBinding b = config("{\"x\":[" + azure + "]}").database();
    assertEquals("require", b.sslmode());
    assertEquals("jdbc:postgresql://h:5432/d?sslmode=require", b.jdbcUrl());
    String aws = "{\"name\":\"aws\",\"label\":\"csb-aws-postgresql\",\"tags\":[\"postgres\"],\"credentials\":{\"require_ssl\":true,"
        + "\"uri\":\"postgresql://u:p@h:5432/d\",\"jdbcUrl\":\"jdbc:postgresql://h:5432/d?user=u&password=p&ssl=true&sslfactory=org.postgresql.ssl.DefaultJavaSSLFactory\"}}";
    assertEquals("jdbc:postgresql://h:5432/d?sslmode=require", config("{\"x\":[" + aws + "]}").database().jdbcUrl());
  }
}
