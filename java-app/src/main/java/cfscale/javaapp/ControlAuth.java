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
 * length. Without a token (a plain {@code cf push}) the endpoints answer 401 to every request, so
 * the app still serves its public routes; only LOCAL_DEV_NO_CONTROL_TOKEN opens them.
 */
final class ControlAuth {
  static final String REASON = "control credential missing or wrong";
  static final String CLOSED_REASON = "control endpoints closed: CONTROL_TOKEN not set";
  /**
   * The line logged at start while the endpoints are closed: the settings spec's unsetLine of
   * CONTROL_TOKEN (contract/settings.json, shared with node-app; ControlAuthTest compares them).
   */
  static final String CLOSED_LINE = "CONTROL_TOKEN not set: GET /timings and POST /timings/flush, /timings/clear, "
      + "/timings/recording answer 401 to every request; set one and restart the app (scripts/push.sh, scale.sh and "
      + "run-round.sh do both; by hand: docs/control-credential.md)";
  private static final String SCHEME = "bearer ";
  private static final String HEADER = "Authorization";

  /** The token's digest; null without a token. */
  private final byte[] want;
  /** Without a token: LOCAL_DEV_NO_CONTROL_TOKEN leaves the endpoints open. */
  private final boolean open;

  ControlAuth(String token, boolean open) {
    this.want = token == null ? null : digest(token);
    this.open = open;
  }

  /** The endpoint closed to requests without the credential; without a token open or closed to all. */
  Endpoint guard(Endpoint endpoint) {
    if (want == null && open) {
      return endpoint;
    }
    if (want == null) {
      return exchange -> Reply.error(401, CLOSED_REASON, "WWW-Authenticate", "Bearer");
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
