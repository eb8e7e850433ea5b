package cfscale.javaapp;

/** GET /health: liveness only, never touches the database (CF's http health check uses it). */
final class HealthHandler implements Endpoint {
  private static final Reply OK = Reply.ok("ok\n");

  @Override
  public Reply handle(Exchange exchange) {
    return OK;
  }
}
