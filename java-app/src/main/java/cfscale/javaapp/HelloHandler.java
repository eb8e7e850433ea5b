package cfscale.javaapp;

/**
 * GET /hello: the study's Hello World control, no database, so a measurement of the router or a
 * TLS proxy in front of it is not one of the database.
 */
final class HelloHandler implements Endpoint {
  private static final Reply OK = Reply.ok("Hello World\n");

  @Override
  public Reply handle(Exchange exchange) {
    return OK;
  }
}
