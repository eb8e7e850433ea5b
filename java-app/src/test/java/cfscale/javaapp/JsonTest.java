package cfscale.javaapp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.math.BigDecimal;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Test;

class JsonTest {
  @Test
  void parsesEveryKindOfValue() throws Exception {
    Object v = Json.parse(" {\"s\":\"a\\\"\\\\\\/\\b\\f\\n\\r\\t\\u00e9\\ud83d\\ude00\",\"n\":-1.5e2,\"z\":0,"
        + "\"t\":true,\"f\":false,\"null\":null,\"a\":[1,[],{}]} ");
    Map<?, ?> m = (Map<?, ?>) v;
    assertEquals("a\"\\/\b\f\n\r\t\u00e9\ud83d\ude00", m.get("s"));
    assertEquals(new BigDecimal("-1.5e2"), m.get("n"));
    assertEquals(BigDecimal.ZERO, m.get("z"));
    assertEquals(Boolean.TRUE, m.get("t"));
    assertEquals(Boolean.FALSE, m.get("f"));
    assertNull(m.get("null"));
    assertEquals(List.of(BigDecimal.ONE, List.of(), Map.of()), m.get("a"));
  }

  @Test
  void keepsKeyOrder() throws Exception {
    Map<?, ?> m = (Map<?, ?>) Json.parse("{\"b\":1,\"a\":2,\"c\":3}");
    assertEquals(List.of("b", "a", "c"), List.copyOf(m.keySet()));
  }

  @ParameterizedTest
  @ValueSource(strings = {"", " ", "{", "{\"a\":1,}", "[1,]", "[1 2]", "{\"a\" 1}", "{a:1}", "'x'",
      "\"unterminated", "\"tab\there\"", "\"\\x\"", "\"\\u12\"", "01", "1.", "-", "1e", "+1", ".5",
      "tru", "nul", "{} x", "[] []", "// c\n{}", "NaN"})
  void rejectsMalformedInput(String text) {
    assertThrows(Json.ParseException.class, () -> Json.parse(text));
  }

  @Test
  void rejectsNestingBeyondTheLimit() {
    String deep = "[".repeat(Json.MAX_DEPTH + 2) + "]".repeat(Json.MAX_DEPTH + 2);
    assertThrows(Json.ParseException.class, () -> Json.parse(deep));
  }
}
