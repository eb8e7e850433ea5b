'use strict';
// Counters and latency histograms of one run. Every sample lands in two HDR histograms
// (hdr-histogram-js): the run's total and the current second's, which is read and reset each
// second for the progress line and the worker log. Folding the second into the total instead
// walked the whole counts array once a second, a pause of 1-3 ms that made the open model's
// sends due then late; a second recordValue per sample costs tens of ns.
// Failures are data: a sample carries an error kind, counted here by kind. The open model's
// samples also carry their send lateness (actual − intended send), in a histogram of its own:
// the generator's share of the latency, kept apart from the server's.
// Only the package's Int32Histogram is loaded, what its build() gives for bitBucketSize 32 (the
// package's index pulls in WebAssembly and encoders: ~40 ms of CPU at every start), and a
// sample's counts index is computed once, in integer math, for both histograms (recordValue
// computes it with Math.log2 and Math.pow, per histogram).

const Int32Histogram = require('hdr-histogram-js/dist/Int32Histogram').default;

const ERROR_KINDS = [null, 'timeout', 'connect', 'reset', 'status', 'parse', 'aborted'];
const KIND = { ok: 0, timeout: 1, connect: 2, reset: 3, status: 4, parse: 5, aborted: 6 };
const HIGHEST_TRACKABLE_US = 3600e6;  // one hour; longer latencies are clamped
const SECOND_MS = 1000;
// A generator whose send lateness p99 exceeds this share of the measured p50 added a visible
// part of what it measured (the report's 'generator-late' flag reads the same share).
const LATENESS_P99_MAX_SHARE = 0.1;

const SIGNIFICANT_DIGITS = 3;
const SUB_BUCKET_HALF_MAGNITUDE = 10; // 2 × 10^3 values at unit resolution need 2^11 sub-buckets

function newHistogram() {
  const h = new Int32Histogram(1, HIGHEST_TRACKABLE_US, SIGNIFICANT_DIGITS);
  h.autoResize = false;
  return h;
}

/**
 * The counts index of `us` (1 <= us <= HIGHEST_TRACKABLE_US < 2^32) in a histogram of
 * newHistogram()'s layout: recordValue's index (test/stats.test.js holds them equal).
 */
function countsIndex(us) {
  const v = us >>> 0; // floor: the index is that of floor(us)
  const bucket = Math.max(31 - Math.clz32(v) - SUB_BUCKET_HALF_MAGNITUDE, 0);
  return (bucket << SUB_BUCKET_HALF_MAGNITUDE) + (v >>> bucket);
}

/** A latency in µs within what a histogram tracks (1 to HIGHEST_TRACKABLE_US). */
const clampUs = (us) => (us < 1 ? 1 : us > HIGHEST_TRACKABLE_US ? HIGHEST_TRACKABLE_US : us);

/** recordValue(us) with its index given. */
function recordAt(h, index, us) {
  h.incrementCountAtIndex(index);
  h.updateMinAndMax(us);
  h.incrementTotalCount();
}

class Stats {
  constructor() {
    this.total = newHistogram();
    this.second = newHistogram();
    this.lateness = null; // open model: send lateness, µs
    this.sent = 0;
    this.ok = 0;
    this.errors = 0;
    this.late = 0;
    this.unsent = 0;
    this.bytes = 0;
    this.byKind = new Float64Array(ERROR_KINDS.length);
    this.byStatus = new Float64Array(1000); // counts by HTTP status (0-999)
    this.secondCount = 0;
    this.secondErrors = 0;
    this.lastSecond = { count: 0, errors: 0, p50: 0, p99: 0, max: 0 };
    this.firstStartMs = 0;
    this.lastEndMs = 0;
  }

  /** One finished request. Times are performance.now() milliseconds. */
  record(kind, status, latencyUs, bytes, late, startedMs, endMs) {
    this.sent++;
    if (kind === 0) this.ok++; else { this.errors++; this.byKind[kind]++; }
    if (late) this.late++;
    this.bytes += bytes;
    if (status !== 0) this.byStatus[status]++;
    const us = clampUs(latencyUs);
    const index = countsIndex(us);
    recordAt(this.second, index, us);
    recordAt(this.total, index, us);
    this.secondCount++;
    if (kind !== 0) this.secondErrors++;
    if (this.firstStartMs === 0 || startedMs < this.firstStartMs) this.firstStartMs = startedMs;
    if (endMs > this.lastEndMs) this.lastEndMs = endMs;
  }

  /** Open model: one sample's send lateness (actual − intended send), µs. */
  recordLateness(us) {
    if (this.lateness === null) this.lateness = newHistogram();
    const v = clampUs(us);
    recordAt(this.lateness, countsIndex(v), v);
  }

  /** The open model's send lateness percentiles (µs), or null (closed model: sent when measured). */
  latenessSummary() {
    const h = this.lateness;
    if (h === null || h.totalCount === 0) return null;
    const pct = (p) => Math.round(h.getValueAtPercentile(p));
    return { p50: pct(50), p90: pct(90), p99: pct(99), max: Math.round(h.maxValue) };
  }

  /** Closes the current second: folds it into the total, keeps its figures. */
  rollSecond() {
    const h = this.second;
    this.lastSecond = {
      count: this.secondCount,
      errors: this.secondErrors,
      p50: this.secondCount ? h.getValueAtPercentile(50) : 0,
      p99: this.secondCount ? h.getValueAtPercentile(99) : 0,
      max: this.secondCount ? h.maxValue : 0,
    };
    h.reset();
    this.secondCount = 0;
    this.secondErrors = 0;
    return this.lastSecond;
  }

  errorsByKind() {
    const out = {};
    for (let k = 1; k < ERROR_KINDS.length; k++) if (this.byKind[k] > 0) out[ERROR_KINDS[k]] = this.byKind[k];
    return out;
  }

  /** The run's result as one plain object (the CLI's --json shape). */
  summary(extra = {}) {
    this.rollSecond();
    const h = this.total;
    const n = h.totalCount;
    const elapsedMs = this.lastEndMs > this.firstStartMs ? this.lastEndMs - this.firstStartMs : 0;
    const pct = (p) => (n ? Math.round(h.getValueAtPercentile(p)) : 0);
    const statusCodes = {};
    for (let k = 1; k < this.byStatus.length; k++) if (this.byStatus[k] > 0) statusCodes[k] = this.byStatus[k];
    return {
      ...extra,
      duration_ms: Math.round(elapsedMs),
      requests: {
        total: this.sent,
        sent: this.sent,
        ok: this.ok,
        errors: this.errors,
        per_sec: elapsedMs > 0 ? round2(this.sent / (elapsedMs / SECOND_MS)) : 0,
        ok_per_sec: elapsedMs > 0 ? round2(this.ok / (elapsedMs / SECOND_MS)) : 0,
      },
      latency_us: {
        min: n ? Math.round(h.minNonZeroValue) : 0,
        mean: n ? Math.round(h.mean) : 0,
        p50: pct(50),
        p90: pct(90),
        p99: pct(99),
        p999: pct(99.9),
        max: n ? Math.round(h.maxValue) : 0,
      },
      lateness_us: this.latenessSummary(),
      errors_by_kind: this.errorsByKind(),
      status_codes: statusCodes,
      late: this.late,
      unsent: this.unsent,
      bytes: this.bytes,
    };
  }
}

function round2(x) { return Math.round(x * 100) / 100; }

module.exports = { Stats, ERROR_KINDS, KIND, SECOND_MS, LATENESS_P99_MAX_SHARE, newHistogram, countsIndex, recordAt };
