'use strict';
// round-plan.js — the plan of one round (round.js): everything decided before the round
// is created, made once and frozen, so that no step changes what the round was meant to be.
// Making it brings the platform up and the app and the loadgen to their counts: the app's
// guid, route, URL and credential exist only then.
//
// preparePlan(cli, o) → Promise<plan> (its fields: above preparePlan); throws CliError on a
// usage error or when the platform or an app cannot be made ready.
const { parseDurationMs } = require('../ops/cli');
const { selectPlatform } = require('../ops/target');
const apps = require('../ops/apps');
const { resolveStatsSource, statsIntervalSec } = require('../ops/stats-source');
const { requireCfCli } = require('../ops/cf-version');
const { readControlToken } = require('../ops/control-token');
const { skipSslValidation } = require('../ops/tls');
const frontProxies = require('./front-proxies');
const { CPU_DEFAULT } = require('../../lib/cpu-quota');

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
  // routerLogAfterWindow: the router's lines are read from log-cache once the loadgens are
  // done (collect-logs.js --since) instead of streamed through the round. Locally the stream
  // (the daemon serving log-cache, `cf logs`, ingest-rtr, the results database's inserts)
  // ran on the harness's one CPU while it measured; on CF it runs on the workstation, and a
  // foundation's log-cache may prune a busy app's lines before the round ends, so it streams.
  // Measured: bench/rounds/README.md "The router's log read after the round".
  local: Object.freeze({ leadMs: 1500, readyMs: 60000, marginMs: 15000, drainMs: 2500, routerLogAfterWindow: true }),
  cf: Object.freeze({ leadMs: 5000, readyMs: 120000, marginMs: 30000, drainMs: 5000, routerLogAfterWindow: false }),
};

/** A plain value and everything in it frozen: the plan's own data. */
function frozen(v) {
  if (v !== null && typeof v === 'object' && !Object.isFrozen(v)) {
    for (const x of Object.values(v)) frozen(x);
    Object.freeze(v);
  }
  return v;
}

/**
 * Platform up and the apps at their counts; returns the plan, frozen (what is recorded with
 * the round is what it ran with). cli: run-round's (cli.js makeCli), o: its options.
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
async function preparePlan(cli, o) {
  const p = await selectPlatform(cli, { platformOpt: o.platform, dryRun: o.dryRun });
  if (o.cpu !== CPU_DEFAULT && p.name !== 'local') cli.usageError('--cpu is local only (on CF, CPU follows memory)');
  if (o.frontProxies && p.name !== 'local') cli.usageError('--front-proxies is local only (on CF the foundation has its own)');
  // Recorded with the round: the summary and the report expect duration ÷ intervalSec
  // samples per instance (at collect-stats.sh's default poll interval).
  const statsSource = resolveStatsSource(p, o.statsSource);
  const stats = { source: statsSource, intervalSec: statsIntervalSec(p.name, statsSource) };
  const t = PER_PLATFORM[p.name];
  if (p.name === 'local') await apps.localPlatformUp(p);
  else await p.cfPreflight();
  if (o.loadbalancing && p.name === 'cf') {
    await requireCfCli(p, LOADBALANCING_CLI, { what: '--loadbalancing', alsoNeeds: LOADBALANCING_CC });
  }
  const maxWaitMs = o.maxWaitMs ?? (o.durationMs !== null
    ? o.durationMs + (o.steadyGate ? o.steadyGate.maxWarmupMs : o.warmupMs) + o.timeoutMs + t.marginMs
    : parseDurationMs(DEFAULT_REQUESTS_MAX_WAIT));
  // On CF a missing URL must stop the round before anything changes; locally the
  // results-db service exists once the apps are pushed.
  let dbUrl = !p.dryRun && p.name === 'cf' ? await p.resultsDbUrl() : '';
  const guid = (await apps.ensureApp(p, o.app, o.instances, { cpu: o.cpu })) || `<${o.app}-guid>`;
  await apps.ensureApp(p, 'loadgen', o.loadgens, { atLeast: true });
  if (!p.dryRun && !dbUrl) dbUrl = await p.resultsDbUrl();
  // The app's route, looked up once (its host is a manifest var): the URL on CF, the Host
  // header locally and, for --loadbalancing, host and domain.
  const route = !guid.startsWith('<') ? await apps.appRoute(p, o.app, guid) : null;
  return Object.freeze({
    p, o: frozen(o), t, guid, dbUrl, maxWaitMs, route: frozen(route), stats: frozen(stats),
    // The credential of the app's /timings endpoints, from Cloud Controller (control-token.js).
    controlToken: await readControlToken(p, o.app, guid),
    baseUrl: await apps.appBaseUrl(p, o.app, guid, route),
    hostHeader: await apps.appHostHeader(p, o.app, route),
    // The TLS front proxies' URLs of --front-proxies, else null.
    frontUrls: frozen(o.frontProxies ? await frontProxies.startFrontProxies(p, Number(o.frontProxies)) : null),
    // The workstation's own HTTPS requests (seeding, prewarm, timings) skip verification.
    insecure: skipSslValidation(p, o.skipSslValidation),
  });
}

module.exports = { preparePlan, PER_PLATFORM };
