package cfscale.javaapp;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import org.eclipse.jetty.http.HttpField;
import org.eclipse.jetty.http.HttpFields;

/**
 * The control credential of the /timings endpoints (contract "Control credential"): a request
 * must carry exactly one {@code Authorization: Bearer CONTROL_TOKEN} (the scheme in any case,
 * RFC 9110 §11.1), else 401 with {@code WWW-Authenticate: Bearer} and the endpoint does not
 * run. The routes are public on CF: anyone could switch recording off, clear or misfile a
 * round's measurements. The credential is compared as SHA-256 digests with
 * {@link MessageDigest#isEqual}, so the time taken tells nothing about the token, not even its
 * length.
 */
final class ControlAuth {
  static final String REASON = "control credential missing or wrong";
  private static final String SCHEME = "bearer ";
  private static final String HEADER = "Authorization";

  /** The token's digest; null when LOCAL_DEV_NO_CONTROL_TOKEN leaves the endpoints open. */
  private final byte[] want;

  ControlAuth(String token) {
    this.want = token == null ? null : digest(token);
  }

  /** The endpoint closed to requests without the credential (open without a token). */
  Endpoint guard(Endpoint endpoint) {
    if (want == null) {
      return endpoint;
    }
    return exchange -> allowed(exchange.request.getHeaders()) ? endpoint.handle(exchange)
        : Reply.error(401, REASON, "WWW-Authenticate", "Bearer");
  }

  private boolean allowed(HttpFields headers) {
    String value = null;
    for (HttpField f : headers) {
      if (f.is(HEADER)) {
        if (value != null) {
          return false; // given twice
        }
        value = f.getValue();
      }
    }
    if (value == null || value.length() <= SCHEME.length() || !value.regionMatches(true, 0, SCHEME, 0, SCHEME.length())) {
      return false;
    }
    return MessageDigest.isEqual(digest(value.substring(SCHEME.length())), want);
  }

  private static byte[] digest(String s) {
    try {
      return MessageDigest.getInstance("SHA-256").digest(s.getBytes(StandardCharsets.ISO_8859_1));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("every Java platform has SHA-256", e);
    }
  }
}
