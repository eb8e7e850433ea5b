package cfscale.javaapp;

import java.math.BigDecimal;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * The input rules of contract/README.md with their exact messages, checked in the documented
 * order (the first failure answers). Lengths are Unicode code points.
 */
final class Validation {
  static final int TITLE_MAX = 200;
  static final int BODY_MAX = 4000;
  static final int CONTACT_MAX = 200;
  static final BigDecimal PRICE_MAX = BigDecimal.valueOf(1_000_000);
  static final int LIMIT_MAX = 100;
  static final int LIMIT_DEFAULT = 20;
  static final int OFFSET_MAX = 1_000_000;
  static final int OFFSET_DEFAULT = 0;

  private static final Pattern PRICE = Pattern.compile("(0|[1-9][0-9]*)(\\.[0-9]{1,2})?");
  private static final String ID_MESSAGE = "id must be an integer from 1 to 9223372036854775807";

  /** A validated ad; {@code price} is the decimal text as given, "0" when missing. */
  record NewAd(String title, String body, String price, String contact) {
  }

  private Validation() {
  }

  static NewAd newAd(Map<String, String> form) throws HttpError {
    String title = form.get("title");
    if (title == null || title.isEmpty()) {
      throw HttpError.badRequest("title is required");
    }
    checkLine("title", title, TITLE_MAX);
    String body = form.getOrDefault("body", "");
    if (length(body) > BODY_MAX) {
      throw HttpError.badRequest("body over 4000 characters");
    }
    if (hasControl(body, true)) {
      throw HttpError.badRequest("body contains a control character");
    }
    String price = form.get("price");
    if (price != null) {
      if (!PRICE.matcher(price).matches()) {
        throw HttpError.badRequest("price must be a non-negative decimal with at most 2 decimals");
      }
      if (new BigDecimal(price).compareTo(PRICE_MAX) > 0) {
        throw HttpError.badRequest("price over 1000000");
      }
    }
    String contact = form.getOrDefault("contact", "");
    checkLine("contact", contact, CONTACT_MAX);
    return new NewAd(title, body, price == null ? "0" : price, contact);
  }

  /** A one-line field (title, contact): at most max characters, no control character. */
  private static void checkLine(String field, String value, int max) throws HttpError {
    if (length(value) > max) {
      throw HttpError.badRequest(field + " over " + max + " characters");
    }
    if (hasControl(value, false)) {
      throw HttpError.badRequest(field + " must be one line of text");
    }
  }

  /** The {id} of /ads/{id}: {@code ^[1-9][0-9]*$}, at most Long.MAX_VALUE. */
  static long adId(String text) throws HttpError {
    long id = positiveLong(text);
    if (id < 0) {
      throw HttpError.badRequest(ID_MESSAGE);
    }
    return id;
  }

  /** {@code round} of POST /timings/flush, or null when absent. */
  static Long round(String text) throws HttpError {
    if (text == null) {
      return null;
    }
    long round = positiveLong(text);
    if (round < 0) {
      throw HttpError.badRequest("round must be a positive integer");
    }
    return round;
  }

  static int limit(String text) throws HttpError {
    return bounded(text, LIMIT_DEFAULT, 1, LIMIT_MAX, "limit must be an integer from 1 to 100");
  }

  static int offset(String text) throws HttpError {
    return bounded(text, OFFSET_DEFAULT, 0, OFFSET_MAX, "offset must be an integer from 0 to 1000000");
  }

  /** {@code enabled} of POST /timings/recording. */
  static boolean enabled(String text) throws HttpError {
    if ("on".equals(text)) {
      return true;
    }
    if ("off".equals(text)) {
      return false;
    }
    throw HttpError.badRequest("enabled must be on or off");
  }

  /** {@code ^[1-9][0-9]*$} up to Long.MAX_VALUE, else -1. */
  private static long positiveLong(String text) {
    if (text.isEmpty() || text.charAt(0) == '0') {
      return -1;
    }
    return digitsUpTo(text, Long.MAX_VALUE);
  }

  /** {@code ^[0-9]+$} with min..max (leading zeros allowed), absent means the default. */
  private static int bounded(String text, int fallback, int min, int max, String message) throws HttpError {
    if (text == null) {
      return fallback;
    }
    long n = digitsUpTo(text, max);
    if (n < min) {
      throw HttpError.badRequest(message);
    }
    return (int) n;
  }

  /** The value of a non-empty all-digit string when it is at most {@code max}, else -1. */
  private static long digitsUpTo(String text, long max) {
    if (text.isEmpty()) {
      return -1;
    }
    long n = 0;
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      if (c < '0' || c > '9') {
        return -1;
      }
      int d = c - '0';
      if (n > (max - d) / 10) {
        return -1;
      }
      n = n * 10 + d;
    }
    return n;
  }

  private static int length(String s) {
    return s.codePointCount(0, s.length());
  }

  /** U+0000-U+001F or U+007F; with {@code textBlock}, tab, LF and CR are allowed. */
  private static boolean hasControl(String s, boolean textBlock) {
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      if (c < 0x20 || c == 0x7F) {
        if (!(textBlock && (c == '\t' || c == '\n' || c == '\r'))) {
          return true;
        }
      }
    }
    return false;
  }
}
