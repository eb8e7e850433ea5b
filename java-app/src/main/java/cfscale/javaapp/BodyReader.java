package cfscale.javaapp;

import java.io.IOException;
import java.io.InputStream;
import java.util.Arrays;
import java.util.concurrent.TimeoutException;
import org.eclipse.jetty.http.HttpException;
import org.eclipse.jetty.server.Request;

/**
 * A request body of at most {@link #MAX_BODY_BYTES} bytes (contract: 413 by Content-Length
 * before reading, or as soon as the bytes read pass the limit). Reading stops one byte past the
 * limit, so a huge body costs at most that much memory.
 */
final class BodyReader {
  static final int MAX_BODY_BYTES = 65536;
  private static final String TOO_LARGE = "request body over " + MAX_BODY_BYTES + " bytes";

  private BodyReader() {
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

  static byte[] read(Request request) throws HttpError, IOException {
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
