// validity.js — per-round flags that say when a round's figures should not be trusted
// (or need a second look). Thresholds: plan.js DEFAULTS.validity, documented in README.
'use strict';
const { DEFAULTS } = require('../../../plans/plan.js');
const { steadyFlags } = require('./steady-flags.js');
const { parseCpuList } = require('../../../lib/cpu-list.js');

const pct = (x) => `${(100 * x).toFixed(1)} %`;

/** Fewer samples than this after the warm-up make a round's percentiles meaningless. */
const MIN_SAMPLES = 20;
/** Samples must span at least this fraction of the measured part (duration − warm-up). */
const MIN_COVERAGE = 0.8;
/** A loadgen whose cgroup was throttled in more of its CFS periods than this was starved. */
const MAX_THROTTLED_FRACTION = 0.05;
/**
 * The harness's CPUs this busy (a fraction of them) over the measured window: the load it sent and
 * the times it took are its own, not the app's (local cells, docs/cf-platform.md §24).
 */
const HARNESS_BUSY_MAX = 0.9;
/**
 * Other work on the SUT's CPUs, beyond the app's instances and its database's backends, above this
 * fraction of them: the cell is a set of CPUs, not a reservation, and a neighbour (another
 * process of the machine) took some of it.
 */
const SUT_OTHER_MAX = 0.05;
/** The router this busy (a fraction of the CPUs it could use) was the bottleneck, not the app. */
const ROUTER_BUSY_MAX = 0.9;
/**
 * Open model: a generator whose send lateness p99 exceeds this share of the latency p50 added a
 * visible part of what it measured (the round summary, scripts/round/summary.js, reads the same).
 */
const GENERATOR_LATE_MAX_SHARE = 0.1;
/** A front proxy that carried less than this share of an even split of the requests: the load was not spread. */
const PROXY_SHARE_MIN = 0.5;

/**
 * Flags of one report_round_overview row (with data.js's report_round_steady columns):
 * [{code, severity: 'bad'|'warn'|'info', text}]. afterChange: the plan's (steady-flags.js).
 */
function roundFlags(r, limits = DEFAULTS.validity, afterChange = DEFAULTS.afterChange) {
  const f = [];
  const add = (code, severity, text) => f.push({ code, severity, text });
  if (r.status !== 'done') add('status', 'bad', `round ${r.status}`);
  if (!r.samples) add('no-samples', 'bad', 'no samples after the warm-up');
  else if (r.samples < MIN_SAMPLES) add('few-samples', 'bad', `only ${r.samples} sample(s) after the warm-up`);
  const expectedS = r.window_ms != null ? r.window_ms / 1000 : r.duration_ms ? (r.duration_ms - r.warmup_ms) / 1000 : null;
  if (r.samples && expectedS > 0 && r.measured_s !== null && r.measured_s < MIN_COVERAGE * expectedS) {
    add('short', 'bad', `samples cover ${r.measured_s.toFixed(1)} s of the ${expectedS.toFixed(1)} s measured (generator joined late or stopped early)`);
  }
  if (r.loadgen_cpu_max !== null && r.loadgen_cpu_max > limits.loadgenCpuMax) {
    add('generator-saturated', 'bad', `generator saturated: loadgen CPU ${pct(r.loadgen_cpu_max)} of its run time`);
  }
  if (r.eloop_p99_max_us !== null && r.eloop_p99_max_us / 1000 > limits.eventLoopP99MaxMs) {
    add('generator-delayed', 'bad', `generator event-loop delay p99 ${(r.eloop_p99_max_us / 1000).toFixed(1)} ms`);
  }
  if (r.loadgen_throttled_max != null && r.loadgen_throttled_max > MAX_THROTTLED_FRACTION) {
    add('generator-starved', 'bad', `generator starved: loadgen CPU throttled in ${pct(r.loadgen_throttled_max)} of its CFS periods`
      + ` (${r.loadgen_throttled_ms_max} ms throttled)`);
  }
  if (r.send_late_p99_us != null && r.p50_us > 0 && r.send_late_p99_us > GENERATOR_LATE_MAX_SHARE * r.p50_us) {
    add('generator-late', 'bad', `generator late: send lateness p99 ${(r.send_late_p99_us / 1000).toFixed(2)} ms, `
      + `over ${pct(GENERATOR_LATE_MAX_SHARE)} of the latency p50 (${(r.p50_us / 1000).toFixed(2)} ms)`);
  }
  if (r.late_fraction !== null && r.late_fraction > limits.lateMax) add('late', 'bad', `open model: ${pct(r.late_fraction)} sent late`);
  if (r.error_rate !== null && r.error_rate > limits.errorRateMax) add('errors', 'warn', `error rate ${pct(r.error_rate)}`);
  if (r.instance_restarts > 0) add('restarts', 'bad', `${r.instance_restarts} instance crash/restart event(s) during the round`);
  // Lost stats thin the CPU and memory figures; throughput and latency stand (README).
  if (r.stats_expected > 0 && Number(r.stats_samples) < Number(r.stats_expected)) {
    add('stats-short', 'warn', `${r.stats_samples} of ${r.stats_expected} expected stats samples `
      + `(one per ${r.environment?.stats_interval_s} s per instance): CPU and memory figures rest on fewer`);
  }
  // The loadgens and collectors held their writes meanwhile and made them after:
  // the figures are whole, but the round ran through a disturbance.
  if (Number(r.db_outage_ms) > 0) {
    add('db-outage', 'warn', `results database unreachable for ${(Number(r.db_outage_ms) / 1000).toFixed(1)} s during the round`);
  }
  if (r.loadgens_not_done > 0) add('loadgen-unfinished', 'bad', `${r.loadgens_not_done} loadgen run(s) not done`);
  if (r.loadgen_runs === 0) add('no-loadgen-runs', 'warn', 'no loadgen health recorded');
  harnessFlags(r, add);
  const shared = sharedHosts(r);
  if (r.platform === 'cf' && shared.length) {
    add('loadgen-on-app-cell', 'warn', `a loadgen ran on the cell of an app instance (${shared.join(', ')}): they shared its CPU (study §5.3.2)`);
  }
  steadyFlags(r, { ...DEFAULTS.validity, ...limits }, afterChange, add);
  if (r.steady_gate && r.measure_from_ms != null) {
    add('warmup', 'info', `warm-up ${(r.measure_from_ms / 1000).toFixed(0)} s excluded by the steady-state gate (${r.warmup_samples ?? 0} samples)`);
  } else if (!r.warmup_ms) {
    // Often on purpose (a plan with warmup 0): the method paragraph says it once, the
    // rounds table keeps to real problems.
    add('no-warmup', 'info', 'no warm-up excluded');
  }
  else add('warmup', 'info', `warm-up ${(r.warmup_ms / 1000).toFixed(0)} s excluded (${r.warmup_samples ?? 0} samples)`);
  return f;
}

/**
 * What the harness did to a round: its CPUs saturated, the router saturated, a front proxy left
 * idle by the loadgens (study §5.2.3's proxies each take their share, or the cap is not theirs).
 */
function harnessFlags(r, add) {
  const env = r.environment ?? {};
  const cells = env.host_cpu?.cells;
  if (cells && cells.harness_busy >= HARNESS_BUSY_MAX) {
    add('harness-busy', 'bad', `the harness's CPUs (${cells.harness_cpus}) ${pct(cells.harness_busy)} busy: the load and its timing were the harness's`);
  }
  const other = sutOther(env);
  if (other !== null && other > SUT_OTHER_MAX) {
    add('sut-shared', 'bad', `other processes used ${pct(other)} of the SUT's CPUs (${cells.sut_cpus}) beside the app and its database`);
  }
  if (r.platform === 'local' && env.host_cpu && !cells) {
    add('no-cells', 'warn', 'no cells: the harness shared the CPUs of the system under test, so the figures measure this host as well');
  }
  const routerCpus = cells ? parseCpuList(cells.harness_cpus).length : Number(env.host_cpus) || null;
  if (env.router_cpu_cores != null && routerCpus && env.router_cpu_cores >= ROUTER_BUSY_MAX * routerCpus) {
    add('router-saturated', 'bad', `the router used ${Number(env.router_cpu_cores).toFixed(2)} of the ${routerCpus} CPU(s) it could use: it set the pace`);
  }
  const proxies = Array.isArray(env.front_proxy_usage) ? env.front_proxy_usage.filter((u) => Number.isFinite(u.requests)) : [];
  const total = proxies.reduce((t, u) => t + u.requests, 0);
  const idle = proxies.filter((u) => total > 0 && u.requests < PROXY_SHARE_MIN * (total / proxies.length));
  if (idle.length) {
    add('proxy-underserved', 'bad', `${idle.length} of ${proxies.length} front proxies carried under ${pct(PROXY_SHARE_MIN)} of an even share `
      + `(${idle.map((u) => `${u.url}: ${u.requests} requests`).join(', ')}): fewer loadgens than proxies?`);
  }
}

/**
 * The share of the SUT's CPUs that neither the app's instances nor (when they run there) its
 * database's backends used over the window, or null without cells.
 */
function sutOther(env) {
  const h = env.host_cpu;
  if (!h?.cells || !h.parts) return null;
  const n = parseCpuList(h.cells.sut_cpus).length;
  const own = h.parts.app + (env.cells?.app_db === 'harness' ? 0 : h.parts.app_db);
  return Math.max(0, h.cells.sut_busy - own / n);
}

/**
 * The cells both a loadgen and an app instance of the round ran on. Locally every process
 * runs on this machine, so only CF rounds are flagged.
 */
function sharedHosts(r) {
  const app = new Set(r.app_hosts ?? []);
  return (r.loadgen_hosts ?? []).filter((h) => app.has(h));
}

/** A round is trusted when it has no 'bad' flag. */
function trusted(flags) {
  return !flags.some((x) => x.severity === 'bad');
}

module.exports = { roundFlags, sharedHosts, trusted, GENERATOR_LATE_MAX_SHARE, MIN_SAMPLES, MIN_COVERAGE, MAX_THROTTLED_FRACTION, HARNESS_BUSY_MAX, ROUTER_BUSY_MAX, PROXY_SHARE_MIN, SUT_OTHER_MAX };
