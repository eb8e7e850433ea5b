package cfscale.javaapp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * ControlAuth without a token: closed to every request unless LOCAL_DEV_NO_CONTROL_TOKEN opens
 * it, and the line logged at start is the settings spec's (node-app logs the same). With a token:
 * AppServerTest, on the wire.
 */
class ControlAuthTest {
  private static final Endpoint SECRET = exchange -> Reply.ok("recording off\n");

  @Test
  void withoutATokenEveryRequestGets401() throws Exception {
    Reply r = new ControlAuth(null, false).guard(SECRET).handle(null);
    assertEquals(new Reply(401, "control endpoints closed: CONTROL_TOKEN not set\n",
        List.of(new Reply.Header("WWW-Authenticate", "Bearer"))), r);
  }

  @Test
  void onlyLocalDevOpensThemWithoutAToken() {
    assertSame(SECRET, new ControlAuth(null, true).guard(SECRET));
  }

  @Test
  void theClosedLineIsTheSettingsSpecs() throws Exception {
    JsonNode spec = new ObjectMapper().readTree(Path.of("..", "contract", "settings.json").toFile());
    String unsetLine = null;
    for (JsonNode s : spec.get("settings")) {
      if (s.get("name").asText().equals("CONTROL_TOKEN")) {
        unsetLine = s.get("unsetLine").asText();
      }
    }
    assertEquals(unsetLine, ControlAuth.CLOSED_LINE);
  }
}
