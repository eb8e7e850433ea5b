package cfscale.javaapp;

import java.util.Arrays;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The bounded in-memory buffer of server timings (one record per request to /health and /ads*).
 *
 * Two preallocated segments of {@code capacity} records each: requests append to the current
 * one; flush and clear swap in the other (empty) one, wait for the few writers still inside the
 * old one, and then own it alone. When the current segment is full a record is counted in
 * {@code dropped} and not kept, so memory never grows. The hot path takes no lock: a writer
 * reserves a slot with one atomic increment, guarded by a per-segment writer count.
 */
final class TimingBuffer {
  /** Route labels as stored in server_timings.route; records keep the index. */
  static final String[] ROUTES = {"GET /health", "POST /ads", "GET /ads/{id}", "GET /ads", "-", "GET /hello"};
  static final int ROUTE_HEALTH = 0;
  static final int ROUTE_CREATE_AD = 1;
  static final int ROUTE_GET_AD = 2;
  static final int ROUTE_LIST_ADS = 3;
  static final int ROUTE_NONE = 4;
  static final int ROUTE_HELLO = 5;

  /** One fixed-size block of records; read by its owner only after its writers left. */
  static final class Segment {
    final String[] correlationIds;
    final byte[] routes;
    final short[] statuses;
    final long[] startedAtUs;
    final long[] handlerUs;
    final long[] poolWaitUs;
    final long[] dbUs;
    final AtomicInteger next = new AtomicInteger();
    final AtomicLong dropped = new AtomicLong();
    final AtomicInteger writers = new AtomicInteger();
    /**
     * The flush these records were last written under ({@link TimingsFlusher}), and how many of
     * the first records it covered; null when none is pending. Kept through {@link #restore}:
     * whether that commit happened is not known until the next flush asks.
     */
    String flushId;
    int flushRows;

    Segment(int capacity) {
      correlationIds = new String[capacity];
      routes = new byte[capacity];
      statuses = new short[capacity];
      startedAtUs = new long[capacity];
      handlerUs = new long[capacity];
      poolWaitUs = new long[capacity];
      dbUs = new long[capacity];
    }

    int count() {
      return Math.min(next.get(), routes.length);
    }

    /** Removes the first n records (written); only while detached. */
    void dropFirst(int n) {
      int rest = count() - n;
      System.arraycopy(correlationIds, n, correlationIds, 0, rest);
      System.arraycopy(routes, n, routes, 0, rest);
      System.arraycopy(statuses, n, statuses, 0, rest);
      System.arraycopy(startedAtUs, n, startedAtUs, 0, rest);
      System.arraycopy(handlerUs, n, handlerUs, 0, rest);
      System.arraycopy(poolWaitUs, n, poolWaitUs, 0, rest);
      System.arraycopy(dbUs, n, dbUs, 0, rest);
      Arrays.fill(correlationIds, rest, rest + n, null);
      next.set(rest);
    }

    void reset() {
      Arrays.fill(correlationIds, 0, count(), null);
      next.set(0);
      dropped.set(0);
      flushId = null;
      flushRows = 0;
    }
  }

  /** The state GET /timings reports. */
  record State(boolean recording, int count, long dropped, int capacity) {
  }

  private final int capacity;
  private volatile boolean recording;
  private volatile Segment current;
  private Segment spare;

  TimingBuffer(int capacity, boolean recording) {
    this.capacity = capacity;
    this.recording = recording;
    this.current = new Segment(capacity);
    this.spare = new Segment(capacity);
  }

  boolean isRecording() {
    return recording;
  }

  void setRecording(boolean on) {
    recording = on;
  }

  /** Appends one record, or counts it as dropped when the buffer is full. */
  void record(String correlationId, int route, int status, long startedAtUs, long handlerUs,
      long poolWaitUs, long dbUs) {
    Segment s;
    while (true) {
      s = current;
      s.writers.incrementAndGet();
      if (s == current) {
        break;
      }
      s.writers.decrementAndGet(); // swapped meanwhile: write into the new one
    }
    try {
      if (s.next.get() >= capacity) {
        s.dropped.incrementAndGet();
        return;
      }
      int i = s.next.getAndIncrement();
      if (i >= capacity) {
        s.dropped.incrementAndGet();
        return;
      }
      s.correlationIds[i] = correlationId;
      s.routes[i] = (byte) route;
      s.statuses[i] = (short) status;
      s.startedAtUs[i] = startedAtUs;
      s.handlerUs[i] = handlerUs;
      s.poolWaitUs[i] = poolWaitUs;
      s.dbUs[i] = dbUs;
    } finally {
      s.writers.decrementAndGet();
    }
  }

  State state() {
    Segment s = current;
    return new State(recording, s.count(), s.dropped.get(), capacity);
  }

  /**
   * Takes every record out: returns the filled segment, which the caller owns until it hands
   * it back with {@link #release} (records written) or {@link #restore} (write failed). A second
   * caller (a clear during a flush) waits until the first has handed its segment back.
   */
  synchronized Segment detach() {
    while (spare == null) {
      try {
        wait();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException("interrupted while waiting for a timings flush", e);
      }
    }
    Segment old = current;
    current = spare;
    spare = null;
    awaitWriters(old);
    return old;
  }

  /** The detached records are done with (flushed or cleared): the segment becomes the spare. */
  synchronized void release(Segment detached) {
    detached.reset();
    spare = detached;
    notifyAll();
  }

  /**
   * The detached records could not be written: they become current again, and what arrived
   * meanwhile is appended to them (beyond capacity it counts as dropped).
   */
  synchronized void restore(Segment detached) {
    Segment meanwhile = current;
    current = detached;
    awaitWriters(meanwhile);
    detached.dropped.addAndGet(meanwhile.dropped.get());
    for (int i = 0; i < meanwhile.count(); i++) {
      record(meanwhile.correlationIds[i], meanwhile.routes[i], meanwhile.statuses[i],
          meanwhile.startedAtUs[i], meanwhile.handlerUs[i], meanwhile.poolWaitUs[i], meanwhile.dbUs[i]);
    }
    meanwhile.reset();
    spare = meanwhile;
    notifyAll();
  }

  /** Empties the buffer; returns how many records it held. */
  int clear() {
    Segment s = detach();
    int n = s.count();
    release(s);
    return n;
  }

  private static void awaitWriters(Segment s) {
    while (s.writers.get() != 0) {
      Thread.onSpinWait();
    }
  }
}
