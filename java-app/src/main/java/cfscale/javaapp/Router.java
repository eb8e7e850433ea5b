package cfscale.javaapp;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.eclipse.jetty.http.HttpFields;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.http.PreEncodedHttpField;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Callback;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The one Jetty handler: checks X-Correlation-ID, routes by exact path and method, is the
 * app's error boundary (HttpError → its status and reason; database trouble → 503; anything
 * else → 500 {@code internal error} and a log line), writes every response with the headers
 * of contract/README.md ("Every response"), and records the request's timings once the
 * response is written. Paths are matched raw: no percent-decoding, no normalisation, query
 * string ignored. Runs on Jetty's thread pool and may block (JDBC).
 */
final class Router extends Handler.Abstract {
  private static final Logger LOG = LoggerFactory.getLogger("java-app");
  private static final PreEncodedHttpField CONTENT_TYPE =
      new PreEncodedHttpField(HttpHeader.CONTENT_TYPE, "text/plain; charset=utf-8");
  /** A DB outage answers every request with 503: log it at most this often. */
  private static final long UNAVAILABLE_LOG_INTERVAL_NS = TimeUnit.SECONDS.toNanos(10);

  /** What a method and path resolve to; {@code recorded} = kept in the timing buffer. */
  private record Match(Endpoint endpoint, int route, boolean recorded, String allow) {
  }

  private final PreEncodedHttpField instanceIndex;
  private final TimingBuffer timings;
  private final Match health;
  private final Match hello;
  private final Match createAd;
  private final Match getAd;
  private final Match listAds;
  private final Match timingsState;
  private final Match timingsFlush;
  private final Match timingsClear;
  private final Match timingsRecording;
  private final AtomicLong lastUnavailableLogNs = new AtomicLong(System.nanoTime() - UNAVAILABLE_LOG_INTERVAL_NS);

  Router(int instanceIndex, TimingBuffer timings, AdStore store, TimingsFlusher flusher, ControlAuth control) {
    this.instanceIndex = new PreEncodedHttpField("X-Instance-Index", Integer.toString(instanceIndex));
    this.timings = timings;
    health = new Match(new HealthHandler(), TimingBuffer.ROUTE_HEALTH, true, null);
    hello = new Match(new HelloHandler(), TimingBuffer.ROUTE_HELLO, true, null);
    createAd = new Match(new CreateAdHandler(store), TimingBuffer.ROUTE_CREATE_AD, true, null);
    getAd = new Match(new GetAdHandler(store), TimingBuffer.ROUTE_GET_AD, true, null);
    listAds = new Match(new ListAdsHandler(store), TimingBuffer.ROUTE_LIST_ADS, true, null);
    timingsState = new Match(control.guard(new TimingsHandler(timings)), TimingBuffer.ROUTE_NONE, false, null);
    timingsFlush = new Match(control.guard(new TimingsFlushHandler(flusher)), TimingBuffer.ROUTE_NONE, false, null);
    timingsClear = new Match(control.guard(new TimingsClearHandler(timings)), TimingBuffer.ROUTE_NONE, false, null);
    timingsRecording = new Match(control.guard(new TimingsRecordingHandler(timings)), TimingBuffer.ROUTE_NONE, false, null);
  }

  @Override
  public boolean handle(Request request, Response response, Callback callback) {
    long beginNs = request.getBeginNanoTime();
    long arrivedAtUs = epochMicros() - (System.nanoTime() - beginNs) / 1000;
    String method = request.getMethod();
    String path = request.getHttpURI().getPath();
    Match match = match(method, path);
    String given = Exchange.correlationHeader(request.getHeaders());
    Reply reply;
    String correlationId;
    if (given == null || given.isEmpty()) {
      correlationId = UUID.randomUUID().toString();
      reply = null;
    } else if (Exchange.isValidCorrelationId(given)) {
      correlationId = given;
      reply = null;
    } else {
      correlationId = UUID.randomUUID().toString();
      reply = Reply.error(400, "invalid X-Correlation-ID");
      match = new Match(null, TimingBuffer.ROUTE_NONE, match.recorded(), null);
    }
    Exchange exchange = new Exchange(request, correlationId);
    if (reply == null) {
      reply = answer(match, exchange, method, path);
    }
    write(response, callback, reply, exchange, match, beginNs, arrivedAtUs);
    return true;
  }

  private Match match(String method, String path) {
    boolean get = method.equals("GET");
    boolean post = method.equals("POST");
    switch (path) {
      case "/health":
        return get ? health : notAllowed("GET", true);
      case "/hello":
        return get ? hello : notAllowed("GET", true);
      case "/ads":
        return get ? listAds : post ? createAd : notAllowed("GET, POST", true);
      case "/timings":
        return get ? timingsState : notAllowed("GET", false);
      case "/timings/flush":
        return post ? timingsFlush : notAllowed("POST", false);
      case "/timings/clear":
        return post ? timingsClear : notAllowed("POST", false);
      case "/timings/recording":
        return post ? timingsRecording : notAllowed("POST", false);
      default:
        if (path.startsWith(GetAdHandler.PREFIX) && path.length() > GetAdHandler.PREFIX.length()
            && path.indexOf('/', GetAdHandler.PREFIX.length()) < 0) {
          return get ? getAd : notAllowed("GET", true);
        }
        boolean timingsPath = path.startsWith("/timings/");
        return new Match(null, TimingBuffer.ROUTE_NONE, !timingsPath, null);
    }
  }

  private static Match notAllowed(String allow, boolean recorded) {
    return new Match(null, TimingBuffer.ROUTE_NONE, recorded, allow);
  }

  /** The error boundary: every outcome becomes a Reply, nothing escapes to Jetty. */
  private Reply answer(Match match, Exchange exchange, String method, String path) {
    if (match.endpoint() == null) {
      return match.allow() == null ? Reply.error(404, "not found")
          : Reply.error(405, "method not allowed", "Allow", match.allow());
    }
    try {
      return match.endpoint().handle(exchange);
    } catch (HttpError e) {
      return Reply.error(e.status, e.getMessage());
    } catch (DatabaseUnavailableException e) {
      long now = System.nanoTime();
      long last = lastUnavailableLogNs.get();
      if (now - last >= UNAVAILABLE_LOG_INTERVAL_NS && lastUnavailableLogNs.compareAndSet(last, now)) {
        LOG.warn("database unavailable (503, logged at most every 10 s): {}", causes(e));
      }
      return Reply.databaseUnavailable();
    } catch (ResultsUnavailableException e) {
      LOG.warn("timings flush: results database unavailable: {}", causes(e));
      return Reply.error(503, "results database unavailable");
    } catch (Exception e) {
      LOG.error("{} {} failed (correlation id {})", method, path, exchange.correlationId, e);
      return Reply.error(500, "internal error");
    }
  }

  private void write(Response response, Callback callback, Reply reply, Exchange exchange,
      Match match, long beginNs, long arrivedAtUs) {
    byte[] body = reply.body().getBytes(StandardCharsets.UTF_8);
    response.setStatus(reply.status());
    HttpFields.Mutable headers = response.getHeaders();
    headers.put(CONTENT_TYPE);
    headers.put(Exchange.CORRELATION_HEADER, exchange.correlationId);
    headers.put(instanceIndex);
    for (Reply.Header h : reply.headers()) {
      headers.put(h.name(), h.value());
    }
    headers.put(HttpHeader.CONTENT_LENGTH, body.length);
    // Recorded before the write, not in its callback: a client that has read the response must
    // find the record in the buffer (GET /timings, flush) — the write completes after it could.
    if (match.recorded() && timings.isRecording()) {
      timings.record(exchange.correlationId, match.route(), reply.status(), arrivedAtUs,
          (System.nanoTime() - beginNs) / 1000, exchange.poolWaitUs(), exchange.dbUs());
    }
    response.write(true, ByteBuffer.wrap(body), callback);
  }

  /** The messages of an exception and its causes, "; "-joined (the root cause says why). */
  private static String causes(Throwable e) {
    StringBuilder sb = new StringBuilder(String.valueOf(e.getMessage()));
    for (Throwable c = e.getCause(); c != null && c != c.getCause(); c = c.getCause()) {
      if (c.getMessage() != null && !sb.toString().contains(c.getMessage())) {
        sb.append("; ").append(c.getMessage());
      }
    }
    return sb.toString();
  }

  private static long epochMicros() {
    Instant now = Instant.now();
    return now.getEpochSecond() * 1_000_000L + now.getNano() / 1000;
  }
}
