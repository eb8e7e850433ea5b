package cfscale.javaapp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.lang.reflect.RecordComponent;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class ConfigTest {
  private static final String DB = "postgres://app:s%40cret@db.example:6543/ads";
  private static final String TOKEN = "Zm9vYmFyLWNvbnRyb2wtdG9rZW4tZm9yLXRlc3Rz";
  private static final String TOKEN_FORMAT =
      "CONTROL_TOKEN must be 32 to 256 characters, each a letter, a digit or one of - . _ ~ + / = (got ";

  private static Map<String, String> env(String... kv) {
    Map<String, String> m = new HashMap<>();
    m.put("DATABASE_URL", DB);
    m.put("CONTROL_TOKEN", TOKEN);
    for (int i = 0; i < kv.length; i += 2) {
      m.put(kv[i], kv[i + 1]);
    }
    return m;
  }

  @Test
  void defaults() throws Exception {
    Config c = Config.fromEnv(env());
    assertEquals(8080, c.port());
    assertEquals(0, c.instanceIndex());
    assertEquals("java-app", c.appName());
    assertEquals(10, c.dbPoolSize());
    assertEquals(2000, c.dbPoolTimeoutMs());
    assertEquals(5000, c.dbStatementTimeoutMs());
    assertTrue(c.timingsEnabled());
    assertEquals(100_000, c.timingsCapacity());
    assertFalse(c.timingsFlushOnExit());
    assertEquals(8000, c.shutdownTimeoutMs());
    assertEquals(8, c.jettyThreadsMin());
    assertEquals(200, c.jettyThreadsMax());
    assertNull(c.resultsDatabase());
    assertEquals(new DatabaseBinding("DATABASE_URL", "jdbc:postgresql://db.example:6543/ads?sslmode=disable", "app", "s@cret",
        "disable"), c.database());
  }

  @Test
  void readsEverySetting() throws Exception {
    Config c = Config.fromEnv(env("PORT", "9000", "CF_INSTANCE_INDEX", "3", "APP_NAME", "x",
        "DB_POOL_SIZE", "90", "DB_POOL_TIMEOUT_MS", "250", "DB_STATEMENT_TIMEOUT_MS", "100",
        "TIMINGS_ENABLED", "false",
        "TIMINGS_CAPACITY", "5", "TIMINGS_FLUSH_ON_EXIT", "true", "SHUTDOWN_TIMEOUT_MS", "100",
        "JETTY_THREADS_MIN", "10", "JETTY_THREADS_MAX", "10",
        "RESULTS_DATABASE_URL", "postgresql://r@results:5432/results"));
    assertEquals(new Config(9000, 3, "x", c.database(),
        new DatabaseBinding("RESULTS_DATABASE_URL", "jdbc:postgresql://results:5432/results?sslmode=disable", "r", "", "disable"),
        90, 250, 100, false, 5, true, 100, 16_384, 10_000, 95_000, 10, 10, TOKEN, false), c);
  }

  /**
   * Config.java against the settings spec, contract/settings.json: for every integer setting of
   * java-app the default when unset, both edges of the range accepted, one past either refused
   * with the range in the message; the booleans' defaults.
   */
  @Test
  void matchesTheSettingsSpec() throws Exception {
    JsonNode spec = new ObjectMapper().readTree(Path.of("..", "contract", "settings.json").toFile());
    List<JsonNode> integers = new ArrayList<>();
    List<String> problems = new ArrayList<>();
    Config defaults = Config.fromEnv(env());
    for (JsonNode s : spec.get("settings")) {
      if (s.get("apps").asText().equals("node")) {
        continue;
      }
      if (s.get("type").asText().equals("integer")) {
        integers.add(s);
      } else if (s.get("type").asText().equals("boolean")) {
        boolean unset = switch (s.get("name").asText()) {
          case "TIMINGS_ENABLED" -> defaults.timingsEnabled();
          case "TIMINGS_FLUSH_ON_EXIT" -> defaults.timingsFlushOnExit();
          // unset, an app without CONTROL_TOKEN keeps its control endpoints closed
          case "LOCAL_DEV_NO_CONTROL_TOKEN" -> openWithoutToken(env());
          default -> !s.get("default").asBoolean();
        };
        if (unset != s.get("default").asBoolean()) {
          problems.add(s.get("name").asText() + ": default " + unset);
        }
      }
    }
    for (JsonNode s : integers) {
      String name = s.get("name").asText();
      int min = s.get("min").asInt();
      int max = s.get("max").asInt();
      Map<String, String> others = new HashMap<>();
      for (JsonNode o : integers) {
        if (o.has("notBelow") && o.get("notBelow").asText().equals(name)) {
          others.put(o.get("name").asText(), o.get("max").asText());
        }
        if (s.has("notBelow") && o.get("name").asText().equals(s.get("notBelow").asText())) {
          others.put(o.get("name").asText(), o.get("min").asText());
        }
      }
      RecordComponent field = fieldTaking(with(others, name, min), min, with(others, name, max), max);
      if (field == null) {
        problems.add(name + ": no Config field takes " + min + " and " + max);
        continue;
      }
      if ((int) field.getAccessor().invoke(defaults) != s.get("default").asInt()) {
        problems.add(name + ": default " + field.getAccessor().invoke(defaults) + ", spec " + s.get("default"));
      }
      for (long bad : new long[] {min - 1L, max + 1L}) {
        String want = name + " must be an integer from " + min + " to " + max + ", got \"" + bad + "\"";
        try {
          Config.fromEnv(with(others, name, bad));
          problems.add(name + "=" + bad + " accepted");
        } catch (ConfigException e) {
          if (!e.getMessage().equals(want)) {
            problems.add(name + "=" + bad + ": " + e.getMessage());
          }
        }
      }
    }
    assertEquals(List.of(), problems);
  }

  private static boolean openWithoutToken(Map<String, String> env) throws ConfigException {
    env.remove("CONTROL_TOKEN");
    return Config.fromEnv(env).controlOpen();
  }

  @Test
  void withoutControlTokenTheAppStartsClosedUnlessLocalDevOpensIt() throws Exception {
    Map<String, String> none = env();
    none.remove("CONTROL_TOKEN");
    Map<String, String> localDevOff = env("CONTROL_TOKEN", "", "LOCAL_DEV_NO_CONTROL_TOKEN", "false");
    for (Map<String, String> unset : List.of(none, env("CONTROL_TOKEN", ""), localDevOff)) {
      Config c = Config.fromEnv(unset);
      assertNull(c.controlToken());
      assertFalse(c.controlOpen());
    }
    none.put("LOCAL_DEV_NO_CONTROL_TOKEN", "true");
    assertNull(Config.fromEnv(none).controlToken());
    assertTrue(Config.fromEnv(none).controlOpen());
    assertEquals(TOKEN, Config.fromEnv(env("LOCAL_DEV_NO_CONTROL_TOKEN", "true")).controlToken());
    assertFalse(Config.fromEnv(env("LOCAL_DEV_NO_CONTROL_TOKEN", "true")).controlOpen(), "a token given still guards them");
    for (String token : new String[] {"a".repeat(32), "Z".repeat(256), "AZaz09-._~+/=AZaz09-._~+/=AZaz09=="}) {
      assertEquals(token, Config.fromEnv(env("CONTROL_TOKEN", token)).controlToken());
    }
    for (String bad : new String[] {"x".repeat(31), "x".repeat(257), "x".repeat(31) + " ", "x".repeat(31) + "\u00e9"}) {
      assertEquals(TOKEN_FORMAT + bad.length() + " characters)",
          assertThrows(ConfigException.class, () -> Config.fromEnv(env("CONTROL_TOKEN", bad))).getMessage());
    }
    assertEquals("LOCAL_DEV_NO_CONTROL_TOKEN must be true or false, got \"yes\"",
        assertThrows(ConfigException.class, () -> Config.fromEnv(env("LOCAL_DEV_NO_CONTROL_TOKEN", "yes"))).getMessage());
  }

  @Test
  void theControlTokenIsNeverInTheSettingsLine() throws Exception {
    Config c = Config.fromEnv(env());
    assertFalse(c.describe().contains(TOKEN), c.describe());
    assertFalse(c.toString().contains(TOKEN), c.toString());
    assertTrue(c.describe().endsWith(" CONTROL_TOKEN=***"), c.describe());
    Map<String, String> open = env("LOCAL_DEV_NO_CONTROL_TOKEN", "true");
    open.remove("CONTROL_TOKEN");
    assertTrue(Config.fromEnv(open).describe().contains(" CONTROL_TOKEN=none (LOCAL_DEV_NO_CONTROL_TOKEN"));
    Map<String, String> closed = env();
    closed.remove("CONTROL_TOKEN");
    assertTrue(Config.fromEnv(closed).describe().endsWith(" CONTROL_TOKEN=none (control endpoints closed)"));
  }

  private static Map<String, String> with(Map<String, String> others, String name, long value) {
    Map<String, String> m = env();
    m.putAll(others);
    m.put(name, Long.toString(value));
    return m;
  }

  /** The int field of Config that is {@code a} with env {@code atA} and {@code b} with {@code atB}. */
  private static RecordComponent fieldTaking(Map<String, String> atA, int a, Map<String, String> atB, int b)
      throws Exception {
    Config ca = Config.fromEnv(atA);
    Config cb = Config.fromEnv(atB);
    for (RecordComponent rc : Config.class.getRecordComponents()) {
      if (rc.getType() == int.class && (int) rc.getAccessor().invoke(ca) == a && (int) rc.getAccessor().invoke(cb) == b) {
        return rc;
      }
    }
    return null;
  }

  @Test
  void emptyValuesCountAsUnset() throws Exception {
    assertEquals(10, Config.fromEnv(env("DB_POOL_SIZE", "")).dbPoolSize());
  }

  @ParameterizedTest(name = "{0}={1}")
  @CsvSource(delimiter = '|', value = {
      "PORT|x|PORT must be an integer from 0 to 65535, got \"x\"",
      "PORT|65536|PORT must be an integer from 0 to 65535, got \"65536\"",
      "CF_INSTANCE_INDEX|-1|CF_INSTANCE_INDEX must be an integer from 0 to 1000000, got \"-1\"",
      "DB_POOL_SIZE|abc|DB_POOL_SIZE must be an integer from 1 to 1000, got \"abc\"",
      "DB_POOL_SIZE|0|DB_POOL_SIZE must be an integer from 1 to 1000, got \"0\"",
      "DB_POOL_SIZE|1001|DB_POOL_SIZE must be an integer from 1 to 1000, got \"1001\"",
      "DB_POOL_SIZE|10.5|DB_POOL_SIZE must be an integer from 1 to 1000, got \"10.5\"",
      "DB_POOL_SIZE|99999999999|DB_POOL_SIZE must be an integer from 1 to 1000, got \"99999999999\"",
      "DB_POOL_TIMEOUT_MS|249|DB_POOL_TIMEOUT_MS must be an integer from 250 to 600000, got \"249\"",
      "DB_STATEMENT_TIMEOUT_MS|99|DB_STATEMENT_TIMEOUT_MS must be an integer from 100 to 600000, got \"99\"",
      "DB_STATEMENT_TIMEOUT_MS|600001|DB_STATEMENT_TIMEOUT_MS must be an integer from 100 to 600000, got \"600001\"",
      "DB_STATEMENT_TIMEOUT_MS|5s|DB_STATEMENT_TIMEOUT_MS must be an integer from 100 to 600000, got \"5s\"",
      "DB_STATEMENT_TIMEOUT_MS|-1|DB_STATEMENT_TIMEOUT_MS must be an integer from 100 to 600000, got \"-1\"",
      "TIMINGS_ENABLED|yes|TIMINGS_ENABLED must be true or false, got \"yes\"",
      "TIMINGS_CAPACITY|0|TIMINGS_CAPACITY must be an integer from 1 to 10000000, got \"0\"",
      "TIMINGS_FLUSH_ON_EXIT|TRUE|TIMINGS_FLUSH_ON_EXIT must be true or false, got \"TRUE\"",
      "SHUTDOWN_TIMEOUT_MS|10|SHUTDOWN_TIMEOUT_MS must be an integer from 100 to 600000, got \"10\"",
      "JETTY_THREADS_MIN|0|JETTY_THREADS_MIN must be an integer from 1 to 10000, got \"0\"",
      "JETTY_THREADS_MAX|3|JETTY_THREADS_MAX must be an integer from 4 to 10000, got \"3\"",
      "JETTY_THREADS_MAX|5|JETTY_THREADS_MAX must be >= JETTY_THREADS_MIN (8), got \"5\"",
      "DATABASE_URL|mysql://x/y|DATABASE_URL must be a postgres:// URL",
      "DATABASE_URL|postgres://u:p@h:0/db|DATABASE_URL port must be an integer from 1 to 65535, got \"0\"",
      "DATABASE_URL|postgres://u:p@h:5432/|DATABASE_URL has no database name",
      "DATABASE_URL|postgres://u:%zz@h/db|DATABASE_URL is not a valid URL: Malformed escape pair",
      "RESULTS_DATABASE_URL|postgres:///x|RESULTS_DATABASE_URL has no host",
      "VCAP_APPLICATION|{|VCAP_APPLICATION is not valid JSON",
  })
  void rejectsBadSettingsNamingTheVariable(String name, String value, String message) {
    ConfigException e = assertThrows(ConfigException.class, () -> Config.fromEnv(env(name, value)));
    assertEquals(message, e.getMessage());
  }

  @Test
  void noDatabaseAtAllIsAnError() {
    ConfigException e = assertThrows(ConfigException.class, () -> Config.fromEnv(Map.of("CONTROL_TOKEN", TOKEN)));
    assertEquals("DATABASE_URL: no database (set VCAP_SERVICES or DATABASE_URL)", e.getMessage());
  }

  @Test
  void appNameFallsBackToVcapApplication() throws Exception {
    assertEquals("bb-java", Config.fromEnv(env("VCAP_APPLICATION", "{\"application_name\":\"bb-java\"}")).appName());
    assertEquals("set", Config.fromEnv(env("APP_NAME", "set", "VCAP_APPLICATION", "{\"application_name\":\"x\"}")).appName());
    assertEquals("java-app", Config.fromEnv(env("VCAP_APPLICATION", "{}")).appName());
  }

  @Test
  void describeMasksPasswords() throws Exception {
    String line = Config.fromEnv(env("RESULTS_DATABASE_URL", "postgres://r:topsecret@h/r")).describe();
    assertFalse(line.contains("s@cret") || line.contains("s%40cret") || line.contains("topsecret"), line);
    assertTrue(line.contains("database=app:***@jdbc:postgresql://db.example:6543/ads?sslmode=disable"), line);
    assertTrue(line.contains("results=r:***@jdbc:postgresql://h:5432/r?sslmode=disable"), line);
  }

  @Test
  void jdbcUrlCarriesHostPortDatabaseAndQuery() throws Exception {
    assertEquals("jdbc:postgresql://db.example:6543/ads?sslmode=disable", Config.fromEnv(env()).database().jdbcUrl());
    assertEquals("jdbc:postgresql://[::1]:5432/d?sslmode=require&connectTimeout=3",
        DatabaseBinding.fromUrl("X", "postgres://u@[::1]/d?sslmode=require&connectTimeout=3").jdbcUrl());
  }
}
