'use strict';
// The loadgen worker: idles until a round appears in the results database, runs
// the round's plan from rounds.start_at on (when its CF_INSTANCE_INDEX is below
// rounds.loadgens), streams samples through one long-lived sink, writes its
// loadgen_runs row, and waits for the next round. Stateless: any instance index
// can come and go (`cf scale loadgen -i 96`); a round already run by this index is
// skipped, so is one whose start is long past. Its control connection tells
// whether it is idle or busy (application_name, see control-plane.js). A round set
// to failed or cancelled while it runs is stopped. SIGTERM: stop sending, let
// in-flight requests finish briefly, flush or spool everything, exit in time; what
// could not be loaded by then is reported in one machine-readable stdout line (LOST_LINE).
// The control plane and the sink share one results-database connection (results-db.js).

const { performance } = require('node:perf_hooks');
const { ControlPlane } = require('./control-plane');
const { ResultsDb } = require('./results-db');
const { Sink } = require('./sink');
const { Run } = require('./run');
const { Health } = require('./health');
const { seedAds } = require('./seed');
const { runQueueWaitMs } = require('./run-queue');
const { planFromRound, runLengthMs, maskUrl, LATE_START_LIMIT_MS } = require('./config');
const { fmtUs } = require('./report');

const ROUND_FLUSH_TIMEOUT_MS = 60000;
const FINISH_RETRY_MS = 1000;
const STOP_GRACE_MAX_MS = 3000;    // share of the shutdown budget for in-flight requests
const SHUTDOWN_RESERVE_MS = 1500;  // kept for the final row update and exit
const PROGRESS_LOG_EVERY_S = 10;
const STATUS_CHECK_EVERY_S = 5;     // how often a running round's status is read
const STOP_ON_STATUS = new Set(['failed', 'cancelled']);
const SPIN_BEFORE_START_MS = 20;   // last stretch before start_at is waited actively
// On CF the spool goes with the container (docs/cf-platform.md §4): samples not loaded at
// exit are counted in one stdout line, which `cf logs` keeps, and the round reads it
// (scripts/parsers/loadgen-log-parser.js): `cfscale-loadgen-lost {"round_id":…,
// "loadgen_index":…,"lost":…,"recorded":…}` per round with samples left.
const LOST_LINE = 'cfscale-loadgen-lost';

class Worker {
  constructor(config, log) {
    this.config = config;
    this.log = log;
    this.index = config.instanceIndex;
    this.db = new ResultsDb(config.resultsUrl, { index: this.index, log });
    this.cp = new ControlPlane(this.db, log, this.index);
    this.sink = new Sink({ db: this.db, spoolDir: config.spoolDir, log });
    this.recorded = new Map(); // round id -> samples recorded by this life
    this.lostReported = false;
    this.checking = false;
    this.again = false;
    this.stopping = false;
    this.skipped = new Set();
    this.current = null;
    this.wakeSleep = null;
    this.lastCheckError = null;
    this.deadline = Infinity;
  }

  start() {
    const c = this.config;
    this.log(`instance ${this.index} waiting for rounds; results ${maskUrl(c.resultsUrl)}, poll ${c.pollMs} ms, ` +
      `batch ${c.batchRows} rows, spool ${c.spoolDir}, shutdown ${c.shutdownMs} ms`);
    this.cp.onNotify = () => this.wake();
    this.pollTimer = setInterval(() => this.wake(), c.pollMs);
    this.sink.kick(); // replays a spool left by an earlier life of this instance
    this.wake();
  }

  wake() {
    if (this.stopping) return;
    if (this.checking) { this.again = true; return; }
    this.checking = true;
    this.check().catch((err) => {
      if (this.lastCheckError !== err.message) this.log(`cannot read rounds: ${err.message}`);
      this.lastCheckError = err.message;
    }).finally(() => {
      this.checking = false;
      if (this.again) { this.again = false; this.wake(); }
    });
  }

  async check() {
    const rows = await this.cp.candidates(this.index);
    this.lastCheckError = null;
    for (const row of rows) {
      if (this.stopping) return;
      const lateMs = Number(row.db_now_ms) - Number(row.start_ms);
      const limitMs = runLengthMs(row) ?? LATE_START_LIMIT_MS;
      if (lateMs > limitMs) {
        if (!this.skipped.has(row.id)) this.log(`round ${row.id}: skipped, start_at was ${Math.round(lateMs)} ms ago (limit ${limitMs} ms)`);
        this.skipped.add(row.id);
        continue;
      }
      if (!(await this.cp.claim(row.id, this.index, this.config.instanceGuid, this.config.instanceHost))) continue;
      await this.cp.setState('busy');
      try {
        const clockOffsetMs = await this.cp.clockOffsetMs();
        this.roundDone = this.runRound(row, clockOffsetMs);
        await this.roundDone;
      } finally {
        if (!this.stopping) await this.cp.setState('idle');
      }
      this.again = true; // look for the next round at once
      return;
    }
  }

  async runRound(row, clockOffsetMs) {
    const id = row.id;
    let plan;
    try {
      plan = planFromRound(row, this.index);
      plan.insecure = this.config.tlsInsecure === true;
      if (plan.seedAds) await this.seed(plan, Number(row.start_ms) - clockOffsetMs);
    } catch (err) {
      this.log(`round ${id}: failed before start: ${err.message}`);
      await this.finishRow(id, { status: 'failed', detail: err.message.slice(0, 500) });
      return;
    }
    const startLocalMs = Number(row.start_ms) - clockOffsetMs;
    if (plan.durationMs) {
      const left = startLocalMs + plan.durationMs - Math.max(Date.now(), startLocalMs);
      if (left < plan.durationMs) this.log(`round ${id}: joining late, running ${Math.round(left)} of ${plan.durationMs} ms`);
      plan.durationMs = Math.max(1, Math.round(left));
    }
    this.log(`round ${id}: ${plan.model} ${plan.model === 'open' ? plan.rate + ' req/s' : plan.parallel + ' in flight'} ` +
      `${plan.scenario} -> ${plan.url}${plan.host ? ` (Host ${plan.host})` : ''}, starts in ${Math.round(startLocalMs - Date.now())} ms ` +
      `(database clock offset ${Math.round(clockOffsetMs)} ms)`);
    const waitedBeforeMs = runQueueWaitMs();
    await this.sleepUntil(startLocalMs);
    if (this.stopping) {
      await this.finishRow(id, { status: 'stopped', detail: 'stopped before start' });
      return;
    }
    const health = new Health().start();
    const spooledBefore = this.sink.batchesSpooled;
    const rejectedBefore = this.sink.batchesRejected;
    const run = new Run(plan, {
      sink: this.sink, roundId: id, loadgenIndex: this.index, batchRows: this.config.batchRows,
      onSecond: (s, ms) => this.onSecond(id, run, s, ms, clockOffsetMs),
      onStarted: () => {
        const waited = runQueueWaitMs();
        const cpuWait = waited === null || waitedBeforeMs === null ? '' : `, ${(waited - waitedBeforeMs).toFixed(1)} ms of it waiting for a CPU`;
        this.log(`round ${id}: started ${(Date.now() - startLocalMs).toFixed(1)} ms after start_at${cpuWait}`);
      },
    });
    this.current = run;
    this.cp.markStarted(id, this.index).catch(() => {});
    let summary;
    let status = 'done';
    let detail = `clock offset ${Math.round(clockOffsetMs)} ms`;
    try {
      summary = await run.start();
    } catch (err) {
      status = 'failed';
      detail += `; ${err.message}`;
      summary = run.stats.summary();
    }
    this.current = null;
    this.recorded.set(Number(id), summary.requests.sent);
    const h = health.stop();
    if (this.stopping && status === 'done') status = 'stopped';
    if (run.roundEnded) { status = 'stopped'; detail += `; round ${run.roundEnded}`; }
    const flushMs = this.stopping ? this.deadline - Date.now() - SHUTDOWN_RESERVE_MS : ROUND_FLUSH_TIMEOUT_MS;
    const f = await this.sink.flush(Math.max(0, flushMs));
    if (f.spoolPending > 0) detail += `; ${f.spoolPending} batches still spooled in ${this.config.spoolDir}`;
    const rejected = this.sink.batchesRejected - rejectedBefore;
    if (rejected > 0) { status = 'failed'; detail += `; ${rejected} batches rejected by the database, kept in ${this.config.spoolDir}/rejected`; }
    await this.finishRow(id, {
      status, detail, errors_by_kind: summary.errors_by_kind, late: summary.late, spooled_batches: this.sink.batchesSpooled - spooledBefore, ...h,
    });
    const l = summary.latency_us;
    this.log(`round ${id}: ${status}: ${summary.requests.sent} requests (${summary.requests.errors} errors, ${summary.late} late), ` +
      `${summary.requests.per_sec} req/s, p50 ${fmtUs(l.p50)} p99 ${fmtUs(l.p99)} max ${fmtUs(l.max)}, ` +
      `cpu ${h.cpu_user_ms + h.cpu_system_ms} ms, event loop p99 ${h.eloop_delay_p99_us} µs`);
  }

  onSecond(id, run, s, ms, clockOffsetMs) {
    const sec = Math.round(ms / 1000);
    if (sec % PROGRESS_LOG_EVERY_S === 0) {
      this.log(`round ${id}: ${sec}s ${s.count} req/s p50 ${fmtUs(s.p50)} p99 ${fmtUs(s.p99)} errors ${s.errors}`);
    }
    // A gated round is read every second until its stop_at is known: the window is
    // measured from the gate's decision, so the end must follow it closely.
    const awaitingStop = run.plan.gated && run.stopAtMs === undefined;
    if (sec % STATUS_CHECK_EVERY_S === 0 || awaitingStop) {
      this.cp.roundControl(id).then(({ status, stopMs }) => {
        if (STOP_ON_STATUS.has(status) && !run.roundEnded) {
          this.log(`round ${id}: ${status}, stopping`);
          run.roundEnded = status;
          run.stop(STOP_GRACE_MAX_MS);
        } else if (run.plan.gated && stopMs !== null && run.stopAtMs === undefined) {
          run.stopAtMs = stopMs;
          run.endAtWallMs(stopMs - clockOffsetMs);
          this.log(`round ${id}: steady-state gate decided, stopping in ${Math.round(stopMs - clockOffsetMs - Date.now())} ms`);
        }
      }, () => {});
    }
  }

  /** Instance 0 posts the missing ads; the others wait for them (until start). */
  async seed(plan, startLocalMs) {
    let s = await seedAds(plan.url, plan.seedAds, { host: plan.host, post: this.index === 0, insecure: plan.insecure });
    while (s.total < plan.seedAds && Date.now() < startLocalMs && !this.stopping) {
      await new Promise((r) => setTimeout(r, 500));
      s = await seedAds(plan.url, plan.seedAds, { host: plan.host, post: false, insecure: plan.insecure });
    }
    plan.idMin = s.idMin;
    plan.idMax = s.idMax;
  }

  /** Sleeps until a local wall-clock instant; the last few ms are waited actively. */
  async sleepUntil(atMs) {
    const target = performance.now() + (atMs - Date.now());
    const coarse = target - performance.now() - SPIN_BEFORE_START_MS;
    if (coarse > 0) {
      await new Promise((resolve) => {
        const t = setTimeout(resolve, coarse);
        this.wakeSleep = () => { clearTimeout(t); resolve(); };
      });
      this.wakeSleep = null;
    }
    while (!this.stopping && performance.now() < target) await new Promise((r) => setImmediate(r));
  }

  async finishRow(id, fields) {
    const f = { late: 0, spooled_batches: 0, ...fields };
    for (;;) {
      try {
        await this.cp.finish(id, this.index, f);
        return;
      } catch (err) {
        const left = (this.stopping ? this.deadline - SHUTDOWN_RESERVE_MS / 3 : Infinity) - Date.now();
        this.log(`round ${id}: cannot write loadgen_runs (${err.message}); ${left > FINISH_RETRY_MS ? 'retrying' : 'giving up'}`);
        if (left <= FINISH_RETRY_MS) return;
        await new Promise((r) => setTimeout(r, FINISH_RETRY_MS));
      }
    }
  }

  /** SIGTERM: stop sending, flush, write the row, resolve when it is safe to exit. */
  async shutdown() {
    if (this.stopping) return;
    this.stopping = true;
    this.deadline = Date.now() + this.config.shutdownMs;
    clearInterval(this.pollTimer);
    this.log('stopping: SIGTERM');
    this.cp.setState('stopping');
    if (this.wakeSleep) this.wakeSleep();
    if (this.current) this.current.stop(Math.min(this.current.plan.timeoutMs, STOP_GRACE_MAX_MS));
    if (this.checking && this.roundDone) await this.roundDone;
    await this.sink.flush(Math.max(0, this.deadline - Date.now() - SHUTDOWN_RESERVE_MS));
    this.reportLost();
    await Promise.race([Promise.all([this.sink.close(), this.cp.close()]), new Promise((r) => setTimeout(r, 500))]);
  }

  /**
   * On the way out: one LOST_LINE on stdout per round whose samples are not all in the
   * database (still in memory or in the spool). Synchronous and printed once, so the
   * forced exit at the end of the shutdown budget can call it too.
   */
  reportLost() {
    if (this.lostReported) return;
    this.lostReported = true;
    let pending;
    try {
      pending = this.sink.pendingRowsByRound();
    } catch (err) {
      this.log(`cannot count the samples left: ${err.message}`);
      return;
    }
    for (const [round, lost] of pending) {
      const line = { round_id: round, loadgen_index: this.index, lost };
      if (this.recorded.has(round)) line.recorded = this.recorded.get(round);
      process.stdout.write(`${LOST_LINE} ${JSON.stringify(line)}\n`);
    }
  }
}

module.exports = { Worker, LOST_LINE };
