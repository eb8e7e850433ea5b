package cfscale.javaapp;

/** GET /timings: the buffer's state (recording, count, dropped, capacity). */
final class TimingsHandler implements Endpoint {
  private final TimingBuffer buffer;

  TimingsHandler(TimingBuffer buffer) {
    this.buffer = buffer;
  }

  @Override
  public Reply handle(Exchange exchange) {
    TimingBuffer.State s = buffer.state();
    return Reply.ok("recording " + (s.recording() ? "on" : "off") + "\n"
        + "count " + s.count() + "\n"
        + "dropped " + s.dropped() + "\n"
        + "capacity " + s.capacity() + "\n");
  }
}
