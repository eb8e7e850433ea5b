package cfscale.javaapp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.SQLException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class AdStoreTest {
  /** Regression guard: the app must create ads with exactly the schema file's statement. */
  @Test
  void createTableIsExactlyTheStatementInResultsSchema() throws Exception {
    String schema = Files.readString(Path.of("..", "results-schema.sql"));
    String statement = AdStore.CREATE_TABLE.substring(AdStore.CREATE_TABLE.indexOf("CREATE TABLE"));
    assertTrue(statement.startsWith("CREATE TABLE IF NOT EXISTS ads ("), "ads-table.sql holds no ads statement");
    assertTrue(schema.contains(statement), "ads-table.sql is stale: run node contract/readme-tables.js --write");
  }

  @Test
  void adTextFormat() {
    AdStore.Ad ad = new AdStore.Ad(42, "Bike for sale", "120.00", "anna@example.com",
        "2026-11-21T13:17:01.123Z", "Almost new.\nCollect in person.");
    assertEquals("id: 42\ntitle: Bike for sale\nprice: 120.00\n"
        + "contact: anna@example.com\ncreated: 2026-11-21T13:17:01.123Z\n\nAlmost new.\nCollect in person.\n",
        GetAdHandler.format(ad));
  }

  /** statement_timeout (57014) is a 503 that keeps the connection; 08xxx is a 503 that drops it. */
  @ParameterizedTest(name = "{0}")
  @CsvSource(delimiter = '|', value = {
      "57014|true|false",
      "08006|false|true",
      "42P01|false|false",
  })
  void statementCancelledAndConnectionFailure(String state, boolean cancelled, boolean connection) {
    SQLException e = new SQLException("x", state);
    assertEquals(cancelled, AdStore.isStatementCancelled(e));
    assertEquals(connection, DatabaseUnavailableException.isConnectionFailure(e));
  }
}
