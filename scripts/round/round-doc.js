'use strict';
// round-doc.js — the round document run-round hands to createRound (create-round.js):
// the `rounds` columns, field for field (the report's spec-match compares rounds.plan and
// the parameters with a plan: what is recorded must stay comparable across rounds).
// Look-ups that fail leave their field out or empty.
//
// roundDocument(plan) → Promise<the document>. plan: round.js's, of which it reads p (ops
// Platform), o (run-round options from run-round-args.js), guid, baseUrl, hostHeader, stats
// ({ source, intervalSec } of ops/stats-source.js: the stats source resolved and the seconds
// between new samples) and frontUrls (the TLS front proxies' URLs of --front-proxies, null
// without).
const fs = require('node:fs');
const os = require('node:os');
const { capture } = require('../ops/exec');
const { appVersions } = require('./app-versions');
const { CONTROL_VAR } = require('../ops/control-token');
const { localCells } = require('./local-cells');
const { prewarmUnquoted } = require('./app-steps');
const { CPU_DEFAULT, CPU_NONE } = require('../../lib/cpu-quota');

/** A cf curl JSON look-up that may fail: the document, or null (quiet: no messages). */
async function tryCurl(p, apiPath, { quiet = false } = {}) {
  try {
    return await p.cfCurlJson(apiPath, { quiet: true });
  } catch (err) {
    if (!quiet) p.cli.log(err.message);
    return null;
  }
}

/**
 * The app's environment variables are its settings (pool size, threads, framework...), all but
 * its control credential: the results database is no place for it.
 */
async function appSettings(p, guid) {
  const doc = await tryCurl(p, `/v3/apps/${guid}/environment_variables`, { quiet: true });
  if (doc) {
    const { [CONTROL_VAR]: secret, ...settings } = doc.var ?? {};
    return settings;
  }
  if (p.name !== 'local') p.cli.log("could not read the app's environment variables; settings recorded as {}");
  return {};
}

async function firstLine(argv) {
  const r = await capture(argv, { stderr: 'ignore' });
  return r.code === 0 ? r.stdout.split('\n')[0] : '';
}

/** The host's CPU model (/proc/cpuinfo) and count: only known for the local platform. */
function hostCpu() {
  let model = '';
  try {
    // The first `model name` line's value: one CPU model names the host.
    const line = fs.readFileSync('/proc/cpuinfo', 'utf8').split('\n').find((l) => l.startsWith('model name'));
    if (line) model = line.split(': ')[1] ?? '';
  } catch {
    // no /proc: no model
  }
  // Every online CPU: nproc counts only those this process may run on (one cell's).
  return { model, cpus: os.cpus().length };
}

/**
 * The CFS period of the local platform's CPU quotas (`cfl status`: "CPU mode quota, period N
 * µs"), or null (shares mode, no cgroups). The daemon takes it from CFSCALE_CPU_PERIOD_US when
 * it starts, not per round, and it changes what a quota means under load (an instance works
 * at most one period's share, then waits for the next): a round must say which one it had.
 */
async function localCpuPeriodUs(p) {
  const r = await p.cflQuery('status', { stderr: 'ignore' });
  const m = r.code === 0 ? /CPU mode quota, period (\d+) µs/.exec(r.stdout) : null;
  return m ? Number(m[1]) : null;
}

/**
 * What the system under test could use: sut_cpus, a count (the SUT's cell, else the host's), and
 * with cells the platform's split as it names it (cells: {sut_cpus, harness_cpus, app_db}).
 */
async function sutCpus(p, hostCpus) {
  const c = await localCells(p);
  return c ? { sut_cpus: c.sut.length, cells: { sut_cpus: c.sut_cpus, harness_cpus: c.harness_cpus, app_db: c.app_db } } : { sut_cpus: hostCpus };
}

/**
 * The CPU quota the local platform gave the app's instances: cores (cpu_quota, the local
 * platform's own field of the v3 process stats: local-platform/lib/instance-usage.js),
 * CPU_NONE without one, null when unreadable.
 */
async function appliedCpuQuota(p, guid) {
  const first = (await tryCurl(p, `/v3/apps/${guid}/processes/web/stats`, { quiet: true }))?.resources?.[0];
  if (!first) return null;
  return Number.isFinite(first.cpu_quota) ? first.cpu_quota : CPU_NONE;
}

/** The app's container memory (MB, `cf scale -m`: v3 process memory_in_mb), or null. */
async function appMemoryMb(p, guid) {
  const proc = await tryCurl(p, `/v3/apps/${guid}/processes/web`, { quiet: true });
  return Number.isInteger(proc?.memory_in_mb) ? proc.memory_in_mb : null;
}

async function environment(p, o, cfApi, stats, guid, t) {
  // The summary and the report expect duration ÷ stats_interval_s samples per instance.
  const env = { stats_source: stats.source, stats_interval_s: stats.intervalSec };
  // When the router's lines were collected: streamed through the round, or read after it (round-plan.js).
  if (t) env.router_log = t.routerLogAfterWindow ? 'read after the round' : 'streamed';
  // A change of memory restarts the app: round_changes marks the first round after it.
  const memoryMb = await appMemoryMb(p, guid);
  if (memoryMb !== null) env.app_memory_mb = memoryMb;
  if (p.name === 'local') {
    const { model, cpus } = await hostCpu();
    Object.assign(env, {
      host_cpu_model: model, host_cpus: cpus, host_memory_bytes: os.totalmem(), host_kernel: os.release(),
      // What the platform applied, and whether that is its own default (no quota asked for).
      app_cpu_quota_cores: await appliedCpuQuota(p, guid), app_cpu_quota_default: o.cpu === CPU_DEFAULT,
      app_cpu_period_us: await localCpuPeriodUs(p), loadgen_cpu_quota_cores: 'none',
      ...(await sutCpus(p, cpus)),
    });
  }
  if (cfApi) env.cf_api = cfApi;
  return env;
}

const numOrNull = (s) => (s === '' || s === null || s === undefined ? null : Number(s));
const strOrNull = (s) => (s === '' ? null : s);

/** The steady-state gate's settings as recorded (rounds.steady_gate), null when it is off. */
function gateDocument(g) {
  if (!g) return null;
  return { window_ms: g.windowMs, cv_max: g.cvMax, trend_max: g.trendMax, max_warmup_ms: g.maxWarmupMs };
}

async function roundDocument({ p, o, t, guid, baseUrl, hostHeader, stats, frontUrls = null }) {
  const settings = await appSettings(p, guid);
  let cliVersion = '';
  let cfApi = '';
  if (p.name === 'cf') {
    cliVersion = await firstLine(['cf', 'version']);
    const info = await tryCurl(p, '/v3/info');
    cfApi = (info?.links?.self?.href ?? '').replace(/\/v3\/info$/, '');
  }
  // The route's algorithm as the platform reports it (else what --loadbalancing asked).
  const routes = await tryCurl(p, `/v3/apps/${guid}/routes`, { quiet: true });
  const routeLb = routes?.resources?.[0]?.options?.loadbalancing || o.loadbalancing;
  const seedAds = Number(o.seedAds);
  const plan = { ...(seedAds > 0 ? { seed_ads: seedAds } : {}), prewarm: Number(o.prewarm),
    ...(prewarmUnquoted({ p, o }) ? { prewarm_cpu: CPU_NONE } : {}),
    ...(routeLb ? { loadbalancing: routeLb } : {}),
    ...(frontUrls ? { front_proxies: frontUrls.length, target_urls: frontUrls } : {}),
    ...(o.events.length ? { events: o.events.map((e) => ({ at_ms: e.atMs, kind: e.kind, instances: e.instances })) } : {}) };
  return {
    platform: p.name,
    app: o.app,
    target_url: frontUrls ? frontUrls[0] : baseUrl,
    host_header: strOrNull(hostHeader),
    app_instances: Number(o.instances),
    loadgens: Number(o.loadgens),
    model: o.rate ? 'open' : 'closed',
    parallel: numOrNull(o.parallel),
    rate: numOrNull(o.rate),
    duration_ms: o.durationMs,
    requests: numOrNull(o.requests),
    warmup_ms: o.warmupMs,
    timeout_ms: o.timeoutMs,
    keepalive: o.keepalive,
    scenario: o.scenario,
    plan,
    label: strOrNull(o.label),
    experiment: strOrNull(o.experiment),
    git_rev: strOrNull(await firstLine(['git', 'rev-parse', '--short', 'HEAD'])),
    versions: {
      ...(cliVersion ? { cf_cli: cliVersion } : {}),
      ...(await appVersions(p.name, o.app, { guid, dropletOf: (g) => tryCurl(p, `/v3/apps/${g}/droplets/current`, { quiet: true }) })),
    },
    environment: await environment(p, o, cfApi, stats, guid, t),
    settings,
    steady_gate: gateDocument(o.steadyGate),
  };
}

module.exports = { roundDocument };
