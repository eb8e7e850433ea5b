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
  local: { leadMs: 1500, readyMs: 60000, marginMs: 15000, drainMs: 2500 },
  cf: { leadMs: 5000, readyMs: 120000, marginMs: 30000, drainMs: 5000 },
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
function setRouteLoadbalancing(r) {
  const { p, o } = r;
  if (!o.loadbalancing) return;
  let host = `<${o.app}-host>`;
  let domain = `<${o.app}-domain>`;
  if (r.route) {
    host = r.route.host;
    domain = r.route.url.split('/')[0];
    if (domain.startsWith(`${host}.`)) domain = domain.slice(host.length + 1);
  }
  p.cfRun('update-route', domain, '--hostname', host, '-o', `loadbalancing=${o.loadbalancing}`);
}

/**
 * The app holds --seed-ads ads before the round is created, seeded with the loadgen's own
 * code: seeding inside the start lead made the loadgens start late. Exit 2 when it fails.
 */
function seedApp(r) {
  const { p, o } = r;
  if (!(Number(o.seedAds) > 0)) return;
  const args = ['node', LOADGEN_CLI, '--url', r.baseUrl, '--seed', o.seedAds, '--seed-only'];
  if (r.hostHeader) args.push('--host', r.hostHeader);
  if (r.insecure) args.push('--insecure');
  if (p.run(args) !== 0) {
    cli.log(`could not seed ${o.seedAds} ads into ${o.app}`);
    process.exit(2);
  }
}

/**
 * --prewarm requests to each instance, pinned (X-Cf-App-Instance), with the loadgen CLI:
 * reads among the seeded ads, else /health. Before the timings are cleared.
 */
function prewarmInstances(r) {
  const { p, o } = r;
  if (!(Number(o.prewarm) > 0)) return;
  for (let i = 0; i < Number(o.instances); i++) {
    const args = ['node', LOADGEN_CLI, '--requests', o.prewarm, '--parallel', String(PREWARM_PARALLEL), '--no-progress',
      '--max-error-rate', '0', '-H', `X-Cf-App-Instance: ${r.guid}:${i}`];
    if (r.hostHeader) args.push('--host', r.hostHeader);
    if (r.insecure) args.push('--insecure');
    if (Number(o.seedAds) > 0) args.push('--url', r.baseUrl, '--scenario', 'read', '--seed', o.seedAds);
    else args.push('--url', `${r.baseUrl}/health`);
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
async function eachInstance(r, method, urlPath, { retryUnknownInstance = false, retryUnavailableForMs = 0 } = {}) {
  const { p, o } = r;
  const n = Number(o.instances);
  const reqOf = (i) => instanceRequest(r.baseUrl, r.hostHeader, r.guid, i, method, urlPath, { insecure: r.insecure });
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
    const res = await Promise.all(left.map((i) => pinnedRequest(reqOf(i), { token: r.controlToken, retryUnknownInstance, onLine: onLine(i) })));
    if (res.some((x) => x.code !== 0 && x.status !== 503)) return false;
    left = left.filter((_, k) => res[k].code !== 0);
    if (left.length === 0) return true;
    if (Date.now() + delayMs - t0 > retryUnavailableForMs) return false;
    await sleep(delayMs);
  }
}

// ---------------------------------------------------------------- during and after the round

/** The round inserted once its loadgens are idle: sets r.roundId, r.createdAt (null when interrupted). */
async function insertRound(r, t) {
  const doc = roundDocument(r.p, r.o, r);
  let created;
  try {
    for (const reaped of await reapRounds(r.control)) cli.log(`reaped ${reapedLine(reaped)}`);
    created = await createRound(r.control, doc, {
      startLeadMs: t.leadMs, waitLoadgens: Number(r.o.loadgens), readyTimeoutMs: t.readyMs, signal: r.abort.signal,
    });
  } catch (err) {
    if (r.interrupted) return null;
    if (err instanceof NotReadyError) {
      process.stderr.write(`create-round: ${err.message}\n`);
      process.exit(2);
    }
    process.stderr.write(`create-round: results database: ${err.message}\n`);
    return process.exit(1);
  }
  r.roundId = created.id;
  r.createdAt = created.created_at;
  r.control.downMs = 0; // from here on the round's own
  r.heartbeat = startHeartbeat(r.control, r.roundId);
  return created;
}

/**
 * The results database stayed away longer than results-db.js outageToleranceMs(): the collectors are
 * stopped (they write what they can), the round is left to be reaped (its heartbeat stops).
 */
async function lostDatabase(r, err) {
  cli.log(`results database: ${err.message}: round ${r.roundId} not finished (no heartbeat now: `
    + 'the next run-round or `scripts/rounds.sh --reap` marks it failed)');
  if (r.heartbeat) r.heartbeat.stop();
  await stopCollectors(r);
  process.exit(2);
}

/** The collectors of stats and router logs in the background (run with --dry-run under --dry-run). */
function startCollectors(r) {
  const { p, o } = r;
  const common = ['--app', o.app, '--round', String(r.roundId), '--platform', p.name];
  // Node runs their Node files itself: collect-*.sh only wrap them for a user's shell.
  const stats = [process.execPath, path.join(__dirname, '..', 'ops', 'collect-stats.js'), ...common, '--guid', r.guid];
  const logs = [process.execPath, path.join(__dirname, '..', 'ops', 'collect-logs.js'), ...common];
  if (p.dryRun) {
    for (const argv of [[...stats, '--source', r.stats.source, '--dry-run'], [...logs, '--dry-run']]) {
      const code = runSync(argv, { stdout: 'inherit' });
      if (code !== 0) process.exit(code);
    }
    return;
  }
  // Each in its own process group, as a bash background job ignores a terminal's SIGINT:
  // they are stopped with SIGTERM (they flush what they have), here or at exit.
  for (const argv of [[...stats, '--db', r.dbUrl, '--source', r.stats.source], [...logs, '--db', r.dbUrl]]) {
    r.collectors.push(runAsync(argv, { stdout: 'inherit', detached: true }));
  }
}

async function stopCollectors(r) {
  const list = r.collectors;
  r.collectors = [];
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
function ingestEvents(r) {
  const { p, o } = r;
  const since = wholeSecondUtc(r.createdAt);
  const apiPath = `/v3/audit_events?target_guids=${r.guid}&types=audit.app.process.crash`
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
      await storeCrashEvents(json, { db: r.dbUrl, round: r.roundId, app: o.app, platform: p.name, since }, log);
    } catch (err) {
      cli.log(`crash events not ingested: ${err.message}`);
    }
  })();
}

/**
 * `cf logs loadgen --recent`, where a loadgen that exited with samples it could not store
 * said how many (finish-round reads it only when a loadgen died; '' when it cannot be read).
 */
async function loadgenRecentLog(r) {
  const res = await runAsync([...r.p.cf, 'logs', 'loadgen', '--recent'], { stdout: 'pipe' }).done;
  if (res.code === 0) return res.stdout;
  cli.log('cf logs loadgen --recent failed: loadgens that died are counted from router and app records only');
  return '';
}

/** SIGINT/SIGTERM from here on: stop collecting, mark the round cancelled, exit 130. */
function onInterrupt(r) {
  const handler = () => {
    process.removeListener('SIGINT', handler);
    process.removeListener('SIGTERM', handler);
    r.interrupted = true;
    if (process.stderr.isTTY) process.stderr.write('\n');
    cli.log(`interrupted: cancelling round ${r.roundId}`);
    r.abort.abort();
    (async () => {
      if (r.creating) await r.creating.catch(() => {});
      await stopCollectors(r);
      if (r.roundId !== '<round>') {
        await finishRound(r.control, { round: r.roundId, cancel: true, dbOutageMs: r.control.downMs }).catch(() => {});
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

/** Platform up and the apps at their counts; returns the round context r. */
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
  return {
    p, o, t, guid, dbUrl, maxWaitMs, route, stats,
    // The credential of the app's /timings endpoints, from Cloud Controller (control-token.js).
    controlToken: readControlToken(p, o.app, guid),
    baseUrl: apps.appBaseUrl(p, o.app, guid, route),
    hostHeader: apps.appHostHeader(p, o.app, route),
    frontUrls: o.frontProxies ? frontProxies.startFrontProxies(p, Number(o.frontProxies)) : null,
    // The workstation's own HTTPS requests (seeding, prewarm, timings) skip verification.
    insecure: skipSslValidation(p, o.skipSslValidation),
    roundId: '<round>', createdAt: '<created-at>', collectors: [], interrupted: false, abort: new AbortController(),
  };
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
  const r = prepare(o);
  const { p, t } = r;
  setRouteLoadbalancing(r);
  seedApp(r);
  prewarmInstances(r);
  if (!(await eachInstance(r, 'POST', '/timings/clear', { retryUnknownInstance: true }))) cli.die('could not clear the app timings');

  yieldToTheMeasured(p, nice);
  if (!p.dryRun) r.control = new Connection(r.dbUrl, 'run-round', { retryForMs: outageToleranceMs(), log: cli.log });
  const removeInterrupt = onInterrupt(r);
  process.on('exit', () => { for (const c of r.collectors) c.child.kill('SIGTERM'); });
  if (!p.dryRun) {
    // A foundation's broker hands out an empty database; an older one lacks the newest views.
    try {
      if (await ensureResultsSchema((text, params) => r.control.query(text, params))) cli.log(`results database: results-schema.sql applied (version ${SCHEMA_VERSION})`);
    } catch (err) {
      if (!r.interrupted) return lostDatabase(r, err);
    }
    r.creating = insertRound(r, t);
    const created = await r.creating;
    // The neighbours' usage is measured from the end of the warm-up (the start with the gate).
    const fromMs = Math.max(0, new Date(created.start_at).getTime() + o.warmupMs - Date.now());
    r.usage = startRoundUsage(p, { app: o.app, dbUrl: r.dbUrl, withFrontProxies: Boolean(r.frontUrls) }, fromMs);
    if (r.interrupted) return parked();
    cli.log(`round ${r.roundId}: ${o.app} x${o.instances}, ${o.loadgens} loadgen(s), starts at ${created.start_at}`);
  }
  startCollectors(r);
  if (!p.dryRun) {
    // The steady-state gate sets the measured window while the loadgens run.
    const gate = o.steadyGate && startSteadyWatch(r.control, { round: r.roundId, gate: o.steadyGate, durationMs: o.durationMs, log: cli.log });
    try {
      await waitRound(r.control, { round: r.roundId, deadlineMs: r.maxWaitMs, signal: r.abort.signal });
    } catch (err) {
      if (!r.interrupted) await lostDatabase(r, err);
    }
    if (gate) await gate.stop();
    if (r.interrupted) return parked();
    await r.usage.stop(r.control, r.roundId);
  }
  // The router's last lines are on their way from the round's end: the flush overlaps the drain.
  const drainedAt = Date.now() + t.drainMs;
  if (!(await eachInstance(r, 'POST', `/timings/flush?round=${r.roundId}`, { retryUnavailableForMs: outageToleranceMs() }))) {
    cli.log('some app timings were not flushed');
  }
  if (r.interrupted) return parked();
  const events = ingestEvents(r);
  if (!p.dryRun) await sleep(Math.max(0, drainedAt - Date.now()));
  await stopCollectors(r);
  await events;
  if (r.interrupted) return parked();
  removeInterrupt();
  if (p.dryRun) return process.exit(0);
  let res;
  try {
    res = await finishRound(r.control, {
      round: r.roundId, maxErrorRate: Number(o.maxErrorRate), loadgenLog: () => loadgenRecentLog(r), dbOutageMs: r.control.downMs,
    });
  } catch (err) {
    return lostDatabase(r, err);
  }
  r.heartbeat.stop();
  process.stdout.write(res.text);
  process.stdout.write(`round_id=${r.roundId}\n`);
  return process.exit(res.code);
}

main();
