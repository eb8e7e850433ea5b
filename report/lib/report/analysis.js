// analysis.js — from round rows to what the report states: groups of repeated rounds
// (same experiment, app, variant, instances and load; rounds with a 'bad' validity flag
// excluded and counted) with n and 95 % Student t
// intervals, comparisons of groups that differ in one thing only (app or variant) with
// Welch's test and a "within noise" verdict, scaling efficiency with its interval, the
// latency split per group; the study's own figures (Table 7.1, Fig. 7.5/7.6, memory needed,
// §7.3 stops) come from study-figures.js.
'use strict';
const { DEFAULTS } = require('../../../plans/plan.js');
const { compare, efficiency, summarize } = require('../../../lib/inference.js');
const { cmp, cpuLevels, cpuTable, memoryNeeded, scaleStops } = require('./study-figures.js');
const { roundFlags, trusted } = require('./validity.js');
const { eventSummary } = require('./event-stats.js');
const { proxyCpuMaxPct } = require('./keepalive-chart.js');

// Group metrics: name → how to read it from a report_round_overview row.
const METRICS = {
  throughput_rps: (r) => r.throughput_rps,
  mean_ms: (r) => (r.mean_us === null ? null : r.mean_us / 1000),
  p95_ms: (r) => (r.p95_us === null ? null : r.p95_us / 1000),
  p99_ms: (r) => (r.p99_us === null ? null : r.p99_us / 1000),
  error_rate: (r) => r.error_rate,
  cpu_used_pct: (r) => (r.cpu_used_cores === null ? null : 100 * r.cpu_used_cores),
  cpu_peak_pct: (r) => (r.cpu_peak_cores == null ? null : 100 * r.cpu_peak_cores),
  cpu_available_pct: (r) => (r.cpu_available_cores === null ? null : 100 * r.cpu_available_cores),
  cpu_entitled_pct: (r) => (r.cpu_entitled_cores == null ? null : 100 * r.cpu_entitled_cores),
  cpu_utilisation: (r) => r.cpu_utilisation,
  mem_mb: (r) => (r.mem_avg_bytes === null ? null : r.mem_avg_bytes / 2 ** 20),
  mem_quota_mb: (r) => (r.mem_quota_bytes == null ? null : Number(r.mem_quota_bytes) / 2 ** 20 / (r.instances_sampled || r.app_instances)),
  mem_kb_per_rps: (r) => (r.mem_bytes_per_rps === null ? null : r.mem_bytes_per_rps / 1024),
  rps_per_core: (r) => r.rps_per_core,
  proxy_cpu_max_pct: (r) => proxyCpuMaxPct(r.environment),
};

const LOAD_KEYS = ['experiment', 'scenario', 'app_instances', 'loadgens', 'model', 'parallel', 'rate', 'keepalive', 'front_proxies', 'repKind'];

function repKind(r) { return (r.rep || 'rep').replace(/\d+$/, ''); }

/** Offered load of a round: requests in flight (closed) or total rate req/s (open). */
function offeredLoad(r) {
  return r.model === 'open' ? r.loadgens * r.rate : r.loadgens * r.parallel;
}

/** The SLO latency of a group in ms (slo.metric: p50 has no group figure, p95 stands in). */
const SLO_FIELD = { mean: 'mean_ms', p50: 'p95_ms', p95: 'p95_ms', p99: 'p99_ms' };

/**
 * Annotate rounds with flags (limits: plan validity thresholds) and group the done ones.
 * slo: the plan's (or the default) — each group says whether it meets it (study Fig. 7.1:
 * mean end-to-end under 10 ms).
 */
function analyse(data, { limits, afterChange, slo = DEFAULTS.slo } = {}) {
  const rounds = data.overview.map((r) => {
    const flags = roundFlags(r, limits, afterChange);
    return { ...r, repKind: repKind(r), flags, trusted: trusted(flags) };
  });
  const byKey = new Map();
  for (const r of rounds) {
    if (r.status !== 'done') continue;
    // Capacity probes are single rounds: each is its own group (the label tells which).
    const key = JSON.stringify([...LOAD_KEYS.map((k) => r[k]), r.app, r.variant, r.repKind === 'rep' ? '' : r.rep]);
    if (!byKey.has(key)) byKey.set(key, []);
    byKey.get(key).push(r);
  }
  const splitByRound = new Map(data.split.map((s) => [s.round_id, s]));
  const groups = [...byKey.values()].map((rs) => groupOf(rs, splitByRound, slo));
  groups.sort((a, b) => cmp(a, b, ['experiment', 'app', 'variant', 'app_instances', 'load']));
  const outcomes = data.outcomes ?? [];
  return {
    rounds, groups, series: data.series ?? { seconds: [], instances: [] }, slo,
    // Events inside rounds (run-round --event): their rows, and per app and kind the figures.
    events: data.events ?? { events: [], stages: [], traffic: [] },
    eventSummary: eventSummary(data.events ?? { events: [], stages: [], traffic: [] }),
    comparisons: comparisons(groups),
    efficiency: efficiencies(groups),
    cpuTable: cpuTable(groups),
    cpuLevels: cpuLevels(groups),
    memoryNeeded: memoryNeeded(groups),
    scaleStops: scaleStops(outcomes),
    capacity: outcomes.filter((o) => o.kind === 'capacity'),
    platforms: [...new Set(rounds.map((r) => r.platform))],
    noWarmup: rounds.filter((r) => r.flags.some((f) => f.code === 'no-warmup')).map((r) => r.round_id),
  };
}

// Rounds with a 'bad' validity flag are listed but left out of the statistics.
function groupOf(all, splitByRound, slo) {
  const r0 = all[0];
  const rs = all.filter((r) => r.trusted);
  const g = {
    experiment: r0.experiment, app: r0.app, variant: r0.variant, series: `${r0.app}${r0.variant === 'default' ? '' : ` ${r0.variant}`}`,
    app_instances: r0.app_instances, loadgens: r0.loadgens, model: r0.model, parallel: r0.parallel,
    rate: r0.rate, scenario: r0.scenario, kind: r0.repKind, load: offeredLoad(r0),
    platform: r0.platform, host_cpus: Number(r0.environment?.host_cpus) || null, sut_cpus: Number(r0.environment?.sut_cpus) || null,
    keepalive: r0.keepalive ?? true, front_proxies: r0.front_proxies ?? 0,
    round_ids: rs.map((r) => r.round_id), excluded_ids: all.filter((r) => !r.trusted).map((r) => r.round_id),
    values: {}, stats: {},
  };
  for (const [name, read] of Object.entries(METRICS)) {
    const vals = rs.map(read).filter((v) => v !== null && v !== undefined && Number.isFinite(v));
    g.values[name] = vals;
    g.stats[name] = summarize(vals);
  }
  const lat = g.stats[SLO_FIELD[slo.metric]];
  g.slo_met = lat.n ? lat.mean <= slo.thresholdMs : null;
  const splits = rs.map((r) => splitByRound.get(r.round_id)).filter(Boolean);
  g.split = {};
  for (const part of ['loadgen', 'router', 'app', 'pool_wait', 'db', 'network', 'router_own', 'app_own']) {
    g.split[part] = summarize(splits.map((s) => s[`${part}_mean_us`]).filter((v) => v !== null).map((v) => v / 1000));
  }
  return g;
}

/** Pairs of groups at the same point that differ only in app or only in variant. */
function comparisons(groups, metrics = ['throughput_rps', 'p95_ms']) {
  const out = [];
  for (let i = 0; i < groups.length; i++) {
    for (let j = i + 1; j < groups.length; j++) {
      const a = groups[i];
      const b = groups[j];
      if (a.kind !== 'rep' || b.kind !== 'rep') continue;
      if (['experiment', 'scenario', 'app_instances', 'loadgens', 'model', 'parallel', 'rate'].some((k) => a[k] !== b[k])) continue;
      const changed = a.app !== b.app && a.variant === b.variant ? 'app' : a.app === b.app && a.variant !== b.variant ? 'variant' : null;
      if (!changed) continue;
      for (const m of metrics) {
        out.push({ ga: a, gb: b, changed, metric: m, ...compare(a.values[m], b.values[m]) });
      }
    }
  }
  return out;
}

/**
 * Scaling efficiency per series and instance count: X(k) is the group with the highest
 * mean throughput at k instances (any load step), X(1) likewise at one instance.
 */
function efficiencies(groups) {
  const best = new Map();
  for (const g of groups) {
    if (g.kind !== 'rep' || !g.stats.throughput_rps.n) continue;
    const key = JSON.stringify([g.experiment, g.app, g.variant, g.app_instances]);
    const cur = best.get(key);
    if (!cur || g.stats.throughput_rps.mean > cur.stats.throughput_rps.mean) best.set(key, g);
  }
  const out = [];
  for (const g of best.values()) {
    const one = best.get(JSON.stringify([g.experiment, g.app, g.variant, 1]));
    if (!one) continue;
    const e = efficiency(g.values.throughput_rps, one.values.throughput_rps, g.app_instances);
    out.push({ experiment: g.experiment, app: g.app, variant: g.variant, series: g.series, instances: g.app_instances,
      peak_rps: g.stats.throughput_rps.mean, peak_rps_1: one.stats.throughput_rps.mean, ...e });
  }
  return out.sort((x, y) => cmp(x, y, ['experiment', 'series', 'instances']));
}

module.exports = { offeredLoad, analyse, comparisons, efficiencies, METRICS };
