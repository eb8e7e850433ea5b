'use strict';
// round.js — one measured round as a function: runRound(options) → Promise<{ code, roundId,
// text }>. The app and the loadgen up and scaled, the app seeded (and prewarmed), this process
// in the harness's cell (locally), the round inserted into the results database once its
// loadgens are idle (the loadgens' control plane), the shield up while it runs (locally),
// stats and router logs collected (ops/collect-stats.js, ops/collect-logs.js as child
// processes), the app timings flushed, crash events ingested, the verdict and summary made.
// options: run-round-args.js (parseRunRoundArgs for a command line, roundOptions for values);
// the steps: scripts/round/README.md. code: 0 done, 2 the round failed its own criteria;
// what stops a round before it ends (usage, configuration, a round that cannot start, a lost
// results database, SIGINT/SIGTERM: 130) is thrown as CliError (lib/arg-table.js). The caller
// (run-round.js, the experiment runner) is in the repository root (target.js enterRepository).
// Rounds run one after another in a process, not side by side: each takes SIGINT/SIGTERM
// while it runs, and lowers the process's priority and moves it into the harness's cell.
//
// The results database may go away for up to results-db.js outageToleranceMs() while the round
// runs: every statement of the round goes through one results-db.js Connection that reconnects
// with backoff, the app timings are flushed again while an instance answers 503, and the
// collectors hold their rows (ingest-cli.js). The time it was away is recorded with the
// round (rounds.db_outage_ms). From its insert to its final state the round gets a
// heartbeat (heartbeat.js); rounds whose control process is gone are reaped first.
//
// A round's state is two objects: the plan (round-plan.js), everything decided before the
// round is created, frozen; and live (startLive below), the little that changes while it
// runs. Each step takes (plan) or (plan, live); runRound reads as the round's sequence. The
// steps on the app: app-steps.js; the neighbours' usage over the round: round-usage.js; the
// events inside the round (--event: a cf scale or a rolling deployment): event-runner.js.
const os = require('node:os');
const path = require('node:path');
const { makeCli } = require('../ops/cli');
const { cfJsonOf, wholeSecondUtc } = require('../ops/target');
const { run, runAsync } = require('../ops/exec');
const { preparePlan } = require('./round-plan');
const { setRouteLoadbalancing, seedApp, prewarmInstances, eachInstance, timingsNotKept } = require('./app-steps');
const { roundDocument } = require('./round-doc');
const { createRound, NotReadyError } = require('./create-round');
const { waitRound } = require('./wait-round');
const { finishRound } = require('./finish-round');
const { startSteadyWatch } = require('./steady-watch');
const { Connection, outageToleranceMs } = require('../ops/results-db');
const { DRY_RUN } = require('../ops/collect');
const { startHeartbeat } = require('./heartbeat');
const { reapRounds, reapedLine } = require('./reap-rounds');
const { ensureResultsSchema, SCHEMA_VERSION } = require('../../lib/results-schema');
const { startRoundUsage } = require('./round-usage');
const { shield } = require('./local-cells');
const { ingestEvents: storeCrashEvents } = require('../parsers/ingest-events');
const { sleep } = require('../ops/sleep');
const { startEvents, printEvents, finalInstances } = require('./event-runner');
const { CliError } = require('../../lib/arg-table');

const cli = makeCli('run-round');
// The exit code of a round ended by SIGINT/SIGTERM (128 + SIGINT, as a shell reports it).
const EXIT_INTERRUPTED = 130;

/** Where the main line ends once an interrupt took over: after its clean-up, CliError 130. */
async function cancelled(live) {
  await live.cancelling;
  throw new CliError('', EXIT_INTERRUPTED);
}

// ---------------------------------------------------------------- during and after the round

/**
 * The round inserted once its loadgens are idle: sets live.roundId, live.createdAt and starts
 * the heartbeat; resolves the inserted row (null when interrupted).
 */
async function insertRound(plan, live) {
  const { t } = plan;
  const doc = await roundDocument(plan);
  let created;
  try {
    for (const reaped of await reapRounds(live.control)) cli.log(`reaped ${reapedLine(reaped)}`);
    created = await createRound(live.control, doc, {
      startLeadMs: t.leadMs, waitLoadgens: Number(plan.o.loadgens), readyTimeoutMs: t.readyMs, signal: live.abort.signal,
    });
  } catch (err) {
    if (live.interrupted) return null;
    if (err instanceof NotReadyError) throw new CliError(`create-round: ${err.message}`, 2);
    throw new CliError(`create-round: results database: ${err.message}`, 1);
  }
  live.roundId = created.id;
  live.createdAt = created.created_at;
  live.control.downMs = 0; // from here on the round's own
  live.heartbeat = startHeartbeat(live.control, live.roundId);
  return created;
}

/**
 * The results database stayed away longer than results-db.js outageToleranceMs(): the collectors are
 * stopped (they write what they can), the round is left to be reaped (its heartbeat stops).
 */
async function lostDatabase(live, err) {
  cli.log(`results database: ${err.message}: round ${live.roundId} not finished (no heartbeat now: `
    + 'the next run-round or `scripts/rounds.sh --reap` marks it failed)');
  if (live.heartbeat) live.heartbeat.stop();
  await stopCollectors(live);
  throw new CliError('', 2);
}

/** The collectors of stats and router logs in the background (run with --dry-run under --dry-run). */
async function startCollectors(plan, live) {
  const { p, o } = plan;
  const common = ['--app', o.app, '--round', String(live.roundId), '--platform', p.name];
  // Node runs their Node files itself: collect-*.sh only wrap them for a user's shell.
  const stats = [process.execPath, path.join(__dirname, '..', 'ops', 'collect-stats.js'), ...common, '--guid', plan.guid];
  const logs = collectLogsArgv(plan, live);
  const during = plan.t.routerLogAfterWindow ? [[...stats, '--source', plan.stats.source]] : [[...stats, '--source', plan.stats.source], logs];
  if (p.dryRun) {
    for (const argv of during.map((a) => [...a, '--dry-run'])) {
      const code = await run(argv, { stdout: 'inherit' });
      if (code !== 0) throw new CliError('', code);
    }
    return;
  }
  // Each in its own process group, as a bash background job ignores a terminal's SIGINT:
  // they are stopped with SIGTERM (they flush what they have), here or at exit. The URL
  // holds a password: it goes in their environment, never in argv (`ps` shows argv).
  const env = { ...process.env, RESULTS_DATABASE_URL: plan.dbUrl };
  for (const argv of during) live.collectors.push(runAsync(argv, { stdout: 'inherit', detached: true, env }));
}

/** scripts/ops/collect-logs.js for the round's app, then EXTRA. */
function collectLogsArgv({ p, o }, live, extra = []) {
  return [process.execPath, path.join(__dirname, '..', 'ops', 'collect-logs.js'), '--app', o.app, '--round', String(live.roundId),
    '--platform', p.name, ...extra];
}

/** Where routerLogAfterWindow: the router's lines since the round's insert, read once the loadgens are done. */
async function collectRouterLogAfter(plan, live) {
  const { p } = plan;
  if (!plan.t.routerLogAfterWindow) return;
  // created_at in ISO 8601 (create-round.js), its placeholder under --dry-run.
  const argv = collectLogsArgv(plan, live, ['--since', live.createdAt]);
  if (p.dryRun) {
    const code = await run([...argv, '--dry-run'], { stdout: 'inherit' });
    if (code !== 0) throw new CliError('', code);
    return;
  }
  // In live.collectors while it reads: an interrupt stops it (it stores what it has read).
  const c = runAsync(argv, { stdout: 'inherit', detached: true, env: { ...process.env, RESULTS_DATABASE_URL: plan.dbUrl } });
  live.collectors.push(c);
  const { code } = await c.done;
  live.collectors = live.collectors.filter((x) => x !== c);
  if (code !== 0) cli.log("the router's log lines were not all read or stored");
}

async function stopCollectors(live) {
  const list = live.collectors;
  live.collectors = [];
  for (const c of list) c.child.kill('SIGTERM');
  for (const c of list) {
    if ((await c.done).code !== 0) cli.log('a collector exited with an error');
  }
}

/**
 * Crash events of the app since the round was created → instance_events (printed under
 * --dry-run). CC reads created_ats[gt]=T as after the whole second T, and gives event times
 * in whole seconds (docs/cf-platform.md §9): so gte the second the round was created in, and
 * the same bound for the exact filter of ingest-events.js.
 */
function ingestEvents(plan, live) {
  const { p, o } = plan;
  const since = wholeSecondUtc(live.createdAt);
  const apiPath = `/v3/audit_events?target_guids=${plan.guid}&types=audit.app.process.crash`
    + `&created_ats[gte]=${since}&per_page=5000`;
  if (p.dryRun) {
    p.printCmd([...p.cf, 'curl', apiPath]);
    return Promise.resolve();
  }
  return (async () => {
    const look = await runAsync([...p.cf, 'curl', apiPath], { stdout: 'pipe' }).done;
    let json;
    try {
      cfJsonOf(apiPath, look);
      json = look.stdout;
    } catch (err) {
      cli.log(`crash events not ingested: ${err.message}`);
      return;
    }
    const log = (msg) => process.stderr.write(`ingest-events: ${msg}\n`);
    try {
      await storeCrashEvents(json, { db: plan.dbUrl, round: live.roundId, app: o.app, platform: p.name, since }, log);
    } catch (err) {
      cli.log(`crash events not ingested: ${err.message}`);
    }
  })();
}

/**
 * `cf logs loadgen --recent`, where a loadgen that exited with samples it could not store
 * said how many (finish-round reads it only when a loadgen died; '' when it cannot be read).
 */
async function loadgenRecentLog(p) {
  const res = await runAsync([...p.cf, 'logs', 'loadgen', '--recent'], { stdout: 'pipe' }).done;
  if (res.code === 0) return res.stdout;
  cli.log('cf logs loadgen --recent failed: loadgens that died are counted from router and app records only');
  return '';
}

/**
 * SIGINT/SIGTERM from here on: stop collecting, mark the round cancelled (live.cancelling);
 * the main line then ends with CliError 130 (cancelled). Returns the function that removes it.
 */
function onInterrupt(plan, live) {
  const { p, o } = plan;
  const remove = () => {
    process.removeListener('SIGINT', handler);
    process.removeListener('SIGTERM', handler);
  };
  function handler() {
    remove();
    live.interrupted = true;
    if (process.stderr.isTTY) process.stderr.write('\n');
    cli.log(`interrupted: cancelling round ${live.roundId}`);
    live.abort.abort();
    live.cancelling = (async () => {
      if (live.creating) await live.creating.catch(() => {});
      await stopCollectors(live);
      if (plan.t.routerLogAfterWindow && live.roundId !== DRY_RUN.round) {
        // Not read in the clean-up (it may take a while): log-cache keeps them for a while.
        cli.log(`the router's lines of round ${live.roundId} stay in log-cache: scripts/collect-logs.sh --app ${o.app} `
          + `--round ${live.roundId} --since ${live.createdAt}`);
      }
      if (p.name === 'local' && !p.dryRun) await shield(p, 0);
      if (live.roundId !== DRY_RUN.round) {
        await finishRound(live.control, { round: live.roundId, cancel: true, dbOutageMs: live.control.downMs }).catch(() => {});
      }
    })();
  }
  process.on('SIGINT', handler);
  process.on('SIGTERM', handler);
  return remove;
}

// ---------------------------------------------------------------- main

/**
 * What changes while the round runs, all of it, from the results database's connection on
 * (sealed: the functions here change these fields and add none).
 */
function startLive(plan) {
  return Object.seal({
    // The results-db.js Connection of every statement from here on (null under --dry-run).
    control: plan.p.dryRun ? null : new Connection(plan.dbUrl, 'run-round', { retryForMs: outageToleranceMs(), log: cli.log }),
    // The round's id and created_at once inserted; placeholders until then and under --dry-run.
    roundId: DRY_RUN.round,
    createdAt: DRY_RUN.createdAt,
    // insertRound's promise: an interrupt while the round is being created waits for it.
    creating: null,
    // heartbeat.js's { stop } from the insert until the round is final.
    heartbeat: null,
    // round-usage.js's readings (and their timers) from the insert on.
    usage: null,
    // The collectors running (exec.js runAsync's); stopCollectors empties the list.
    collectors: [],
    // event-runner.js's { done } while the round's --event list runs.
    events: null,
    // steady-watch.js's { stop } while the steady-state gate watches the round.
    gate: null,
    // SIGINT/SIGTERM came: the main line stops, onInterrupt's handler ends the round.
    interrupted: false,
    // The handler's clean-up (a promise) once an interrupt came.
    cancelling: null,
    // Aborted by the interrupt: stops the wait for the loadgens (to be idle, to finish).
    abort: new AbortController(),
  });
}

// Locally the harness shares the cores with what it measures. From the round's insert on,
// run-round and what it starts (the collectors, cf logs, their ingest) run at this nice
// level (CFSCALE_OBSERVER_NICE, 0-19; 0: as the rest), so that on contended cores the app,
// its database, the router and the loadgens go first; host-cpu.js shows what each part used.
const OBSERVER_NICE_DEFAULT = 10;

function observerNice() {
  const raw = process.env.CFSCALE_OBSERVER_NICE;
  const nice = raw === undefined || raw === '' ? OBSERVER_NICE_DEFAULT : Number(raw);
  if (!Number.isInteger(nice) || nice < 0 || nice > 19) cli.usageError(`CFSCALE_OBSERVER_NICE must be a nice level from 0 to 19, got "${raw}"`);
  return nice;
}

function yieldToTheMeasured(p, nice) {
  if (p.name !== 'local' || p.dryRun || nice === 0) return;
  try { os.setPriority(nice); } catch (e) { cli.log(`could not lower run-round's priority: ${e.message}`); }
}

// Locally the harness has CPUs of its own (`cfl cells`, docs/cf-platform.md §24): run-round,
// and the collectors and cf calls it starts, run there, never beside the app's instances.
// The shield outlasts the round's longest wait by this much, then lowers itself.
const SHIELD_MARGIN_S = 30;

async function joinHarnessCell(p) {
  if (p.name !== 'local' || p.dryRun) return;
  const r = await p.cflQuery('cells', '--join', String(process.pid), { stderr: 'pipe' });
  if (r.code !== 0) cli.log(`run-round stays outside the harness's cell: ${(r.stderr || '').trim()}`);
}

/**
 * One round (the header). o: validated options (run-round-args.js). Resolves { code, roundId,
 * text }: code 0 done or 2 failed its own criteria, the summary text (without `round_id=N`);
 * { code: 0, roundId: null, text: '' } under --dry-run. Throws CliError when it stops early.
 */
async function runRound(o) {
  const nice = observerNice();
  const plan = await preparePlan(cli, o);
  const { p } = plan;
  await joinHarnessCell(p);
  await setRouteLoadbalancing(plan);
  await seedApp(plan);
  await prewarmInstances(plan);
  if (!(await eachInstance(plan, 'POST', '/timings/clear', { retryUnknownInstance: true }))) cli.die('could not clear the app timings');

  yieldToTheMeasured(p, nice);
  const live = startLive(plan);
  const removeInterrupt = onInterrupt(plan, live);
  const killCollectors = () => { for (const c of live.collectors) c.child.kill('SIGTERM'); };
  process.on('exit', killCollectors);
  try {
    return await measure(plan, live, removeInterrupt);
  } finally {
    // A round that ended early leaves nothing running in this process: a next round may follow.
    removeInterrupt();
    process.removeListener('exit', killCollectors);
    killCollectors();
    if (live.gate) await live.gate.stop().catch(() => {});
    if (live.usage) live.usage.cancel();
    if (live.heartbeat) live.heartbeat.stop();
    if (live.control) await live.control.end();
  }
}

/** The round from its insert to its summary (runRound's second half). */
async function measure(plan, live, removeInterrupt) {
  const { p, o, t } = plan;
  if (!p.dryRun) {
    // A foundation's broker hands out an empty database; an older one lacks the newest views.
    try {
      if (await ensureResultsSchema((text, params) => live.control.query(text, params))) cli.log(`results database: results-schema.sql applied (version ${SCHEMA_VERSION})`);
    } catch (err) {
      if (!live.interrupted) await lostDatabase(live, err);
    }
    live.creating = insertRound(plan, live);
    const created = await live.creating;
    if (live.interrupted) return cancelled(live);
    // The neighbours' usage is measured from the end of the warm-up (the start with the gate).
    const fromMs = Math.max(0, new Date(created.start_at).getTime() + o.warmupMs - Date.now());
    live.usage = await startRoundUsage(p, { app: o.app, dbUrl: plan.dbUrl, withFrontProxies: Boolean(plan.frontUrls) }, fromMs);
    if (p.name === 'local') await shield(p, plan.maxWaitMs / 1000 + SHIELD_MARGIN_S);
    cli.log(`round ${live.roundId}: ${o.app} x${o.instances}, ${o.loadgens} loadgen(s), starts at ${created.start_at}`);
  }
  await startCollectors(plan, live);
  if (p.dryRun) printEvents(plan);
  if (!p.dryRun) {
    // The steady-state gate sets the measured window while the loadgens run.
    live.gate = o.steadyGate ? startSteadyWatch(live.control, { round: live.roundId, gate: o.steadyGate, durationMs: o.durationMs, log: cli.log }) : null;
    if (o.events.length) live.events = startEvents(plan, live, { log: cli.log });
    try {
      await waitRound(live.control, { round: live.roundId, deadlineMs: plan.maxWaitMs, signal: live.abort.signal });
    } catch (err) {
      if (!live.interrupted) await lostDatabase(live, err);
    }
    if (live.gate) await live.gate.stop();
    live.gate = null;
    // An event's watch may outlast the loadgens (a rolling deployment still under way).
    if (live.events) await live.events.done;
    if (live.interrupted) return cancelled(live);
    await live.usage.stop(live.control, live.roundId);
    if (p.name === 'local') await shield(p, 0);
  }
  // The router's last lines are on their way from the round's end: the flush overlaps the drain.
  const drainedAt = Date.now() + t.drainMs;
  const flushOpts = { retryUnavailableForMs: outageToleranceMs(), instances: finalInstances(o) };
  await timingsNotKept(plan, flushOpts.instances);
  if (!(await eachInstance(plan, 'POST', `/timings/flush?round=${live.roundId}`, flushOpts))) {
    cli.log('some app timings were not flushed');
  }
  if (live.interrupted) return cancelled(live);
  const events = ingestEvents(plan, live);
  if (!p.dryRun) await sleep(Math.max(0, drainedAt - Date.now()));
  await stopCollectors(live);
  await collectRouterLogAfter(plan, live);
  await events;
  if (live.interrupted) return cancelled(live);
  removeInterrupt();
  if (p.dryRun) return { code: 0, roundId: null, text: '' };
  let res;
  try {
    res = await finishRound(live.control, {
      round: live.roundId, maxErrorRate: Number(o.maxErrorRate), loadgenLog: () => loadgenRecentLog(p), dbOutageMs: live.control.downMs,
    });
  } catch (err) {
    return lostDatabase(live, err);
  }
  return { code: res.code, roundId: Number(live.roundId), text: res.text };
}

module.exports = { runRound, EXIT_INTERRUPTED };
