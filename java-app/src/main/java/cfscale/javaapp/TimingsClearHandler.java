package cfscale.javaapp;

/** POST /timings/clear: empty the buffer (and its dropped counter). */
final class TimingsClearHandler implements Endpoint {
  private final TimingBuffer buffer;

  TimingsClearHandler(TimingBuffer buffer) {
    this.buffer = buffer;
  }

  @Override
  public Reply handle(Exchange exchange) {
    return Reply.ok("cleared " + buffer.clear() + "\n");
  }
}
