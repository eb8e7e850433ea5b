package cfscale.javaapp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import org.eclipse.jetty.http.HttpCompliance;
import org.eclipse.jetty.http.HttpException;
import org.eclipse.jetty.http.HttpField;
import org.eclipse.jetty.http.HttpParser;
import org.eclipse.jetty.http.HttpVersion;
import org.junit.jupiter.api.Test;

/** CrlfParser: a bare LF in a request head is refused as node refuses it, whole or byte by byte. */
class FramingConnectionFactoryTest {
  /** What the parser reported: the status of a refusal, and whether the head completed. */
  static final class Recorder implements HttpParser.RequestHandler {
    Integer refused;
    boolean headComplete;

    @Override public void startRequest(String method, String uri, HttpVersion version) { }
    @Override public void parsedHeader(HttpField field) { }
    @Override public boolean headerComplete() { headComplete = true; return false; }
    @Override public boolean content(ByteBuffer item) { return false; }
    @Override public boolean contentComplete() { return false; }
    @Override public boolean messageComplete() { return true; }
    @Override public void earlyEOF() { }
    @Override public void badMessage(HttpException failure) {
      refused = FramingConnectionFactory.contractStatus(failure);
    }
  }

  private static Recorder parse(String head, boolean byteByByte) {
    Recorder r = new Recorder();
    HttpParser parser = new FramingConnectionFactory.CrlfParser(r, 16384, HttpCompliance.RFC7230);
    byte[] bytes = head.getBytes(StandardCharsets.US_ASCII);
    int step = byteByByte ? 1 : bytes.length;
    for (int i = 0; i < bytes.length && r.refused == null; i += step) {
      ByteBuffer b = ByteBuffer.wrap(bytes, i, Math.min(step, bytes.length - i));
      while (b.hasRemaining() && r.refused == null && !parser.isState(HttpParser.State.END)) {
        parser.parseNext(b);
      }
    }
    return r;
  }

  @Test
  void crlfHeadPasses() {
    for (boolean split : new boolean[] {false, true}) {
      Recorder r = parse("\r\nGET /health HTTP/1.1\r\nHost: x\r\n\r\n", split);
      assertNull(r.refused);
      assertTrue(r.headComplete);
    }
  }

  @Test
  void bareLfEndingTheRequestLineIs505() {
    for (boolean split : new boolean[] {false, true}) {
      assertEquals(505, parse("GET /health HTTP/1.1\nHost: x\n\n", split).refused);
    }
  }

  @Test
  void bareLfElsewhereInTheHeadIs400() {
    for (boolean split : new boolean[] {false, true}) {
      assertEquals(400, parse("GET /health HTTP/1.1\r\nHost: x\n\r\n", split).refused);
      assertEquals(400, parse("GET /health HTTP/1.1\r\nHost: x\r\n\n", split).refused);
      assertEquals(400, parse("GET /health HTTP/1.1\r\nX-A: a\nb\r\n\r\n", split).refused);
    }
  }

  @Test
  void bareLfInTheBodyIsTheBodys() {
    Recorder r = parse("POST /ads HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\n\r\na\nb", false);
    assertNull(r.refused);
    assertTrue(r.headComplete);
  }
}
