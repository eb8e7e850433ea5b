package cfscale.javaapp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The real server on a free port with its database unreachable (a closed port): everything
 * that needs no database, and the 503 a database outage must give. Raw sockets, so the exact
 * bytes on the wire are checked (and malformed requests can be sent at all).
 */
class AppServerTest {
  private static final int POOL_TIMEOUT_MS = 500;
  private static final int HEADER_TIMEOUT_MS = 500;
  private static final String TOKEN = "test-control-token-0123456789abcdef";
  private static final String CONTROL = "Authorization: Bearer " + TOKEN + "\r\n";
  private static AppServer app;

  @BeforeAll
  static void start() throws Exception {
    int closedPort;
    try (ServerSocket s = new ServerSocket(0)) {
      closedPort = s.getLocalPort();
    }
    Config config = Config.fromEnv(Map.of("PORT", "0", "CF_INSTANCE_INDEX", "7",
        "DATABASE_URL", "postgres://u:p@127.0.0.1:" + closedPort + "/none",
        "DB_POOL_SIZE", "2", "DB_POOL_TIMEOUT_MS", Integer.toString(POOL_TIMEOUT_MS),
        "TIMINGS_CAPACITY", "1000", "JETTY_THREADS_MAX", "16",
        "HTTP_HEADER_TIMEOUT_MS", Integer.toString(HEADER_TIMEOUT_MS), "CONTROL_TOKEN", TOKEN));
    app = AppServer.start(config);
  }

  @AfterAll
  static void stop() {
    app.stop();
  }

  /** One request on a fresh connection; returns the whole raw response. */
  private static String raw(String request) throws Exception {
    try (Socket s = new Socket("127.0.0.1", app.port())) {
      s.setSoTimeout(10_000);
      OutputStream out = s.getOutputStream();
      out.write(request.getBytes(StandardCharsets.ISO_8859_1));
      out.flush();
      s.shutdownOutput();
      InputStream in = s.getInputStream();
      ByteArrayOutputStream buf = new ByteArrayOutputStream();
      in.transferTo(buf);
      return buf.toString(StandardCharsets.UTF_8);
    }
  }

  private static String get(String target, String... headers) throws Exception {
    return raw("GET " + target + " HTTP/1.1\r\nHost: t\r\nConnection: close\r\n" + String.join("", headers) + "\r\n");
  }

  private static String statusLine(String response) {
    return response.substring(0, response.indexOf("\r\n"));
  }

  private static String body(String response) {
    return response.substring(response.indexOf("\r\n\r\n") + 4);
  }

  private static String header(String response, String name) {
    for (String line : response.substring(0, response.indexOf("\r\n\r\n")).split("\r\n")) {
      int colon = line.indexOf(':');
      if (colon > 0 && line.substring(0, colon).equalsIgnoreCase(name)) {
        return line.substring(colon + 1).trim();
      }
    }
    return null;
  }

  /** Jetty's statuses for a refused head become the contract's (node's), in its plain text. */
  @Test
  void framingAnswersAreTheContractsStatuses() throws Exception {
    String[][] cases = {
        {"GET /health HTTP/2.0\r\nHost: t\r\n\r\n", "HTTP/1.1 505 HTTP Version Not Supported", "http version not supported\n"},
        {"hello there\r\n\r\n", "HTTP/1.1 400 Bad Request", "bad request\n"},
        {"GET /health?" + "a".repeat(20_000) + " HTTP/1.1\r\nHost: t\r\n\r\n", "HTTP/1.1 431 Request Header Fields Too Large",
            "request header fields too large\n"},
    };
    for (String[] c : cases) {
      String r = raw(c[0]);
      assertEquals(c[1], statusLine(r), c[0].substring(0, Math.min(20, c[0].length())));
      assertEquals(c[2], body(r));
      assertEquals("7", header(r, "X-Instance-Index"));
    }
  }

  @Test
  void aBadChunkIs400WithTheRequestsIdNot500() throws Exception {
    String r = raw("POST /ads HTTP/1.1\r\nHost: t\r\nX-Correlation-ID: chunky\r\n"
        + "Content-Type: application/x-www-form-urlencoded\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n");
    assertEquals("HTTP/1.1 400 Bad Request", statusLine(r));
    assertEquals("bad request\n", body(r));
    assertEquals("chunky", header(r, "X-Correlation-ID"));
  }

  @Test
  void aHeadNotCompleteWithinTheHeaderTimeoutIs408() throws Exception {
    try (Socket s = new Socket("127.0.0.1", app.port())) {
      s.setSoTimeout(10_000);
      s.getOutputStream().write("GET /health HTTP/1.1\r\nHost: t\r\n".getBytes(StandardCharsets.ISO_8859_1));
      long t0 = System.nanoTime();
      String r = new String(s.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      long ms = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0);
      assertEquals("HTTP/1.1 408 Request Timeout", statusLine(r));
      assertEquals("request timeout\n", body(r));
      assertTrue(ms >= HEADER_TIMEOUT_MS - 50 && ms < HEADER_TIMEOUT_MS + 1000, "answered after " + ms + " ms");
    }
  }

  @Test
  void healthHasEveryContractHeader() throws Exception {
    String r = get("/health", "X-Correlation-ID: abc-123\r\n");
    assertEquals("HTTP/1.1 200 OK", statusLine(r));
    assertEquals("ok\n", body(r));
    assertEquals("text/plain; charset=utf-8", header(r, "Content-Type"));
    assertEquals("abc-123", header(r, "X-Correlation-ID"));
    assertEquals("7", header(r, "X-Instance-Index"));
    assertEquals("3", header(r, "Content-Length"));
    assertEquals(null, header(r, "Server"));
    assertEquals(null, header(r, "X-Powered-By"));
    assertEquals(null, header(r, "Transfer-Encoding"));
  }

  @Test
  void missingOrEmptyCorrelationIdGetsAFreshUuid() throws Exception {
    String uuid = "[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}";
    assertTrue(header(get("/health"), "X-Correlation-ID").matches(uuid));
    assertTrue(header(get("/health", "X-Correlation-ID: \r\n"), "X-Correlation-ID").matches(uuid));
  }

  @ParameterizedTest
  @CsvSource({"'a b'", "'é'", "x123456789x123456789x123456789x123456789x123456789x123456789x1234"})
  void badCorrelationIdIsRejectedBeforeRoutingAndNeverReflected(String id) throws Exception {
    String r = raw("GET /nowhere HTTP/1.1\r\nHost: t\r\nConnection: close\r\nX-Correlation-ID: " + id + "\r\n\r\n");
    assertEquals("HTTP/1.1 400 Bad Request", statusLine(r));
    assertEquals("invalid X-Correlation-ID\n", body(r));
    assertFalse(r.contains(id));
  }

  @Test
  void twoCorrelationIdHeadersAreInvalidAsInNodeApp() throws Exception {
    String r = get("/health", "X-Correlation-ID: a\r\n", "X-Correlation-ID: b\r\n");
    assertEquals("HTTP/1.1 400 Bad Request", statusLine(r));
    assertEquals("invalid X-Correlation-ID\n", body(r));
  }

  @ParameterizedTest(name = "{0} {1}")
  @CsvSource({
      "DELETE, /health, 405, GET",
      "HEAD, /health, 405, GET",
      "PUT, /ads, 405, 'GET, POST'",
      "POST, /ads/1, 405, GET",
      "POST, /timings, 405, GET",
      "GET, /timings/flush, 405, POST",
      "GET, /timings/clear, 405, POST",
      "GET, /timings/recording, 405, POST",
      "GET, /nope, 404, ",
      "GET, /health/, 404, ",
      "GET, /ads/, 404, ",
      "GET, /ads/1/2, 404, ",
      "GET, /timings/other, 404, ",
      "GET, /HEALTH, 404, ",
  })
  void unknownPathsAndMethods(String method, String path, int status, String allow) throws Exception {
    String r = raw(method + " " + path + " HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n");
    assertEquals(status, Integer.parseInt(statusLine(r).split(" ")[1]));
    assertEquals(allow, header(r, "Allow"));
    if (!method.equals("HEAD")) {
      assertEquals(status == 404 ? "not found\n" : "method not allowed\n", body(r));
    }
  }

  @Test
  void bodyOverTheLimitByContentLengthIs413BeforeTheContentType() throws Exception {
    String r = raw("POST /ads HTTP/1.1\r\nHost: t\r\nConnection: close\r\nContent-Type: text/plain\r\n"
        + "Content-Length: 65537\r\n\r\n");
    assertEquals("HTTP/1.1 413 Payload Too Large", statusLine(r));
    assertEquals("request body over 65536 bytes\n", body(r));
  }

  @Test
  void chunkedBodyOverTheLimitIs413WhileReading() throws Exception {
    String chunk = "a".repeat(40_000);
    String hex = Integer.toHexString(chunk.length());
    String r = raw("POST /ads HTTP/1.1\r\nHost: t\r\nConnection: close\r\nTransfer-Encoding: chunked\r\n"
        + "Content-Type: application/x-www-form-urlencoded\r\n\r\n"
        + hex + "\r\n" + chunk + "\r\n" + hex + "\r\n" + chunk + "\r\n0\r\n\r\n");
    assertEquals("HTTP/1.1 413 Payload Too Large", statusLine(r));
    assertEquals("request body over 65536 bytes\n", body(r));
  }

  @ParameterizedTest
  @CsvSource({"''", "text/plain", "multipart/form-data; boundary=x", "application/x-www-form-urlencodedx"})
  void wrongContentTypeIs415(String contentType) throws Exception {
    String ct = contentType.isEmpty() ? "" : "Content-Type: " + contentType + "\r\n";
    String r = raw("POST /ads HTTP/1.1\r\nHost: t\r\nConnection: close\r\n" + ct + "Content-Length: 7\r\n\r\ntitle=x");
    assertEquals("HTTP/1.1 415 Unsupported Media Type", statusLine(r));
    assertEquals("content type must be application/x-www-form-urlencoded\n", body(r));
  }

  @Test
  void formErrorsComeBeforeTheDatabase() throws Exception {
    String r = raw("POST /ads HTTP/1.1\r\nHost: t\r\nConnection: close\r\n"
        + "Content-Type: Application/X-WWW-Form-Urlencoded; charset=utf-8\r\nContent-Length: 9\r\n\r\ntitle=%zz");
    assertEquals("HTTP/1.1 400 Bad Request", statusLine(r));
    assertEquals("malformed percent-encoding\n", body(r));
  }

  @Test
  void databaseDownIs503WithRetryAfterWithinThePoolTimeoutPlusOneSecond() throws Exception {
    get("/ads/1"); // warm-up: class loading and JIT are not the pool timeout
    long t0 = System.nanoTime();
    String r = get("/ads/1");
    long elapsedMs = (System.nanoTime() - t0) / 1_000_000;
    assertEquals("HTTP/1.1 503 Service Unavailable", statusLine(r));
    assertEquals("database unavailable\n", body(r));
    assertEquals("1", header(r, "Retry-After"));
    assertTrue(elapsedMs < POOL_TIMEOUT_MS + 1000, "503 after " + elapsedMs + " ms");
    assertEquals("HTTP/1.1 503 Service Unavailable", statusLine(get("/ads?limit=1")));
  }

  @Test
  void flushWithoutAResultsDatabaseIs503() throws Exception {
    String r = raw("POST /timings/flush HTTP/1.1\r\nHost: t\r\nConnection: close\r\n" + CONTROL + "Content-Length: 0\r\n\r\n");
    assertEquals("HTTP/1.1 503 Service Unavailable", statusLine(r));
    assertEquals("results database unavailable\n", body(r));
  }

  @Test
  void malformedRequestsGetPlainTextNotJettyHtml() throws Exception {
    for (String request : new String[] {"GARBAGE\r\n\r\n", "GET /a b HTTP/1.1\r\nHost: t\r\n\r\n",
        "GET /health HTTP/1.1\r\nHost: t\r\nBad Header\r\n\r\n"}) {
      String r = raw(request);
      assertEquals("HTTP/1.1 400 Bad Request", statusLine(r), request);
      assertEquals("text/plain; charset=utf-8", header(r, "Content-Type"));
      assertEquals("bad request\n", body(r));
    }
  }

  @Test
  void timingsRecordAppRoutesOnly() throws Exception {
    String clear = "POST /timings/clear HTTP/1.1\r\nHost: t\r\nConnection: close\r\n" + CONTROL + "Content-Length: 0\r\n\r\n";
    raw(clear);
    get("/health");
    get("/nope");
    get("/timings", CONTROL);
    String r = get("/timings", CONTROL);
    assertEquals("recording on\ncount 2\ndropped 0\ncapacity 1000\n", body(r));
    assertEquals("cleared 2\n", body(raw(clear)));
  }

  /** Every way of not holding the credential: 401 with the challenge, and recording stays on. */
  @ParameterizedTest(name = "{0}")
  @CsvSource(delimiter = '|', value = {
      "no credential|",
      "a wrong token|Authorization: Bearer wrong",
      "one character short|Authorization: Bearer test-control-token-0123456789abcde",
      "one character long|Authorization: Bearer test-control-token-0123456789abcdefx",
      "the Basic scheme|Authorization: Basic test-control-token-0123456789abcdef",
      "no scheme|Authorization: test-control-token-0123456789abcdef",
      "given twice|Authorization: Bearer test-control-token-0123456789abcdef{CRLF}Authorization: Bearer test-control-token-0123456789abcdef",
  })
  void theControlEndpointsAnswer401ToAStranger(String who, String header) throws Exception {
    String h = header == null ? "" : header.replace("{CRLF}", "\r\n") + "\r\n";
    for (String target : new String[] {"POST /timings/recording?enabled=off", "GET /timings", "POST /timings/clear",
        "POST /timings/flush?round=1", "POST /timings/flush?round=abc"}) {
      String r = raw(target + " HTTP/1.1\r\nHost: t\r\nConnection: close\r\n" + h + "Content-Length: 0\r\n\r\n");
      assertEquals("HTTP/1.1 401 Unauthorized", statusLine(r), target);
      assertEquals("control credential missing or wrong\n", body(r), target);
      assertEquals("Bearer", header(r, "WWW-Authenticate"), target);
    }
    assertTrue(body(get("/timings", CONTROL)).startsWith("recording on\n"));
    assertEquals("HTTP/1.1 200 OK", statusLine(get("/timings", "Authorization: bEaReR " + TOKEN + "\r\n")));
  }
}
