package cfscale.javaapp;

import java.io.IOException;
import java.io.InputStream;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeoutException;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.http.HttpException;
import org.eclipse.jetty.server.Request;

/**
 * POST /ads: a form-urlencoded ad in, {@code 201 {id}} with Location out. Checks in the
 * contract's order: body size (by Content-Length, then while reading, never reading more than
 * one byte past the limit), content type, form decoding, then the field rules.
 */
final class CreateAdHandler implements Endpoint {
  static final int MAX_BODY_BYTES = 65536;
  static final String FORM_TYPE = "application/x-www-form-urlencoded";
  private static final Set<String> FIELDS = Set.of("title", "body", "price", "contact");
  private static final String TOO_LARGE = "request body over " + MAX_BODY_BYTES + " bytes";

  private final AdStore store;

  CreateAdHandler(AdStore store) {
    this.store = store;
  }

  @Override
  public Reply handle(Exchange exchange) throws Exception {
    byte[] body = readBody(exchange.request);
    if (!isForm(exchange.request.getHeaders().get(HttpHeader.CONTENT_TYPE))) {
      throw new HttpError(415, "content type must be " + FORM_TYPE);
    }
    Map<String, String> form = FormParser.parse(body, FIELDS);
    Validation.NewAd ad = Validation.newAd(form);
    long id = store.insert(exchange, ad);
    return new Reply(201, id + "\n", List.of(new Reply.Header("Location", "/ads/" + id)));
  }

  /** The media type without parameters, compared case-insensitively; missing is wrong. */
  static boolean isForm(String contentType) {
    if (contentType == null) {
      return false;
    }
    int semi = contentType.indexOf(';');
    String mediaType = (semi < 0 ? contentType : contentType.substring(0, semi)).trim();
    return mediaType.toLowerCase(Locale.ROOT).equals(FORM_TYPE);
  }

  /**
   * A body Jetty's parser refused (a bad chunk) is the client's mistake, and a body that stopped
   * coming for HTTP_IDLE_TIMEOUT_MS (Jetty's idle timeout) the client's delay: the framing
   * layer's {@code 400 bad request} and {@code 408 request timeout} (contract "Framing"), not a
   * 500; Jetty closes the connection after either.
   */
  private static IOException framingError(IOException e) throws HttpError {
    for (Throwable c = e; c != null; c = c.getCause()) {
      if (c instanceof HttpException h && h.getCode() == 400) {
        throw HttpError.badRequest(PlainErrorHandler.reason(400).trim());
      }
      if (c instanceof TimeoutException) {
        throw new HttpError(408, PlainErrorHandler.reason(408).trim());
      }
    }
    return e;
  }

  private static byte[] readBody(Request request) throws HttpError, IOException {
    long length = request.getLength();
    if (length > MAX_BODY_BYTES) {
      throw new HttpError(413, TOO_LARGE);
    }
    byte[] buf = new byte[length >= 0 ? (int) length + 1 : 1024];
    int n = 0;
    try (InputStream in = Request.asInputStream(request)) {
      while (true) {
        if (n == buf.length) {
          if (n > MAX_BODY_BYTES) {
            throw new HttpError(413, TOO_LARGE);
          }
          buf = Arrays.copyOf(buf, Math.min(buf.length * 2, MAX_BODY_BYTES + 1));
        }
        int r = in.read(buf, n, buf.length - n);
        if (r < 0) {
          break;
        }
        n += r;
      }
    } catch (IOException e) {
      throw framingError(e);
    }
    if (n > MAX_BODY_BYTES) {
      throw new HttpError(413, TOO_LARGE);
    }
    return n == buf.length ? buf : Arrays.copyOf(buf, n);
  }
}
