package cfscale.javaapp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class FormParserTest {
  private static final Set<String> FIELDS = Set.of("title", "body", "price", "contact");

  private static Map<String, String> parse(String form) throws HttpError {
    return FormParser.parse(form.getBytes(StandardCharsets.ISO_8859_1), FIELDS);
  }

  @Test
  void decodesPlusPercentAndSplitsOnFirstEquals() throws Exception {
    assertEquals(Map.of("title", "a b+c", "body", "x=y", "contact", ""),
        parse("title=a+b%2Bc&body=x=y&contact"));
  }

  @Test
  void skipsEmptyPairsAndKeepsRawBytesAsUtf8() throws Exception {
    assertEquals(Map.of("title", "é€"), parse("&&title=\u00c3\u00a9%E2%82%AC&&"));
  }

  @Test
  void ignoresDuplicatesOfOtherFieldsKeepingTheFirst() throws Exception {
    assertEquals(Map.of("x", "1", "title", "t"), parse("x=1&x=2&title=t"));
  }

  @ParameterizedTest(name = "{0} -> {1}")
  @CsvSource(delimiter = '|', value = {
      "title=%|malformed percent-encoding",
      "title=%4|malformed percent-encoding",
      "title=%zz|malformed percent-encoding",
      "ti%tle=x|malformed percent-encoding",
      "title=%ff|invalid UTF-8",
      "title=%C0%80|invalid UTF-8",
      "title=%ED%A0%80|invalid UTF-8",
      "title=%F4%90%80%80|invalid UTF-8",
      "title=%E2%82|invalid UTF-8",
      "%ff=x|invalid UTF-8",
      "title=a&title=b|duplicate field: title",
      "price=1&contact=a&price=2|duplicate field: price",
      // the checks run in the contract's order over the whole input
      "title=a&title=b&body=%ff|invalid UTF-8",
      "body=%ff&contact=%zz|malformed percent-encoding",
  })
  void rejectsWithTheContractMessage(String form, String message) {
    HttpError e = assertThrows(HttpError.class, () -> parse(form));
    assertEquals(400, e.status);
    assertEquals(message, e.getMessage());
  }

  @Test
  void queryStringsUseTheSameRulesWithoutDuplicateChecks() throws Exception {
    assertEquals(Map.of("limit", "5"), FormParser.parseQuery("limit=5&limit=6"));
    assertEquals(Map.of(), FormParser.parseQuery(null));
    HttpError e = assertThrows(HttpError.class, () -> FormParser.parseQuery("limit=%2"));
    assertEquals("malformed percent-encoding", e.getMessage());
  }
}
