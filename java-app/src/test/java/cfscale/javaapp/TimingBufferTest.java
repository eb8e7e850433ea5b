package cfscale.javaapp;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import org.junit.jupiter.api.Test;

class TimingBufferTest {
  private static void record(TimingBuffer b, String id) {
    b.record(id, TimingBuffer.ROUTE_HEALTH, 200, 1, 2, 3, 4);
  }

  @Test
  void keepsUpToCapacityAndCountsTheRestAsDropped() {
    TimingBuffer b = new TimingBuffer(3, true);
    for (int i = 0; i < 5; i++) {
      record(b, "r" + i);
    }
    assertEquals(new TimingBuffer.State(true, 3, 2, 3), b.state());
    TimingBuffer.Segment s = b.detach();
    assertEquals(3, s.count());
    assertEquals("r0", s.correlationIds[0]);
    assertEquals("r2", s.correlationIds[2]);
    b.release(s);
  }

  @Test
  void clearEmptiesAndResetsDropped() {
    TimingBuffer b = new TimingBuffer(2, true);
    for (int i = 0; i < 4; i++) {
      record(b, "r" + i);
    }
    assertEquals(2, b.clear());
    assertEquals(new TimingBuffer.State(true, 0, 0, 2), b.state());
    record(b, "again");
    assertEquals(1, b.state().count());
  }

  @Test
  void restorePutsRecordsBackAndAppendsWhatArrivedMeanwhile() {
    TimingBuffer b = new TimingBuffer(3, true);
    record(b, "a");
    record(b, "b");
    TimingBuffer.Segment s = b.detach();
    record(b, "c");
    record(b, "d");
    b.restore(s);
    assertEquals(new TimingBuffer.State(true, 3, 1, 3), b.state());
    TimingBuffer.Segment again = b.detach();
    assertEquals(Set.of("a", "b", "c"), Set.of(again.correlationIds));
    b.release(again);
  }

  @Test
  void recordingSwitch() {
    TimingBuffer b = new TimingBuffer(1, false);
    assertEquals(false, b.isRecording());
    b.setRecording(true);
    assertEquals(true, b.state().recording());
  }

  @Test
  void concurrentWritersAndDetachesLoseNothing() throws Exception {
    int threads = 4;
    int perThread = 20_000;
    TimingBuffer b = new TimingBuffer(threads * perThread, true);
    CountDownLatch start = new CountDownLatch(1);
    Thread[] writers = new Thread[threads];
    for (int t = 0; t < threads; t++) {
      int id = t;
      writers[t] = new Thread(() -> {
        try {
          start.await();
        } catch (InterruptedException e) {
          return;
        }
        for (int i = 0; i < perThread; i++) {
          record(b, id + ":" + i);
        }
      });
      writers[t].start();
    }
    Set<String> seen = new HashSet<>();
    start.countDown();
    boolean running = true;
    while (running) {
      running = false;
      for (Thread w : writers) {
        running |= w.isAlive();
      }
      TimingBuffer.Segment s = b.detach();
      for (int i = 0; i < s.count(); i++) {
        seen.add(s.correlationIds[i]);
      }
      b.release(s);
    }
    assertEquals(threads * perThread, seen.size());
    assertEquals(0, b.state().dropped());
  }
}
