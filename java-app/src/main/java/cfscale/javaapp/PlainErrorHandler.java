package cfscale.javaapp;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Locale;
import java.util.UUID;
import org.eclipse.jetty.http.HttpFields;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.http.HttpStatus;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.server.handler.ErrorHandler;
import org.eclipse.jetty.util.Callback;

/**
 * Replaces Jetty's HTML error pages for the errors Jetty answers itself (a malformed request
 * line or header, a URI or headers too long, an Error escaping the router): the same plain-text
 * one-line body and headers as every other response, a fresh correlation id, never a stack trace.
 */
final class PlainErrorHandler extends ErrorHandler {
  private final String instanceIndex;

  PlainErrorHandler(int instanceIndex) {
    this.instanceIndex = Integer.toString(instanceIndex);
  }

  @Override
  public boolean handle(Request request, Response response, Callback callback) {
    int status = response.getStatus() >= 400 ? response.getStatus() : 500;
    byte[] body = reason(status).getBytes(StandardCharsets.UTF_8);
    response.setStatus(status);
    HttpFields.Mutable headers = response.getHeaders();
    headers.remove(HttpHeader.CACHE_CONTROL);
    putHeaders(headers, body.length);
    response.write(true, ByteBuffer.wrap(body), callback);
    return true;
  }

  /** Jetty's path for messages it could not parse into a request at all. */
  @Override
  public ByteBuffer badMessageError(int status, String reason, HttpFields.Mutable fields) {
    byte[] body = reason(status).getBytes(StandardCharsets.UTF_8);
    putHeaders(fields, body.length);
    return ByteBuffer.wrap(body);
  }

  private void putHeaders(HttpFields.Mutable headers, int length) {
    headers.put(HttpHeader.CONTENT_TYPE, "text/plain; charset=utf-8");
    headers.put(Exchange.CORRELATION_HEADER, UUID.randomUUID().toString());
    headers.put("X-Instance-Index", instanceIndex);
    headers.put(HttpHeader.CONTENT_LENGTH, length);
  }

  /** One line: "internal error" for 500, else the lower-case HTTP reason phrase. */
  static String reason(int status) {
    if (status == 500) {
      return "internal error\n";
    }
    String phrase = HttpStatus.getMessage(status);
    return (phrase == null ? "error" : phrase.toLowerCase(Locale.ROOT)) + "\n";
  }
}
