'use strict';
// One run of a plan: resolves the target once, builds the scenario and the engine,
// and routes every finished request to the statistics and, when persisting, to the
// current sample batch, which goes to the sink when full and when its oldest sample
// is BATCH_MAX_AGE_MS old. Shared by the CLI and the worker; they differ only in where the plan
// comes from and what happens with the result.

const dns = require('node:dns').promises;
const { performance } = require('node:perf_hooks');
const net = require('node:net');
const { Engine } = require('./engine');
const { Pacer } = require('./pacer');
const { Scenario } = require('./scenario');
const { Stats, SECOND_MS } = require('./stats');
const { SampleBatch } = require('./sample-batch');
const { setInstanceTag } = require('./uuidv7');

const DEFAULT_BATCH_ROWS = 10000;
// A batch closes by time as well as by size: a killed loadgen loses the open batch and
// the one being loaded, at most 250 ms of samples. 100 ms leaves the rest for
// that COPY (tens of ms for 100 ms of samples; bench/kill-loss.sh: 200 ms batches missed
// the bound on a busy machine).
const BATCH_MAX_AGE_MS = 100;

/** Resolves host name and port of a URL once (no DNS lookup per connection). */
async function resolveTarget(url) {
  const u = new URL(url);
  const isTls = u.protocol === 'https:';
  const hostname = u.hostname.replace(/^\[|\]$/g, '');
  const host = net.isIP(hostname) ? hostname : (await dns.lookup(hostname)).address;
  return {
    host,
    port: Number(u.port) || (isTls ? 443 : 80),
    tls: isTls,
    servername: net.isIP(hostname) ? undefined : hostname,
    hostHeader: u.host,
    basePath: u.pathname,
    path: u.pathname + u.search,
  };
}

class Run {
  /**
   * plan: normalised plan (see config.js); opts: { sink (optional), batchRows,
   * roundId, loadgenIndex, onSecond(stats.lastSecond, elapsedMs), batchMaxAgeMs (bench only) }
   */
  constructor(plan, opts = {}) {
    this.plan = plan;
    this.opts = opts;
    this.stats = new Stats();
    this.sink = opts.sink || null;
    this.batch = this.sink ? new SampleBatch(opts.batchRows || DEFAULT_BATCH_ROWS) : null;
    this.engine = null;
    this.stopRequested = null;
    this.endRequested = null;
  }

  async start() {
    const p = this.plan;
    const target = await resolveTarget(p.url);
    target.rejectUnauthorized = !p.insecure;
    const scenario = new Scenario({
      basePath: target.basePath, path: target.path, hostHeader: p.host || target.hostHeader,
      keepalive: p.keepalive, scenario: p.scenario, weights: p.weights, idMin: p.idMin, idMax: p.idMax,
      pageLimit: p.pageLimit, offsetMax: p.offsetMax, randomSeed: p.randomSeed,
      method: p.method, headers: p.headers, body: p.body,
    });
    const stats = this.stats;
    const batch = this.batch;
    const open = p.model === 'open';
    const roundId = Number(this.opts.roundId) || 0; // a bigint comes from pg as a string
    const loadgenIndex = this.opts.loadgenIndex || 0;
    const release = batch !== null ? (buf) => batch.release(buf) : null;
    let openedMs = 0; // when the open batch got its first sample (performance.now())
    const flushBatch = () => {
      const buf = batch.encodeBinary(roundId, loadgenIndex);
      this.sink.push(buf, release, { rows: batch.lastRows, ok: batch.lastOk, roundId, loadgenIndex, openedMs });
    };
    // Correlation ids carry the loadgen index: the router's and the apps' records then
    // tell which instance sent a request that never reached `requests` (a killed one).
    if (this.opts.loadgenIndex !== undefined) setInstanceTag(loadgenIndex);
    // The open model's clock is up before its first send is due (pacer.js).
    const pacer = open ? new Pacer() : undefined;
    if (pacer !== undefined) await pacer.start();
    this.engine = new Engine({ pacer,
      target, scenario, model: p.model, parallel: p.parallel, rate: p.rate, durationMs: p.durationMs,
      requests: p.requests, timeoutMs: p.timeoutMs, keepalive: p.keepalive,
      onSample: (conn, kind, endMs, late) => {
        const latencyUs = (endMs - conn.intendedMs) * 1000;
        const pr = conn.parser;
        stats.record(kind, pr.status, latencyUs, pr.bodyBytes, late, conn.startedMs, endMs);
        if (open) stats.recordLateness((conn.startedMs - conn.intendedMs) * 1000);
        if (batch === null) return;
        if (batch.length === 0) openedMs = endMs;
        if (batch.add(conn, kind, latencyUs)) flushBatch();
      },
    });
    const t0 = Date.now();
    const secondTimer = setInterval(() => {
      const s = stats.rollSecond();
      if (this.opts.onSecond) this.opts.onSecond(s, Date.now() - t0);
    }, SECOND_MS);
    const batchTimer = batch === null ? null : setInterval(() => { if (batch.length > 0) flushBatch(); },
      this.opts.batchMaxAgeMs || BATCH_MAX_AGE_MS);
    const done = this.engine.run();
    if (this.opts.onStarted) this.opts.onStarted();
    if (this.endRequested !== null) this.endAtWallMs(this.endRequested);
    if (this.stopRequested !== null) this.engine.stop(this.stopRequested);
    try {
      const r = await done;
      stats.unsent = r.unsent;
      stats.late += r.unsent;
    } finally {
      clearInterval(secondTimer);
      if (batchTimer !== null) clearInterval(batchTimer);
    }
    if (batch !== null && batch.length > 0) flushBatch();
    return stats.summary();
  }

  /** Ends a duration run at a wall-clock instant (ms) instead: the steady-state gate's stop_at. */
  endAtWallMs(wallMs) {
    const e = this.engine;
    if (e === null || e.startMs === undefined) { this.endRequested = wallMs; return; }
    e.endAt(performance.now() - e.startMs + (wallMs - Date.now()));
  }

  /** Stop sending; in-flight requests get `graceMs`, then count as aborted. */
  stop(graceMs) {
    if (this.engine !== null) this.engine.stop(graceMs);
    else this.stopRequested = graceMs;
  }
}

module.exports = { Run, resolveTarget, DEFAULT_BATCH_ROWS, BATCH_MAX_AGE_MS };
