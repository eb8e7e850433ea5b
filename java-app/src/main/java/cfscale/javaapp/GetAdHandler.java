package cfscale.javaapp;

/** GET /ads/{id}: one ad as the header lines, an empty line and the body text. */
final class GetAdHandler implements Endpoint {
  static final String PREFIX = "/ads/";

  private final AdStore store;

  GetAdHandler(AdStore store) {
    this.store = store;
  }

  @Override
  public Reply handle(Exchange exchange) throws Exception {
    String path = exchange.request.getHttpURI().getPath();
    long id = Validation.adId(path.substring(PREFIX.length()));
    AdStore.Ad ad = store.find(exchange, id);
    if (ad == null) {
      throw new HttpError(404, "ad not found");
    }
    return Reply.ok(format(ad));
  }

  static String format(AdStore.Ad ad) {
    return "id: " + ad.id() + "\n"
        + "title: " + ad.title() + "\n"
        + "price: " + ad.price() + "\n"
        + "contact: " + ad.contact() + "\n"
        + "created: " + ad.created() + "\n"
        + "\n"
        + ad.body() + "\n";
  }
}
