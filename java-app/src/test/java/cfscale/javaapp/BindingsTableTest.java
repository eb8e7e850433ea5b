package cfscale.javaapp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.TextNode;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The broker table (contract/bindings/*.json, rendered as contract/bindings/table.js does):
 * java-app picks each document's binding with java-cfenv and connects with pgjdbc, as
 * AdStore does, to a real PostgreSQL serving TLS, encrypted exactly as the broker asks; a
 * document missing a field stops start-up with one line naming the service and the field.
 * The cluster: CFSCALE_TEST_PG_URL when CFSCALE_TEST_PG_DIR has tls/ca.crt (scripts/test.sh),
 * else scripts/pg-cluster.sh start --tls in a directory of our own.
 */
class BindingsTableTest {
  private static final Path ROOT = TestPorts.ROOT;
  private static final Path TABLE = ROOT.resolve("contract/bindings");
  private static Path ownDir;
  private static final ObjectMapper JSON = new ObjectMapper();

  private static URI cluster;
  private static Path tls;
  private static boolean ownCluster;

  @BeforeAll
  static void startCluster() throws Exception {
    String url = System.getenv("CFSCALE_TEST_PG_URL");
    String dir = System.getenv("CFSCALE_TEST_PG_DIR");
    tls = dir == null ? null : Path.of(dir, "tls");
    if (url == null || tls == null || !Files.exists(tls.resolve("client.crt"))) {
      ownDir = TestPorts.clusterDir("cfscale-bindings-java-");
      url = run("start", "--dir", ownDir.toString(), "--port", String.valueOf(TestPorts.freePort()), "--tls");
      tls = ownDir.resolve("tls");
      ownCluster = true;
    }
    cluster = new URI(url);
  }

  @AfterAll
  static void stopCluster() throws Exception {
    if (ownCluster) {
      run("stop", "--dir", ownDir.toString());
      TestPorts.remove(ownDir);
    }
  }

  private static String run(String... args) throws IOException, InterruptedException {
    List<String> cmd = Stream.concat(Stream.of(ROOT.resolve("scripts/pg-cluster.sh").toString()), Stream.of(args)).toList();
    Process p = new ProcessBuilder(cmd).redirectError(ProcessBuilder.Redirect.INHERIT).start();
    String out = new String(p.getInputStream().readAllBytes()).trim();
    if (p.waitFor() != 0) {
      throw new IOException("pg-cluster.sh " + String.join(" ", args) + " failed");
    }
    return out;
  }

  static Stream<Path> cases() throws IOException {
    try (Stream<Path> files = Files.list(TABLE)) {
      return files.filter(f -> f.toString().endsWith(".json")).sorted().toList().stream();
    }
  }

  /** The case's VCAP_SERVICES pointing at the test cluster (the placeholders of table.js). */
  private static String render(String template) throws IOException {
    String[] userinfo = cluster.getRawUserInfo().split(":", 2);
    String text = template
        .replace("\"${PORT_NUMBER}\"", String.valueOf(cluster.getPort()))
        .replace("${HOST}", "127.0.0.1")
        .replace("${PORT}", String.valueOf(cluster.getPort()))
        .replace("${USER}", userinfo[0])
        .replace("${PASSWORD}", userinfo[1])
        .replace("${CERT_DATABASE}", "cfscale_clientcert")
        .replace("${DATABASE}", cluster.getPath().substring(1))
        .replace("${CA_PEM}", pem("ca.crt"))
        .replace("${CLIENT_CERT_PEM}", pem("client.crt"))
        .replace("${CLIENT_KEY_PEM}", pem("client.key"));
    return JSON.writeValueAsString(JSON.readTree(text).get("VCAP_SERVICES"));
  }

  /** A PEM of the cluster's tls directory, JSON-escaped. */
  private static String pem(String file) throws IOException {
    return JSON.writeValueAsString(new TextNode(Files.readString(tls.resolve(file)))).replaceAll("^\"|\"$", "");
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("cases")
  void brokerDocument(Path file) throws Exception {
    String template = Files.readString(file);
    JsonNode expect = JSON.readTree(template).get("expect");
    Map<String, String> env = Map.of("VCAP_SERVICES", render(template), "CONTROL_TOKEN", "x".repeat(32));
    if (expect.has("error")) {
      ConfigException e = assertThrows(ConfigException.class, () -> Config.fromEnv(env));
      assertFalse(e.getMessage().contains("\n"), e.getMessage());
      for (JsonNode word : expect.get("error")) {
        assertTrue(e.getMessage().contains(word.asText()), e.getMessage() + " names " + word.asText());
      }
      return;
    }
    DatabaseBinding db = Config.fromEnv(env).database();
    assertEquals(expect.get("sslmode").asText(), db.sslmode());
    Properties props = new Properties();
    props.setProperty("user", db.user());
    props.setProperty("password", db.password());
    if (expect.path("connectFails").asBoolean()) {
      assertThrows(SQLException.class, () -> DriverManager.getConnection(db.jdbcUrl(), props).close());
      return;
    }
    try (Connection c = DriverManager.getConnection(db.jdbcUrl(), props);
        Statement st = c.createStatement();
        ResultSet rs = st.executeQuery("SELECT ssl FROM pg_stat_ssl WHERE pid = pg_backend_pid()")) {
      assertTrue(rs.next());
      assertEquals(expect.get("encrypted").asBoolean(), rs.getBoolean(1));
    }
  }
}
