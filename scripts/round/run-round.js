#!/usr/bin/env node
'use strict';
// run-round.js — scripts/run-round.sh: one measured round. The app and the loadgen up and
// scaled, the app seeded (and prewarmed), the round inserted into the results database
// once its loadgens are idle (the loadgens' control plane), stats and router logs
// collected (collect-stats.sh, collect-logs.sh as child processes), the app timings
// flushed, crash events ingested, the verdict and summary printed, `round_id=N` last.
// Help, options, defaults and exit codes: run-round-args.js (run-round.sh --help); the
// steps: scripts/round/README.md. SIGINT/SIGTERM once the round is being created: the
// collectors stopped, the round marked cancelled, exit 130.
//
// The results database may go away for up to results-db.js outageToleranceMs() while the round
// runs: every statement of run-round goes through one results-db.js Connection that reconnects
// with backoff, the app timings are flushed again while an instance answers 503, and the
// collectors hold their rows (ingest-cli.js). The time it was away is recorded with the
// round (rounds.db_outage_ms). From its insert to its final state the round gets a
// heartbeat (heartbeat.js); rounds whose control process is gone are reaped first.
//
// A round's state is two objects: the plan (prepare), everything decided before the round is
// created, frozen; and live (startLive), the little that changes while it runs. Each step
// takes (plan) or (plan, live).
const os = require('node:os');
const path = require('node:path');
const { makeCli, parseDurationMs } = require('../ops/cli');
const { selectPlatform, cfJsonOf } = require('../ops/target');
const apps = require('../ops/apps');
const { runSync, runAsync } = require('../ops/exec');
const { parseRunRoundArgs } = require('./run-round-args');
const { roundDocument } = require('./round-doc');
const { createRound, NotReadyError } = require('./create-round');
const { waitRound } = require('./wait-round');
const { finishRound } = require('./finish-round');
const { startSteadyWatch } = require('./steady-watch');
const { Connection, outageToleranceMs } = require('../ops/results-db');
const { startHeartbeat } = require('./heartbeat');
const { reapRounds, reapedLine } = require('./reap-rounds');
const { resolveStatsSource, statsIntervalSec } = require('../ops/stats-source');
const { requireCfCli } = require('../ops/cf-version');
const { pinnedRequest, instanceRequest, printedRequest } = require('../ops/pinned-request');
const { readControlToken } = require('../ops/control-token');
const { skipSslValidation } = require('../ops/tls');
const frontProxies = require('./front-proxies');
const { ensureResultsSchema, SCHEMA_VERSION } = require('../../lib/results-schema');
const { startRoundUsage } = require('./round-usage');
const { ingestEvents: storeCrashEvents } = require('../parsers/ingest-events');

const cli = makeCli('run-round');
const LOADGEN_CLI = 'loadgen/bin/loadgen.js';
const PREWARM_PARALLEL = 8;
const DEFAULT_REQUESTS_MAX_WAIT = '10m';
// Per-route options: `cf update-route -o` from cf CLI 8.9.1, CC API 3.183.0, and CC took
// the spelling least-connection from 3.187.0 (docs/cf-platform.md §11).
const LOADBALANCING_CLI = '8.9.1';
const LOADBALANCING_CC = 'CC API >= 3.183.0 (least-connection: >= 3.187.0; docs/cf-platform.md §11)';
const PER_PLATFORM = {
  // leadMs: between inserting the round and its start_at, every loadgen must have woken
  // and prepared; a NOTIFY is instant locally, CF adds network and the polling fallback.
  // readyMs: how long to wait for every loadgen to be connected and idle before creating
  // the round (just pushed or restarted instances need to start; on CF starting a
  // container and connecting through the tunnel take longer).
  // marginMs: added to duration + warm-up + timeout for the default --max-wait.
  // drainMs: Gorouter access lines reach `cf logs` with a delay; time for them before
  // the log collector stops. `cf logs` itself reads log-cache 2 s behind (its walk delay,
  // docs/cf-platform.md §10), then polls every 250 ms.
  local: Object.freeze({ leadMs: 1500, readyMs: 60000, marginMs: 15000, drainMs: 2500 }),
  cf: Object.freeze({ leadMs: 5000, readyMs: 120000, marginMs: 30000, drainMs: 5000 }),
};

// The app timings flush answered 503 (the instance's results database connection failed):
// asked again after this long, doubling up to the maximum, for results-db.js outageToleranceMs().
const FLUSH_RETRY_MIN_MS = 1000;
const FLUSH_RETRY_MAX_MS = 5000;

const { sleep } = require('../ops/sleep');
// Where the main line stops once an interrupt took over (the handler exits the process).
const parked = () => new Promise(() => {});

// ---------------------------------------------------------------- the steps before the round

/** --loadbalancing on the app's route: a per-route option of Gorouter (docs/cf-platform.md §11). */
function setRouteLoadbalancing(plan) {
  const { p, o } = plan;
  if (!o.loadbalancing) return;
  let host = `<${o.app}-host>`;
  let domain = `<${o.app}-domain>`;
  if (plan.route) {
    host = plan.route.host;
    domain = plan.route.url.split('/')[0];
    if (domain.startsWith(`${host}.`)) domain = domain.slice(host.length + 1);
  }
  p.cfRun('update-route', domain, '--hostname', host, '-o', `loadbalancing=${o.loadbalancing}`);
}

/**
 * The app holds --seed-ads ads before the round is created, seeded with the loadgen's own
 * code: seeding inside the start lead made the loadgens start late. Exit 2 when it fails.
 */
function seedApp(plan) {
  const { p, o } = plan;
  if (!(Number(o.seedAds) > 0)) return;
  const args = ['node', LOADGEN_CLI, '--url', plan.baseUrl, '--seed', o.seedAds, '--seed-only'];
  if (plan.hostHeader) args.push('--host', plan.hostHeader);
  if (plan.insecure) args.push('--insecure');
  if (p.run(args) !== 0) {
    cli.log(`could not seed ${o.seedAds} ads into ${o.app}`);
    process.exit(2);
  }
}

/**
 * --prewarm requests to each instance, pinned (X-Cf-App-Instance), with the loadgen CLI:
 * reads among the seeded ads, else /health. Before the timings are cleared.
 */
function prewarmInstances(plan) {
  const { p, o } = plan;
  if (!(Number(o.prewarm) > 0)) return;
  for (let i = 0; i < Number(o.instances); i++) {
    const args = ['node', LOADGEN_CLI, '--requests', o.prewarm, '--parallel', String(PREWARM_PARALLEL), '--no-progress',
      '--max-error-rate', '0', '-H', `X-Cf-App-Instance: ${plan.guid}:${i}`];
    if (plan.hostHeader) args.push('--host', plan.hostHeader);
    if (plan.insecure) args.push('--insecure');
    if (Number(o.seedAds) > 0) args.push('--url', plan.baseUrl, '--scenario', 'read', '--seed', o.seedAds);
    else args.push('--url', `${plan.baseUrl}/health`);
    if (p.dryRun) p.printCmd(args);
    else if (runSync(args, { stdout: 'ignore' }) !== 0) cli.die(`prewarming ${o.app} instance ${i} failed`);
  }
}

/**
 * One request per app instance, in parallel (printed in order under --dry-run), each
 * output line on stderr prefixed APP/INDEX. Resolves false when any request failed.
 * retryUnavailableForMs: an instance that answers 503 is asked again, with backoff, for
 * this long (the timings flush: the app keeps its buffer until a flush has worked).
 * retryUnknownInstance: Gorouter's 400 for an instance it does not know yet is retried
 * (pinned-request.js): the clear follows a scale-up.
 */
async function eachInstance(plan, method, urlPath, { retryUnknownInstance = false, retryUnavailableForMs = 0 } = {}) {
  const { p, o } = plan;
  const n = Number(o.instances);
  const reqOf = (i) => instanceRequest(plan.baseUrl, plan.hostHeader, plan.guid, i, method, urlPath, { insecure: plan.insecure });
  if (p.dryRun) {
    for (let i = 0; i < n; i++) p.printCmd(printedRequest(reqOf(i), { auth: true }));
    return true;
  }
  const said = Array.from({ length: n }, () => new Set()); // a line repeated by a retry is shown once
  const onLine = (i) => (line) => {
    if (!said[i].has(line)) process.stderr.write(`${o.app}/${i}: ${line}\n`);
    said[i].add(line);
  };
  const t0 = Date.now();
  let left = Array.from({ length: n }, (_, i) => i);
  for (let delayMs = FLUSH_RETRY_MIN_MS; ; delayMs = Math.min(2 * delayMs, FLUSH_RETRY_MAX_MS)) {
    const res = await Promise.all(left.map((i) => pinnedRequest(reqOf(i), { token: plan.controlToken, retryUnknownInstance, onLine: onLine(i) })));
    if (res.some((x) => x.code !== 0 && x.status !== 503)) return false;
    left = left.filter((_, k) => res[k].code !== 0);
    if (left.length === 0) return true;
    if (Date.now() + delayMs - t0 > retryUnavailableForMs) return false;
    await sleep(delayMs);
  }
}

// ---------------------------------------------------------------- during and after the round

/**
 * The round inserted once its loadgens are idle: sets live.roundId, live.createdAt and starts
 * the heartbeat; resolves the inserted row (null when interrupted).
 */
async function insertRound(plan, live) {
  const { t } = plan;
  const doc = roundDocument(plan);
  let created;
  try {
    for (const reaped of await reapRounds(live.control)) cli.log(`reaped ${reapedLine(reaped)}`);
    created = await createRound(live.control, doc, {
      startLeadMs: t.leadMs, waitLoadgens: Number(plan.o.loadgens), readyTimeoutMs: t.readyMs, signal: live.abort.signal,
    });
  } catch (err) {
    if (live.interrupted) return null;
    if (err instanceof NotReadyError) {
      process.stderr.write(`create-round: ${err.message}\n`);
      process.exit(2);
    }
    process.stderr.write(`create-round: results database: ${err.message}\n`);
    return process.exit(1);
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
  process.exit(2);
}

/** The collectors of stats and router logs in the background (run with --dry-run under --dry-run). */
function startCollectors(plan, live) {
  const { p, o } = plan;
  const common = ['--app', o.app, '--round', String(live.roundId), '--platform', p.name];
  // Node runs their Node files itself: collect-*.sh only wrap them for a user's shell.
  const stats = [process.execPath, path.join(__dirname, '..', 'ops', 'collect-stats.js'), ...common, '--guid', plan.guid];
  const logs = [process.execPath, path.join(__dirname, '..', 'ops', 'collect-logs.js'), ...common];
  if (p.dryRun) {
    for (const argv of [[...stats, '--source', plan.stats.source, '--dry-run'], [...logs, '--dry-run']]) {
      const code = runSync(argv, { stdout: 'inherit' });
      if (code !== 0) process.exit(code);
    }
    return;
  }
  // Each in its own process group, as a bash background job ignores a terminal's SIGINT:
  // they are stopped with SIGTERM (they flush what they have), here or at exit.
  for (const argv of [[...stats, '--db', plan.dbUrl, '--source', plan.stats.source], [...logs, '--db', plan.dbUrl]]) {
    live.collectors.push(runAsync(argv, { stdout: 'inherit', detached: true }));
  }
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
 * An ISO time floored to the whole second, as CC's list filters take it: only
 * YYYY-MM-DDThh:mm:ssZ, anything else is a 400 (docs/cf-platform.md §9). A placeholder
 * (--dry-run) stays as it is.
 */
function wholeSecondUtc(iso) {
  const ms = Date.parse(iso);
  return Number.isNaN(ms) ? iso : `${new Date(ms - (ms % 1000)).toISOString().slice(0, 19)}Z`;
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

/** SIGINT/SIGTERM from here on: stop collecting, mark the round cancelled, exit 130. */
function onInterrupt(live) {
  const handler = () => {
    process.removeListener('SIGINT', handler);
    process.removeListener('SIGTERM', handler);
    live.interrupted = true;
    if (process.stderr.isTTY) process.stderr.write('\n');
    cli.log(`interrupted: cancelling round ${live.roundId}`);
    live.abort.abort();
    (async () => {
      if (live.creating) await live.creating.catch(() => {});
      await stopCollectors(live);
      if (live.roundId !== '<round>') {
        await finishRound(live.control, { round: live.roundId, cancel: true, dbOutageMs: live.control.downMs }).catch(() => {});
      }
      process.exit(130);
    })();
  };
  process.on('SIGINT', handler);
  process.on('SIGTERM', handler);
  return () => {
    process.removeListener('SIGINT', handler);
    process.removeListener('SIGTERM', handler);
  };
}

// ---------------------------------------------------------------- main

/** A plain value and everything in it frozen: the plan's own data. */
function frozen(v) {
  if (v !== null && typeof v === 'object' && !Object.isFrozen(v)) {
    for (const x of Object.values(v)) frozen(x);
    Object.freeze(v);
  }
  return v;
}

/**
 * Platform up and the apps at their counts; returns the plan: everything decided before the
 * round is created, frozen (what is recorded with the round is what it ran with).
 *   p           ops Platform (target.js); not frozen: it keeps look-ups it made (routesVia)
 *   o           the options (run-round-args.js)
 *   t           the platform's times (PER_PLATFORM)
 *   guid        the app's guid (`<APP-guid>` under --dry-run when it is to be pushed)
 *   dbUrl       the results database's URL ('' under --dry-run)
 *   maxWaitMs   the longest wait for the loadgens to finish
 *   route       the app's route resource (null under --dry-run when it is to be pushed)
 *   stats       { source, intervalSec }: the stats source and the seconds between samples
 *   controlToken, baseUrl, hostHeader, frontUrls, insecure: below
 */
function prepare(o) {
  const p = selectPlatform(cli, { platformOpt: o.platform, dryRun: o.dryRun });
  if (o.cpu && p.name !== 'local') cli.usageError('--cpu is local only (on CF, CPU follows memory)');
  if (o.frontProxies && p.name !== 'local') cli.usageError('--front-proxies is local only (on CF the foundation has its own)');
  // Recorded with the round: the summary and the report expect duration ÷ intervalSec
  // samples per instance (at collect-stats.sh's default poll interval).
  const statsSource = resolveStatsSource(p, o.statsSource);
  const stats = { source: statsSource, intervalSec: statsIntervalSec(p.name, statsSource) };
  const t = PER_PLATFORM[p.name];
  if (p.name === 'local') apps.localPlatformUp(p);
  else p.cfPreflight();
  if (o.loadbalancing && p.name === 'cf') {
    requireCfCli(p, LOADBALANCING_CLI, { what: '--loadbalancing', alsoNeeds: LOADBALANCING_CC });
  }
  const maxWaitMs = o.maxWaitMs ?? (o.durationMs !== null
    ? o.durationMs + (o.steadyGate ? o.steadyGate.maxWarmupMs : o.warmupMs) + o.timeoutMs + t.marginMs
    : parseDurationMs(DEFAULT_REQUESTS_MAX_WAIT));
  // On CF a missing URL must stop the round before anything changes; locally the
  // results-db service exists once the apps are pushed.
  let dbUrl = !p.dryRun && p.name === 'cf' ? p.resultsDbUrl() : '';
  const guid = apps.ensureApp(p, o.app, o.instances, { cpu: o.cpu, defaultCpu: p.name === 'local' }) || `<${o.app}-guid>`;
  apps.ensureApp(p, 'loadgen', o.loadgens, { atLeast: true });
  if (!p.dryRun && !dbUrl) dbUrl = p.resultsDbUrl();
  // The app's route, looked up once (its host is a manifest var): the URL on CF, the Host
  // header locally and, for --loadbalancing, host and domain.
  const route = !guid.startsWith('<') ? apps.appRoute(p, o.app, guid) : null;
  return Object.freeze({
    p, o: frozen(o), t, guid, dbUrl, maxWaitMs, route: frozen(route), stats: frozen(stats),
    // The credential of the app's /timings endpoints, from Cloud Controller (control-token.js).
    controlToken: readControlToken(p, o.app, guid),
    baseUrl: apps.appBaseUrl(p, o.app, guid, route),
    hostHeader: apps.appHostHeader(p, o.app, route),
    // The TLS front proxies' URLs of --front-proxies, else null.
    frontUrls: frozen(o.frontProxies ? frontProxies.startFrontProxies(p, Number(o.frontProxies)) : null),
    // The workstation's own HTTPS requests (seeding, prewarm, timings) skip verification.
    insecure: skipSslValidation(p, o.skipSslValidation),
  });
}

/**
 * What changes while the round runs, all of it, from the results database's connection on
 * (sealed: the functions here change these fields and add none).
 */
function startLive(plan) {
  return Object.seal({
    // The results-db.js Connection of every statement from here on (null under --dry-run).
    control: plan.p.dryRun ? null : new Connection(plan.dbUrl, 'run-round', { retryForMs: outageToleranceMs(), log: cli.log }),
    // The round's id and created_at once inserted; placeholders until then and under --dry-run.
    roundId: '<round>',
    createdAt: '<created-at>',
    // insertRound's promise: an interrupt while the round is being created waits for it.
    creating: null,
    // heartbeat.js's { stop } from the insert until the round is final.
    heartbeat: null,
    // round-usage.js's readings (and their timers) from the insert on.
    usage: null,
    // The collectors running (exec.js runAsync's); stopCollectors empties the list.
    collectors: [],
    // SIGINT/SIGTERM came: the main line parks, onInterrupt's handler ends the round.
    interrupted: false,
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

async function main() {
  const o = parseRunRoundArgs(process.argv.slice(2), cli);
  const nice = observerNice();
  const plan = prepare(o);
  const { p, t } = plan;
  setRouteLoadbalancing(plan);
  seedApp(plan);
  prewarmInstances(plan);
  if (!(await eachInstance(plan, 'POST', '/timings/clear', { retryUnknownInstance: true }))) cli.die('could not clear the app timings');

  yieldToTheMeasured(p, nice);
  const live = startLive(plan);
  const removeInterrupt = onInterrupt(live);
  process.on('exit', () => { for (const c of live.collectors) c.child.kill('SIGTERM'); });
  if (!p.dryRun) {
    // A foundation's broker hands out an empty database; an older one lacks the newest views.
    try {
      if (await ensureResultsSchema((text, params) => live.control.query(text, params))) cli.log(`results database: results-schema.sql applied (version ${SCHEMA_VERSION})`);
    } catch (err) {
      if (!live.interrupted) return lostDatabase(live, err);
    }
    live.creating = insertRound(plan, live);
    const created = await live.creating;
    if (live.interrupted) return parked();
    // The neighbours' usage is measured from the end of the warm-up (the start with the gate).
    const fromMs = Math.max(0, new Date(created.start_at).getTime() + o.warmupMs - Date.now());
    live.usage = startRoundUsage(p, { app: o.app, dbUrl: plan.dbUrl, withFrontProxies: Boolean(plan.frontUrls) }, fromMs);
    cli.log(`round ${live.roundId}: ${o.app} x${o.instances}, ${o.loadgens} loadgen(s), starts at ${created.start_at}`);
  }
  startCollectors(plan, live);
  if (!p.dryRun) {
    // The steady-state gate sets the measured window while the loadgens run.
    const gate = o.steadyGate && startSteadyWatch(live.control, { round: live.roundId, gate: o.steadyGate, durationMs: o.durationMs, log: cli.log });
    try {
      await waitRound(live.control, { round: live.roundId, deadlineMs: plan.maxWaitMs, signal: live.abort.signal });
    } catch (err) {
      if (!live.interrupted) await lostDatabase(live, err);
    }
    if (gate) await gate.stop();
    if (live.interrupted) return parked();
    await live.usage.stop(live.control, live.roundId);
  }
  // The router's last lines are on their way from the round's end: the flush overlaps the drain.
  const drainedAt = Date.now() + t.drainMs;
  if (!(await eachInstance(plan, 'POST', `/timings/flush?round=${live.roundId}`, { retryUnavailableForMs: outageToleranceMs() }))) {
    cli.log('some app timings were not flushed');
  }
  if (live.interrupted) return parked();
  const events = ingestEvents(plan, live);
  if (!p.dryRun) await sleep(Math.max(0, drainedAt - Date.now()));
  await stopCollectors(live);
  await events;
  if (live.interrupted) return parked();
  removeInterrupt();
  if (p.dryRun) return process.exit(0);
  let res;
  try {
    res = await finishRound(live.control, {
      round: live.roundId, maxErrorRate: Number(o.maxErrorRate), loadgenLog: () => loadgenRecentLog(p), dbOutageMs: live.control.downMs,
    });
  } catch (err) {
    return lostDatabase(live, err);
  }
  live.heartbeat.stop();
  process.stdout.write(res.text);
  process.stdout.write(`round_id=${live.roundId}\n`);
  return process.exit(res.code);
}

main();
