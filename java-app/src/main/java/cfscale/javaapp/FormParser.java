package cfscale.javaapp;

import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CharsetDecoder;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Strict application/x-www-form-urlencoded decoding, for POST bodies and query strings.
 *
 * Split on {@code &}, then on the first {@code =}; {@code +} is a space; empty pairs are skipped.
 * The checks run in the contract's order over the whole input: first every {@code %} must be
 * followed by two hex digits ({@code malformed percent-encoding}), then every decoded name and
 * value must be valid UTF-8 ({@code invalid UTF-8}, decoded with a REPORTing CharsetDecoder, so
 * overlong forms and encoded surrogates are refused too), then no field of {@code unique} may
 * appear twice ({@code duplicate field: NAME}). Other repeated names keep their first value.
 */
final class FormParser {
  private FormParser() {
  }

  static Map<String, String> parse(byte[] input, Set<String> unique) throws HttpError {
    checkPercentEncoding(input);
    List<String[]> pairs = decodePairs(input);
    Map<String, String> fields = new HashMap<>();
    for (String[] pair : pairs) {
      String previous = fields.putIfAbsent(pair[0], pair[1]);
      if (previous != null && unique.contains(pair[0])) {
        throw HttpError.badRequest("duplicate field: " + pair[0]);
      }
    }
    return fields;
  }

  /** A query string (without the {@code ?}); null means none. */
  static Map<String, String> parseQuery(String query) throws HttpError {
    if (query == null || query.isEmpty()) {
      return Map.of();
    }
    return parse(query.getBytes(StandardCharsets.UTF_8), Set.of());
  }

  private static void checkPercentEncoding(byte[] input) throws HttpError {
    for (int i = 0; i < input.length; i++) {
      if (input[i] == '%') {
        if (i + 2 >= input.length || !isHex(input[i + 1]) || !isHex(input[i + 2])) {
          throw HttpError.badRequest("malformed percent-encoding");
        }
        i += 2;
      }
    }
  }

  private static List<String[]> decodePairs(byte[] input) throws HttpError {
    List<String[]> pairs = new ArrayList<>();
    CharsetDecoder utf8 = StandardCharsets.UTF_8.newDecoder()
        .onMalformedInput(CodingErrorAction.REPORT)
        .onUnmappableCharacter(CodingErrorAction.REPORT);
    int start = 0;
    while (start <= input.length) {
      int end = indexOf(input, (byte) '&', start, input.length);
      if (end > start) {
        int eq = indexOf(input, (byte) '=', start, end);
        String name = decode(utf8, input, start, eq);
        String value = eq < end ? decode(utf8, input, eq + 1, end) : "";
        pairs.add(new String[] {name, value});
      }
      start = end + 1;
    }
    return pairs;
  }

  private static String decode(CharsetDecoder utf8, byte[] input, int from, int to) throws HttpError {
    byte[] out = new byte[to - from];
    int n = 0;
    for (int i = from; i < to; i++) {
      byte b = input[i];
      if (b == '+') {
        out[n++] = ' ';
      } else if (b == '%') {
        out[n++] = (byte) (Character.digit(input[i + 1], 16) * 16 + Character.digit(input[i + 2], 16));
        i += 2;
      } else {
        out[n++] = b;
      }
    }
    try {
      return utf8.reset().decode(ByteBuffer.wrap(out, 0, n)).toString();
    } catch (CharacterCodingException e) {
      throw HttpError.badRequest("invalid UTF-8");
    }
  }

  private static int indexOf(byte[] input, byte b, int from, int to) {
    for (int i = from; i < to; i++) {
      if (input[i] == b) {
        return i;
      }
    }
    return to;
  }

  private static boolean isHex(byte b) {
    return (b >= '0' && b <= '9') || (b >= 'a' && b <= 'f') || (b >= 'A' && b <= 'F');
  }
}
