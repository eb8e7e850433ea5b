package cfscale.javaapp;

/** POST /timings/flush?round=N: write the buffer to server_timings and empty it. */
final class TimingsFlushHandler implements Endpoint {
  private final TimingsFlusher flusher;

  TimingsFlushHandler(TimingsFlusher flusher) {
    this.flusher = flusher;
  }

  @Override
  public Reply handle(Exchange exchange) throws Exception {
    Long round = Validation.round(exchange.query("round"));
    return Reply.ok("flushed " + flusher.flush(round) + "\n");
  }
}
