'use strict';
// The load engine: a fixed set of connections driven by one of two models.
//
// closed: `parallel` requests in flight; each finished request is replaced at once
//         by the next on the same connection, for `requests` requests in all or
//         until `durationMs` has passed. Latency runs from the actual send.
// open:   a constant arrival rate. Request i is due at t0 + i/rate whether or not
//         the previous ones have come back (coordinated omission avoided): latency
//         runs from that intended time, and a request sent more than LATE_MS after
//         it (no free connection, or the generator's event loop lagged) counts as
//         late. At most `parallel` connections carry the requests. Requests due
//         before the end that never got a connection are not sent; they count as
//         `unsent` and as late. A pacer (pacer.js) wakes the schedule on time to within
//         tens of µs, and every sample carries its lateness (actual − intended send), the
//         generator's own share of its latency.
//
// The open model's schedule is exact: rate × duration sends, due at offsets i·1000/rate
// in [0, durationMs), each either sent or counted unsent; offsets are computed from the
// index (not by adding intervals), so float rounding can neither add nor drop one.
//
// One shared interval enforces per-request timeouts. stop() ends issuing, lets
// in-flight requests finish for a grace period, then aborts them: every sent
// request ends as exactly one sample (sent = ok + errors).

const { performance } = require('node:perf_hooks');
const { Connection } = require('./http-client');
const { Pacer } = require('./pacer');
const { KIND } = require('./stats');

const TIMEOUT_TICK_MS = 10;   // timeout resolution
const LATE_MS = 10;           // open model: sent this much after its intended time = late

class Engine {
  /**
   * opts: { target, scenario, model: 'closed'|'open', parallel, rate, durationMs,
   *         requests, timeoutMs, keepalive, onSample(conn, kind, endMs, late), pacer (open) }
   */
  constructor(opts) {
    this.opts = opts;
    this.open = opts.model === 'open'; // read per request: one field, not opts.model's string
    this.scenario = opts.scenario;
    this.onSample = opts.onSample;
    this.timeoutMs = opts.timeoutMs;
    this.connections = [];
    for (let i = 0; i < opts.parallel; i++) {
      this.connections.push(new Connection(this, opts.target, opts.scenario, opts.keepalive));
    }
    this.free = this.connections.slice().reverse();
    this.inFlight = 0;
    this.issued = 0;
    this.unsent = 0;
    this.stopping = false;
    this.finished = false;
    // open model: the pacer, started beforehand by the caller (run.js waits for its thread), or one of its own
    this.pacer = opts.model === 'open' ? opts.pacer || new Pacer() : null;
    if (this.pacer !== null) this.pacer.onWake = () => this.dispatch();
    this.waiting = false; // open model: the pacer will call dispatch() at the next due time
    this.endTimer = null;
    this.timeoutTimer = null;
    this.abortTimer = null;
    this.resolve = null;
  }

  /** Runs to the end (or stop()); resolves with { startedMs, endedMs, issued }. */
  run() {
    return new Promise((resolve) => {
      this.resolve = resolve;
      const o = this.opts;
      if (this.pacer !== null) this.pacer.start(); // when the caller did not
      this.startMs = performance.now();
      this.endMs = o.durationMs ? this.startMs + o.durationMs : Infinity;
      this.maxRequests = o.requests || Infinity;
      this.timeoutTimer = setInterval(() => this.checkTimeouts(), TIMEOUT_TICK_MS);
      if (o.durationMs) this.endTimer = setTimeout(() => this.onEndTimer(), o.durationMs);
      if (o.model === 'open') {
        this.dispatch();
      } else {
        for (const conn of this.connections) {
          if (!this.mayIssue(performance.now())) break;
          this.issue(conn, 0);
        }
        this.free.length = 0;
        this.maybeFinish();
      }
    });
  }

  mayIssue(now) {
    return !this.stopping && this.issued < this.maxRequests && now < this.endMs;
  }

  issue(conn, intendedMs) {
    this.issued++;
    this.inFlight++;
    conn.send(this.scenario.pick(), intendedMs, this.timeoutMs);
  }

  /** Open model: when request i is due, in ms after the start. */
  offsetMs(i) {
    return (i * 1000) / this.opts.rate;
  }

  /** Open model: how many requests are due before `untilMs` after the start (offset < untilMs). */
  dueBefore(untilMs) {
    if (!Number.isFinite(untilMs)) return this.maxRequests;
    let n = Math.max(0, Math.ceil((untilMs * this.opts.rate) / 1000));
    while (n > 0 && this.offsetMs(n - 1) >= untilMs) n--;
    while (this.offsetMs(n) < untilMs) n++;
    return Math.min(n, this.maxRequests);
  }

  /** Open model: sends every request that is due, as far as connections allow. */
  dispatch() {
    this.waiting = false;
    const now = performance.now();
    while (!this.stopping && this.issued < this.maxRequests) {
      const offset = this.offsetMs(this.issued);
      if (offset >= this.durationLimitMs()) { this.endIssuing(this.durationLimitMs()); return; }
      const intended = this.startMs + offset;
      if (intended > now) {
        this.waiting = true;
        this.pacer.wakeAt(intended);
        return;
      }
      const conn = this.free.pop();
      if (conn === undefined) return; // complete() calls us again
      this.issue(conn, intended);
    }
    this.maybeFinish();
  }

  /** Called by a connection for every finished request. */
  complete(conn, kind) {
    this.inFlight--;
    const endMs = performance.now();
    if (kind === KIND.ok) {
      const s = conn.parser.status;
      if (s < 200 || s > 299) kind = KIND.status;
    }
    const late = this.open && conn.startedMs - conn.intendedMs > LATE_MS;
    this.onSample(conn, kind, endMs, late);
    if (this.open) {
      this.free.push(conn);
      if (!this.waiting && !this.stopping) this.dispatch();
      else this.maybeFinish();
    } else if (this.mayIssue(endMs)) {
      this.issue(conn, 0);
    } else {
      this.maybeFinish();
    }
  }

  checkTimeouts() {
    const now = performance.now();
    for (const conn of this.connections) {
      if (conn.busy && now >= conn.deadlineMs) conn.timeout();
    }
  }

  durationLimitMs() {
    return this.opts.durationMs || Infinity;
  }

  /**
   * The duration is over. Open model: while dispatch() waits for the next due time it ends
   * the schedule itself at exactly durationMs (a timer may fire a little early); stalled
   * for want of a free connection, every request due before the end is unsent.
   */
  onEndTimer() {
    this.endTimer = null;
    if (this.opts.model === 'open' && this.waiting) return;
    this.endIssuing(this.durationLimitMs());
  }

  /** Stops issuing; open model: requests due before `untilMs` (default: now) but never sent are unsent. */
  endIssuing(untilMs = performance.now() - this.startMs) {
    if (!this.stopping && this.opts.model === 'open') {
      const due = this.dueBefore(Math.min(this.durationLimitMs(), untilMs));
      this.unsent = Math.max(0, due - this.issued);
    }
    this.stopping = true;
    if (this.waiting) { this.pacer.cancel(); this.waiting = false; }
    this.maybeFinish();
  }

  /**
   * Moves the end of a duration run to `durationMs` after the start (the steady-state
   * gate's stop_at): as if the run had been given that duration; an end already past ends
   * issuing now (open model: the schedule ends at the new duration).
   */
  endAt(durationMs) {
    if (this.finished || this.stopping || !this.opts.durationMs) return;
    this.opts = { ...this.opts, durationMs: Math.max(1, durationMs) };
    this.endMs = this.startMs + this.opts.durationMs;
    if (this.endTimer !== null) clearTimeout(this.endTimer);
    this.endTimer = setTimeout(() => this.onEndTimer(), Math.max(0, this.endMs - performance.now()));
  }

  /** Stops issuing; in-flight requests get `graceMs` to finish, then are aborted. */
  stop(graceMs) {
    this.endIssuing();
    if (this.finished || this.abortTimer !== null) return;
    this.abortTimer = setTimeout(() => {
      for (const conn of this.connections) if (conn.busy) conn.abort();
    }, Math.max(0, graceMs));
  }

  maybeFinish() {
    if (this.finished || this.inFlight > 0) return;
    if (!this.stopping && this.issued < this.maxRequests && performance.now() < this.endMs) return;
    this.finished = true;
    this.stopping = true;
    for (const t of [this.endTimer, this.abortTimer]) if (t !== null) clearTimeout(t);
    if (this.pacer !== null) this.pacer.stop();
    clearInterval(this.timeoutTimer);
    for (const conn of this.connections) conn.drop();
    this.resolve({ startedMs: this.startMs, endedMs: performance.now(), issued: this.issued, unsent: this.unsent });
  }
}

module.exports = { Engine, LATE_MS, TIMEOUT_TICK_MS };
