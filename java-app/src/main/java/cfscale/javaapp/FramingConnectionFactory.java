package cfscale.javaapp;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.eclipse.jetty.http.BadMessageException;
import org.eclipse.jetty.http.HttpCompliance;
import org.eclipse.jetty.http.HttpException;
import org.eclipse.jetty.http.HttpParser;
import org.eclipse.jetty.http.HttpVersion;
import org.eclipse.jetty.io.Connection;
import org.eclipse.jetty.io.EndPoint;
import org.eclipse.jetty.server.Connector;
import org.eclipse.jetty.server.HttpConfiguration;
import org.eclipse.jetty.server.HttpConnectionFactory;
import org.eclipse.jetty.server.internal.HttpConnection;
import org.eclipse.jetty.util.Callback;

/**
 * Jetty's HTTP/1 connections with the framing answers of the contract ("Framing"), the same as
 * node:http's in node-app:
 * <ul>
 *   <li>a request head not complete within HTTP_HEADER_TIMEOUT_MS, counted from the connection's
 *   start or the next request's first byte, gets {@code 408 request timeout} and the connection
 *   is closed (Jetty itself only has an idle timeout, which a client sending a byte now and then
 *   never trips);</li>
 *   <li>Jetty's own statuses for a refused head are mapped to node's: a request line over the
 *   limit 414 → 431 (the limit counts the whole head), an HTTP/2 request line 426 → 505, a line
 *   without a version ("HTTP/0.9", 505) → 400;</li>
 *   <li>a method node's parser does not know (lower case included) gets 400 before routing,
 *   where Jetty would route it and answer 405 ({@link #NODE_METHODS});</li>
 *   <li>a bare LF as a line end in the head, which Jetty 12.0 accepts (it has no compliance
 *   violation for it; RFC 9112 §2.2 lets a server choose), is refused as node refuses it: 505
 *   when it ends the request line (llhttp reads it as a bad version), else 400
 *   ({@link CrlfParser}).</li>
 * </ul>
 * The check runs every {@link #MAX_CHECK_INTERVAL_MS} ms at most, as node's connectionsCheckingInterval.
 */
final class FramingConnectionFactory extends HttpConnectionFactory {
  static final long MAX_CHECK_INTERVAL_MS = 250;

  /**
   * The methods node's parser (llhttp) accepts: node's {@code http.METHODS} (Node 20) and PRI,
   * which llhttp parses to answer the HTTP/2 preface with 505 (Framing, "protocol versions").
   */
  static final Set<String> NODE_METHODS = Set.of("PRI", "ACL", "BIND", "CHECKOUT", "CONNECT", "COPY", "DELETE",
      "GET", "HEAD", "LINK", "LOCK", "M-SEARCH", "MERGE", "MKACTIVITY", "MKCALENDAR", "MKCOL", "MOVE",
      "NOTIFY", "OPTIONS", "PATCH", "POST", "PROPFIND", "PROPPATCH", "PURGE", "PUT", "QUERY", "REBIND",
      "REPORT", "SEARCH", "SOURCE", "SUBSCRIBE", "TRACE", "UNBIND", "UNLINK", "UNLOCK", "UNSUBSCRIBE");
  static final String BARE_LF_IN_REQUEST_LINE = "bare LF ending the request line";

  private final long headerTimeoutNs;
  private final String instanceIndex;
  private final Set<FramingConnection> open = ConcurrentHashMap.newKeySet();
  private final ScheduledExecutorService checker = Executors.newSingleThreadScheduledExecutor(r -> {
    Thread t = new Thread(r, "head-timeout");
    t.setDaemon(true);
    return t;
  });

  FramingConnectionFactory(HttpConfiguration config, int headerTimeoutMs, int instanceIndex) {
    super(config);
    this.headerTimeoutNs = TimeUnit.MILLISECONDS.toNanos(headerTimeoutMs);
    this.instanceIndex = Integer.toString(instanceIndex);
    long interval = Math.min(MAX_CHECK_INTERVAL_MS, headerTimeoutMs);
    checker.scheduleWithFixedDelay(this::expireSlowHeads, interval, interval, TimeUnit.MILLISECONDS);
  }

  @Override
  public Connection newConnection(Connector connector, EndPoint endPoint) {
    FramingConnection c = new FramingConnection(getHttpConfiguration(), connector, endPoint);
    c.setUseInputDirectByteBuffers(isUseInputDirectByteBuffers());
    c.setUseOutputDirectByteBuffers(isUseOutputDirectByteBuffers());
    return configure(c, connector, endPoint);
  }

  void stopChecking() {
    checker.shutdownNow();
  }

  private void expireSlowHeads() {
    long now = System.nanoTime();
    for (FramingConnection c : open) {
      long deadline = c.headDeadlineNs;
      if (deadline != 0 && now - deadline >= 0) {
        c.headDeadlineNs = 0;
        c.timeOutHead();
      }
    }
  }

  /** The plain-text 408 of the contract, written raw: no request exists to answer through. */
  private ByteBuffer requestTimeout() {
    String body = PlainErrorHandler.reason(408);
    String head = "HTTP/1.1 408 Request Timeout\r\nContent-Type: text/plain; charset=utf-8\r\n"
        + "X-Correlation-ID: " + UUID.randomUUID() + "\r\nX-Instance-Index: " + instanceIndex + "\r\n"
        + "Content-Length: " + body.length() + "\r\nConnection: close\r\n\r\n";
    return ByteBuffer.wrap((head + body).getBytes(StandardCharsets.US_ASCII));
  }

  /** Jetty's status for a refused head → the contract's (node's) status. */
  static int contractStatus(HttpException failure) {
    int code = failure.getCode();
    String reason = String.valueOf(failure.getReason());
    if (code == 414) {
      return 431;
    }
    if (code == 426) {
      return 505;
    }
    if (code == 505 && !reason.equals(BARE_LF_IN_REQUEST_LINE) && reason.contains("0.9")) {
      return 400;
    }
    return code;
  }

  final class FramingConnection extends HttpConnection {
    /** When the head being read must be complete (System.nanoTime), or 0 when none is read. */
    volatile long headDeadlineNs;
    /**
     * Set by {@link #newRequestHandler()}, which HttpConnection's constructor calls before
     * {@link #newHttpParser}: no initializer, so that the constructor does not reset it.
     */
    private HttpParser.RequestHandler requestHandler;

    FramingConnection(HttpConfiguration config, Connector connector, EndPoint endPoint) {
      super(config, connector, endPoint);
    }

    @Override
    public void onOpen() {
      headDeadlineNs = System.nanoTime() + headerTimeoutNs;
      open.add(this);
      super.onOpen();
    }

    @Override
    public void onClose(Throwable cause) {
      open.remove(this);
      super.onClose(cause);
    }

    @Override
    protected HttpConnection.RequestHandler newRequestHandler() {
      FramingRequestHandler handler = new FramingRequestHandler();
      requestHandler = handler;
      return handler;
    }

    @Override
    protected HttpParser newHttpParser(HttpCompliance compliance) {
      HttpParser parser = new CrlfParser(requestHandler, getHttpConfiguration().getRequestHeaderSize(), compliance);
      parser.setHeaderCacheSize(getHttpConfiguration().getHeaderCacheSize());
      parser.setHeaderCacheCaseSensitive(getHttpConfiguration().isHeaderCacheCaseSensitive());
      return parser;
    }

    void timeOutHead() {
      EndPoint endPoint = getEndPoint();
      try {
        endPoint.write(Callback.from(endPoint::close), requestTimeout());
      } catch (RuntimeException e) {
        endPoint.close(); // a write pending: nothing sensible to add, just close
      }
    }

    final class FramingRequestHandler extends HttpConnection.RequestHandler {
      @Override
      public void messageBegin() {
        if (headDeadlineNs == 0) {
          headDeadlineNs = System.nanoTime() + headerTimeoutNs;
        }
        super.messageBegin();
      }

      private HttpVersion version;

      @Override
      public void startRequest(String method, String uri, HttpVersion version) {
        if (!NODE_METHODS.contains(method)) {
          throw new BadMessageException(400, "unknown method");
        }
        this.version = version;
        super.startRequest(method, uri, version);
      }

      @Override
      public boolean headerComplete() {
        headDeadlineNs = 0;
        if (version == HttpVersion.HTTP_2) {
          // An HTTP/2 request line on an HTTP/1 connection: 505, where Jetty would answer 426.
          throw new HttpException.RuntimeException(505);
        }
        return super.headerComplete();
      }

      @Override
      public void badMessage(HttpException failure) {
        headDeadlineNs = 0;
        int status = contractStatus(failure);
        // BadMessageException is for 4xx only (it asserts so): 505 needs the general kind.
        super.badMessage(status == failure.getCode() ? failure : new HttpException.RuntimeException(status, failure.getReason()));
      }
    }
  }

  /**
   * Jetty's parser, refusing a bare LF as a line end in a request head. Before the parser reads
   * the head's bytes they are scanned (request line and header lines up to the empty line); the
   * parser gets the bytes before a bare LF, so that its own refusal of an earlier byte still
   * comes first, and then the refusal.
   */
  static final class CrlfParser extends HttpParser {
    private boolean inHead;
    private boolean prevCr;
    private boolean onRequestLine;
    private int lineLength;

    CrlfParser(HttpParser.RequestHandler handler, int maxHeaderBytes, HttpCompliance compliance) {
      super(handler, maxHeaderBytes, compliance);
    }

    @Override
    public boolean parseNext(ByteBuffer buffer) {
      if (getState() == State.START && !inHead) { // a new message (leading CRLFs keep it in START)
        inHead = true;
        prevCr = false;
        onRequestLine = true;
        lineLength = 0;
      }
      if (!inHead || !inHeaderState()) {
        return super.parseNext(buffer);
      }
      int bareLf = scanHead(buffer);
      if (bareLf < 0) {
        return super.parseNext(buffer);
      }
      ByteBuffer before = buffer.slice(buffer.position(), bareLf - buffer.position());
      boolean handled = super.parseNext(before);
      buffer.position(buffer.position() + before.position());
      if (getState() != State.CLOSE && getState() != State.CLOSED) {
        buffer.position(buffer.limit());
        badMessage(lineLength > 0 && onRequestLine
            ? new HttpException.RuntimeException(505, BARE_LF_IN_REQUEST_LINE)
            : new BadMessageException(400, "bare LF line end"));
      }
      return handled;
    }

    /** The index of the head's first bare LF in the buffer's remaining bytes, or -1. */
    private int scanHead(ByteBuffer buffer) {
      for (int i = buffer.position(); i < buffer.limit(); i++) {
        byte b = buffer.get(i);
        if (b == '\n') {
          if (!prevCr) {
            return i;
          }
          prevCr = false;
          if (lineLength > 0) {
            onRequestLine = false;
          } else if (!onRequestLine) {
            inHead = false; // the empty line: the head is complete
            return -1;
          }
          lineLength = 0;
        } else {
          prevCr = b == '\r';
          if (!prevCr) {
            lineLength++;
          }
        }
      }
      return -1;
    }
  }
}
