package cfscale.javaapp;

import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A small strict JSON parser (RFC 8259) for VCAP_SERVICES and VCAP_APPLICATION only.
 *
 * The HTTP API is plain text and the app carries no JSON library; the two CF environment
 * variables are the only JSON it reads. Objects become {@code Map<String, Object>} (insertion
 * order kept), arrays {@code List<Object>}, numbers {@link BigDecimal}, {@code null} Java null.
 * Anything that is not exactly one JSON value is an error: trailing text, comments, trailing
 * commas, single quotes, unescaped control characters, leading zeros. (Unicode escapes are taken as
 * UTF-16 units, so an escaped surrogate pair becomes one code point.)
 */
final class Json {
  /** Nesting deeper than this is rejected; VCAP_SERVICES is a few levels deep. */
  static final int MAX_DEPTH = 64;

  /** Thrown for malformed input; the message says what and where (character offset). */
  static final class ParseException extends Exception {
    ParseException(String message, int offset) {
      super(message + " at offset " + offset);
    }
  }

  private final String text;
  private int pos;

  private Json(String text) {
    this.text = text;
  }

  static Object parse(String text) throws ParseException {
    Json p = new Json(text);
    p.skipWhitespace();
    Object value = p.value(0);
    p.skipWhitespace();
    if (p.pos != text.length()) {
      throw new ParseException("unexpected text after the value", p.pos);
    }
    return value;
  }

  private Object value(int depth) throws ParseException {
    if (depth > MAX_DEPTH) {
      throw new ParseException("nesting deeper than " + MAX_DEPTH, pos);
    }
    if (pos >= text.length()) {
      throw new ParseException("unexpected end of input", pos);
    }
    char c = text.charAt(pos);
    switch (c) {
      case '{': return object(depth);
      case '[': return array(depth);
      case '"': return string();
      case 't': return literal("true", Boolean.TRUE);
      case 'f': return literal("false", Boolean.FALSE);
      case 'n': return literal("null", null);
      default:
        if (c == '-' || (c >= '0' && c <= '9')) {
          return number();
        }
        throw new ParseException("unexpected character '" + c + "'", pos);
    }
  }

  private Map<String, Object> object(int depth) throws ParseException {
    Map<String, Object> map = new LinkedHashMap<>();
    pos++; // {
    skipWhitespace();
    if (peek() == '}') {
      pos++;
      return map;
    }
    while (true) {
      skipWhitespace();
      if (peek() != '"') {
        throw new ParseException("expected a string key", pos);
      }
      String key = string();
      skipWhitespace();
      expect(':');
      skipWhitespace();
      map.put(key, value(depth + 1));
      skipWhitespace();
      char c = next();
      if (c == '}') {
        return map;
      }
      if (c != ',') {
        throw new ParseException("expected ',' or '}'", pos - 1);
      }
    }
  }

  private List<Object> array(int depth) throws ParseException {
    List<Object> list = new ArrayList<>();
    pos++; // [
    skipWhitespace();
    if (peek() == ']') {
      pos++;
      return Collections.unmodifiableList(list);
    }
    while (true) {
      skipWhitespace();
      list.add(value(depth + 1));
      skipWhitespace();
      char c = next();
      if (c == ']') {
        return Collections.unmodifiableList(list);
      }
      if (c != ',') {
        throw new ParseException("expected ',' or ']'", pos - 1);
      }
    }
  }

  private String string() throws ParseException {
    pos++; // opening quote
    StringBuilder sb = new StringBuilder();
    while (true) {
      if (pos >= text.length()) {
        throw new ParseException("unterminated string", pos);
      }
      char c = text.charAt(pos++);
      if (c == '"') {
        return sb.toString();
      }
      if (c < 0x20) {
        throw new ParseException("control character in string", pos - 1);
      }
      if (c != '\\') {
        sb.append(c);
        continue;
      }
      char e = next();
      switch (e) {
        case '"': sb.append('"'); break;
        case '\\': sb.append('\\'); break;
        case '/': sb.append('/'); break;
        case 'b': sb.append('\b'); break;
        case 'f': sb.append('\f'); break;
        case 'n': sb.append('\n'); break;
        case 'r': sb.append('\r'); break;
        case 't': sb.append('\t'); break;
        case 'u': sb.append(hex4()); break;
        default: throw new ParseException("bad escape '\\" + e + "'", pos - 1);
      }
    }
  }

  private char hex4() throws ParseException {
    if (pos + 4 > text.length()) {
      throw new ParseException("truncated \\u escape", pos);
    }
    int v = 0;
    for (int i = 0; i < 4; i++) {
      int d = Character.digit(text.charAt(pos + i), 16);
      if (d < 0) {
        throw new ParseException("bad \\u escape", pos + i);
      }
      v = v * 16 + d;
    }
    pos += 4;
    return (char) v;
  }

  private BigDecimal number() throws ParseException {
    int start = pos;
    if (peek() == '-') {
      pos++;
    }
    if (peek() == '0') {
      pos++;
    } else if (isDigit(peek())) {
      digits();
    } else {
      throw new ParseException("bad number", start);
    }
    if (peek() == '.') {
      pos++;
      if (!isDigit(peek())) {
        throw new ParseException("bad number", start);
      }
      digits();
    }
    if (peek() == 'e' || peek() == 'E') {
      pos++;
      if (peek() == '+' || peek() == '-') {
        pos++;
      }
      if (!isDigit(peek())) {
        throw new ParseException("bad number", start);
      }
      digits();
    }
    return new BigDecimal(text.substring(start, pos));
  }

  private void digits() {
    while (isDigit(peek())) {
      pos++;
    }
  }

  private static boolean isDigit(char c) {
    return c >= '0' && c <= '9';
  }

  private Object literal(String word, Object value) throws ParseException {
    if (!text.startsWith(word, pos)) {
      throw new ParseException("unexpected literal", pos);
    }
    pos += word.length();
    return value;
  }

  private void skipWhitespace() {
    while (pos < text.length()) {
      char c = text.charAt(pos);
      if (c != ' ' && c != '\t' && c != '\n' && c != '\r') {
        return;
      }
      pos++;
    }
  }

  /** The current character, or 0 at the end (0 never starts a valid token). */
  private char peek() {
    return pos < text.length() ? text.charAt(pos) : 0;
  }

  private char next() throws ParseException {
    if (pos >= text.length()) {
      throw new ParseException("unexpected end of input", pos);
    }
    return text.charAt(pos++);
  }

  private void expect(char c) throws ParseException {
    if (next() != c) {
      throw new ParseException("expected '" + c + "'", pos - 1);
    }
  }
}
