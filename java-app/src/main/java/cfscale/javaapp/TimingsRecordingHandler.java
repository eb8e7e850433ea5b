package cfscale.javaapp;

/** POST /timings/recording?enabled=on|off: switch recording. */
final class TimingsRecordingHandler implements Endpoint {
  private final TimingBuffer buffer;

  TimingsRecordingHandler(TimingBuffer buffer) {
    this.buffer = buffer;
  }

  @Override
  public Reply handle(Exchange exchange) throws Exception {
    boolean on = Validation.enabled(exchange.query("enabled"));
    buffer.setRecording(on);
    return Reply.ok(on ? "recording on\n" : "recording off\n");
  }
}
