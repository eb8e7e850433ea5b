'use strict';
// The open model's clock: calls back at a due time to within tens of µs. Node's timers run on
// the event loop's millisecond clock and fire up to a millisecond (more on a busy machine)
// late; the open model measures from the due time, so that lateness would be counted as the
// server's latency. A thread of its own (pacer-thread.js) sleeps on a futex until WAKE_LEAD_MS
// before the due time and wakes the event loop with a message; the caller waits out what is
// left with setImmediate (tens of µs, I/O still served in between). Until that thread is up
// (tens of ms after start()) a timer covers the coarse part and setImmediate the last ms.

const path = require('node:path');
const { performance } = require('node:perf_hooks');
const { Worker } = require('node:worker_threads');

// How long the pacer's message takes to run on the event loop (measured 25-50 µs here):
// woken that much before the due time, the loop runs near it rather than after it.
const WAKE_LEAD_MS = 0.05;
const TIMER_SLACK_MS = 1;   // before the thread is up: a timer to 1 ms before, then setImmediate
const SPIN_MS = 0.2;        // a wait this short is spun with setImmediate: a wake would take as long
// Its thread's start-up (an isolate of its own: ~20 ms of CPU) is not waited for longer than
// this; timers stand in meanwhile.
const START_MAX_MS = 1000;

class Pacer {
  /** onWake(): called once per wakeAt(), at its time or at most SPIN_MS before (settable later). */
  constructor(onWake = () => {}) {
    this.onWake = onWake;
    this.started = null;
    this.shared = new SharedArrayBuffer(16);
    this.ctl = new Int32Array(this.shared, 0, 2);
    this.due = new Float64Array(this.shared, 8, 1);
    this.thread = null;
    this.ready = false;
    this.seq = 0;
    this.pending = false;
    this.atMs = 0;
    this.timer = null;
    this.immediate = null;
  }

  /**
   * Starts the thread; resolves once it is up (or after START_MAX_MS, or when it failed: timers
   * then), never rejects. The open model waits for it: a thread starting on the generator's CPU
   * while sends are due makes them late by its start-up (~20 ms, the worst of a run).
   */
  start() {
    if (this.started !== null) return this.started;
    const t = new Worker(path.join(__dirname, 'pacer-thread.js'), { workerData: this.shared, stdout: false, stderr: false });
    let up;
    this.started = new Promise((resolve) => { up = resolve; });
    const limit = setTimeout(up, START_MAX_MS);
    const settle = () => { clearTimeout(limit); up(); };
    t.on('online', () => { this.ready = true; settle(); });
    t.on('message', (seq) => {
      if (!this.pending || seq !== this.seq) return; // an earlier wake, cancelled or replaced
      this.pending = false;
      this.onWake();
    });
    // Should the thread fail, timers take over, as before it was up; a wake it owed comes by timer.
    const lost = () => {
      if (this.thread !== t) return;
      this.thread = null;
      this.ready = false;
      if (this.pending && this.timer === null && this.immediate === null) this.wakeAt(this.atMs);
      settle();
    };
    t.on('error', lost);
    t.on('exit', lost);
    t.unref(); // the engine's own timers keep the process alive while it runs
    this.thread = t;
    return this.started;
  }

  /** Wakes once at `atMs` (performance.now() ms); replaces a wake pending. */
  wakeAt(atMs) {
    this.cancel();
    this.pending = true;
    this.atMs = atMs;
    const rest = atMs - performance.now();
    if (this.ready && rest > SPIN_MS) {
      this.due[0] = performance.timeOrigin + atMs - WAKE_LEAD_MS;
      this.seq = (this.seq + 1) | 0;
      Atomics.store(this.ctl, 0, this.seq);
      Atomics.notify(this.ctl, 0);
      return;
    }
    const fire = () => {
      this.timer = null;
      this.immediate = null;
      if (atMs - performance.now() > SPIN_MS) { this.wakeAt(atMs); return; } // a timer may fire up to a ms early
      this.pending = false;
      this.onWake();
    };
    if (rest > SPIN_MS + TIMER_SLACK_MS) this.timer = setTimeout(fire, rest - TIMER_SLACK_MS);
    else this.immediate = setImmediate(fire);
  }

  cancel() {
    this.pending = false;
    if (this.timer !== null) { clearTimeout(this.timer); this.timer = null; }
    if (this.immediate !== null) { clearImmediate(this.immediate); this.immediate = null; }
  }

  stop() {
    this.cancel();
    if (this.thread === null) return;
    Atomics.store(this.ctl, 1, 1);
    Atomics.notify(this.ctl, 0);
    this.thread = null;
    this.ready = false;
  }
}

module.exports = { Pacer, WAKE_LEAD_MS, SPIN_MS };
