package cfscale.javaapp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.HashMap;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.NullSource;
import org.junit.jupiter.params.provider.ValueSource;

class ValidationTest {
  private static Map<String, String> form(String... kv) {
    Map<String, String> m = new HashMap<>();
    for (int i = 0; i < kv.length; i += 2) {
      m.put(kv[i], kv[i + 1]);
    }
    return m;
  }

  static Stream<Arguments> badAds() {
    String emoji = "\uD83D\uDE00"; // one code point, two UTF-16 units
    return Stream.of(
        Arguments.of(form(), "title is required"),
        Arguments.of(form("title", ""), "title is required"),
        Arguments.of(form("title", "x".repeat(201)), "title over 200 characters"),
        Arguments.of(form("title", "a\nb"), "title must be one line of text"),
        Arguments.of(form("title", "a\u007fb"), "title must be one line of text"),
        Arguments.of(form("title", "a\tb"), "title must be one line of text"),
        Arguments.of(form("title", "t", "body", "x".repeat(4001)), "body over 4000 characters"),
        Arguments.of(form("title", "t", "body", "a\u0000"), "body contains a control character"),
        Arguments.of(form("title", "t", "body", "a\u007f"), "body contains a control character"),
        Arguments.of(form("title", "t", "price", ""), "price must be a non-negative decimal with at most 2 decimals"),
        Arguments.of(form("title", "t", "price", "01"), "price must be a non-negative decimal with at most 2 decimals"),
        Arguments.of(form("title", "t", "price", "1.234"), "price must be a non-negative decimal with at most 2 decimals"),
        Arguments.of(form("title", "t", "price", "-1"), "price must be a non-negative decimal with at most 2 decimals"),
        Arguments.of(form("title", "t", "price", "1."), "price must be a non-negative decimal with at most 2 decimals"),
        Arguments.of(form("title", "t", "price", " 1"), "price must be a non-negative decimal with at most 2 decimals"),
        Arguments.of(form("title", "t", "price", "1000000.01"), "price over 1000000"),
        Arguments.of(form("title", "t", "price", "99999999999999999999"), "price over 1000000"),
        Arguments.of(form("title", "t", "contact", emoji.repeat(201)), "contact over 200 characters"),
        Arguments.of(form("title", "t", "contact", "a\rb"), "contact must be one line of text"),
        // order: the first failing rule answers
        Arguments.of(form("title", "a\n".repeat(150), "price", "x"), "title over 200 characters"),
        Arguments.of(form("title", "t", "body", "\u0001", "price", "x"), "body contains a control character"));
  }

  @ParameterizedTest
  @MethodSource("badAds")
  void rejectsAdsWithTheContractMessage(Map<String, String> form, String message) {
    HttpError e = assertThrows(HttpError.class, () -> Validation.newAd(form));
    assertEquals(400, e.status);
    assertEquals(message, e.getMessage());
  }

  @Test
  void acceptsBoundaryAdsAndFillsDefaults() throws Exception {
    String emoji = "\uD83D\uDE00";
    assertEquals(new Validation.NewAd(emoji.repeat(200), "", "0", ""),
        Validation.newAd(form("title", emoji.repeat(200))));
    assertEquals(new Validation.NewAd("t", "a\tb\r\nc", "1000000.00", "x".repeat(200)),
        Validation.newAd(form("title", "t", "body", "a\tb\r\nc", "price", "1000000.00", "contact", "x".repeat(200))));
    assertEquals("0.5", Validation.newAd(form("title", "t", "price", "0.5")).price());
  }

  @ParameterizedTest
  @ValueSource(strings = {"", "0", "01", "-1", "+1", "1.0", "1a", " 1", "9223372036854775808", "99999999999999999999"})
  void rejectsBadIds(String id) {
    HttpError e = assertThrows(HttpError.class, () -> Validation.adId(id));
    assertEquals("id must be an integer from 1 to 9223372036854775807", e.getMessage());
  }

  @Test
  void acceptsIdsUpToLongMax() throws Exception {
    assertEquals(1, Validation.adId("1"));
    assertEquals(Long.MAX_VALUE, Validation.adId("9223372036854775807"));
  }

  @Test
  void limitAndOffsetBoundsAndDefaults() throws Exception {
    assertEquals(20, Validation.limit(null));
    assertEquals(0, Validation.offset(null));
    assertEquals(1, Validation.limit("1"));
    assertEquals(100, Validation.limit("100"));
    assertEquals(7, Validation.limit("007"));
    assertEquals(1_000_000, Validation.offset("1000000"));
    for (String bad : new String[] {"", "0", "101", "-1", "1.5", "x", "99999999999999999999"}) {
      assertEquals("limit must be an integer from 1 to 100",
          assertThrows(HttpError.class, () -> Validation.limit(bad)).getMessage(), bad);
    }
    for (String bad : new String[] {"", "1000001", "-1", "+0", "x"}) {
      assertEquals("offset must be an integer from 0 to 1000000",
          assertThrows(HttpError.class, () -> Validation.offset(bad)).getMessage(), bad);
    }
  }

  @ParameterizedTest
  @NullSource
  @ValueSource(strings = {"", "ON", "true", "1"})
  void enabledMustBeOnOrOff(String value) {
    assertEquals("enabled must be on or off",
        assertThrows(HttpError.class, () -> Validation.enabled(value)).getMessage());
  }

  @Test
  void roundIsOptionalAndPositive() throws Exception {
    assertEquals(null, Validation.round(null));
    assertEquals(42L, Validation.round("42"));
    for (String bad : new String[] {"", "0", "-3", "9223372036854775808", "x"}) {
      assertEquals("round must be a positive integer",
          assertThrows(HttpError.class, () -> Validation.round(bad)).getMessage(), bad);
    }
  }
}
