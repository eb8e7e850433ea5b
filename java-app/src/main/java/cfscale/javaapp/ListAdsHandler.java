package cfscale.javaapp;

import java.util.List;

/** GET /ads?offset=&limit=: newest first, {@code {id}\t{price}\t{title}} per line, X-Total-Count. */
final class ListAdsHandler implements Endpoint {
  private final AdStore store;

  ListAdsHandler(AdStore store) {
    this.store = store;
  }

  @Override
  public Reply handle(Exchange exchange) throws Exception {
    int limit = Validation.limit(exchange.query("limit"));
    int offset = Validation.offset(exchange.query("offset"));
    AdStore.Page page = store.page(exchange, offset, limit);
    StringBuilder body = new StringBuilder(page.lines().size() * 64);
    for (AdStore.Line line : page.lines()) {
      body.append(line.id()).append('\t').append(line.price()).append('\t').append(line.title()).append('\n');
    }
    return new Reply(200, body.toString(),
        List.of(new Reply.Header("X-Total-Count", Long.toString(page.total()))));
  }
}
