// analysis.js — from round rows to what the report states: groups of repeated rounds
// (same experiment, app, variant, instances and load; rounds with a 'bad' validity flag
// excluded and counted) with n and 95 % Student t
// intervals, comparisons of groups that differ in one thing only (app or variant) with
// Welch's test and a "within noise" verdict, scaling efficiency with its interval, the
// CPU utilisation table (study Table 7.1) and the latency split per group.
import { DEFAULTS } from '../experiment/plan.js';
import { compare, efficiency, summarize } from '../stats.js';
import { studyAvailableCores, studyScaleStop, studyTable71 } from './study.js';
import { roundFlags, trusted } from './validity.js';

// Group metrics: name → how to read it from a report_round_overview row.
export const METRICS = {
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
};

const LOAD_KEYS = ['experiment', 'scenario', 'app_instances', 'loadgens', 'model', 'parallel', 'rate', 'repKind'];

function repKind(r) { return (r.rep || 'rep').replace(/\d+$/, ''); }

/** Offered load of a round: requests in flight (closed) or total rate req/s (open). */
export function offeredLoad(r) {
  return r.model === 'open' ? r.loadgens * r.rate : r.loadgens * r.parallel;
}

/** The SLO latency of a group in ms (slo.metric: p50 has no group figure, p95 stands in). */
const SLO_FIELD = { mean: 'mean_ms', p50: 'p95_ms', p95: 'p95_ms', p99: 'p99_ms' };

/**
 * Annotate rounds with flags (limits: plan validity thresholds) and group the done ones.
 * slo: the plan's (or the default) — each group says whether it meets it (study Fig. 7.1:
 * mean end-to-end under 10 ms).
 */
export function analyse(data, { limits, afterChange, slo = DEFAULTS.slo } = {}) {
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

function cmp(a, b, keys) {
  for (const k of keys) {
    const x = a[k] ?? '';
    const y = b[k] ?? '';
    if (x < y) return -1;
    if (x > y) return 1;
  }
  return 0;
}

// Rounds with a 'bad' validity flag are listed but left out of the statistics.
function groupOf(all, splitByRound, slo) {
  const r0 = all[0];
  const rs = all.filter((r) => r.trusted);
  const g = {
    experiment: r0.experiment, app: r0.app, variant: r0.variant, series: `${r0.app}${r0.variant === 'default' ? '' : ` ${r0.variant}`}`,
    app_instances: r0.app_instances, loadgens: r0.loadgens, model: r0.model, parallel: r0.parallel,
    rate: r0.rate, scenario: r0.scenario, kind: r0.repKind, load: offeredLoad(r0),
    platform: r0.platform, host_cpus: Number(r0.environment?.host_cpus) || null,
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
export function comparisons(groups, metrics = ['throughput_rps', 'p95_ms']) {
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
export function efficiencies(groups) {
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

/**
 * Study Table 7.1, computed as the study did it and beside the quota-based reading: per
 * series and instance count, the group with the highest peak CPU (the study's "Max CPU
 * Usage": per round the highest sample per instance, summed; the group's mean over its
 * rounds), against two notions of the CPU available:
 * - quota: the sum of the instance CPU quotas (local cgroups); on CF, where no quota is
 *   known, the CPU the instances are entitled to (v3 stats' cpu_entitlement) when the stats
 *   carry it;
 * - study: the cell's cores per Java instance, one core per Node.js instance (study.js).
 * The study's own row (study Table 7.1) is put beside ours.
 */
export function cpuTable(groups) {
  const best = new Map();
  const peakOf = (g) => (g.stats.cpu_peak_pct.n ? g.stats.cpu_peak_pct.mean : g.stats.cpu_used_pct.mean);
  for (const g of groups) {
    if (!g.stats.cpu_used_pct.n) continue;
    const key = JSON.stringify([g.experiment, g.app, g.variant, g.app_instances]);
    const cur = best.get(key);
    if (!cur || peakOf(g) > peakOf(cur)) best.set(key, g);
  }
  return [...best.values()].map((g) => {
    const peak = g.stats.cpu_peak_pct.n ? g.stats.cpu_peak_pct : g.stats.cpu_used_pct;
    const quota = g.stats.cpu_available_pct.n ? { pct: g.stats.cpu_available_pct.mean, basis: 'quota' }
      : g.stats.cpu_entitled_pct.n ? { pct: g.stats.cpu_entitled_pct.mean, basis: 'entitlement' } : { pct: null, basis: null };
    const st = studyAvailableCores(g.app, g.app_instances, g.platform === 'cf' ? null : g.host_cpus);
    const studyPct = st ? 100 * st.cores : null;
    return {
      experiment: g.experiment, series: g.series, app: g.app, variant: g.variant, instances: g.app_instances,
      cpu_peak_pct: peak, cpu_used_pct: g.stats.cpu_used_pct,
      cpu_available_pct: quota.pct, available_basis: quota.basis,
      utilisation: quota.pct ? peak.mean / quota.pct : null,
      study_available_pct: studyPct, study_basis: st?.basis ?? null, study_assumed: st?.assumed ?? false,
      study_utilisation: studyPct ? peak.mean / studyPct : null,
      published: studyTable71(g.app, g.app_instances),
    };
  }).sort((x, y) => cmp(x, y, ['experiment', 'series', 'instances']));
}

/** The CPU levels (% of one core) the study read throughput off at (study Fig. 7.5, 7.6). */
export const CPU_LEVELS_PCT = [100, 200, 300, 400];

/**
 * Study Fig. 7.5/7.6: per series and instance count, the throughput at 100, 200, 300 and
 * 400 % CPU, interpolated linearly between the two load steps whose mean CPU brackets the
 * level (the study drew lines down from these CPU levels). Levels outside the measured CPU
 * range are not extrapolated.
 */
export function cpuLevels(groups) {
  const lines = new Map();
  for (const g of groups) {
    if (g.kind !== 'rep' || !g.stats.cpu_used_pct.n || !g.stats.throughput_rps.n) continue;
    const key = JSON.stringify([g.experiment, g.series, g.app_instances]);
    if (!lines.has(key)) lines.set(key, { g, pts: [] });
    lines.get(key).pts.push({ cpu: g.stats.cpu_used_pct.mean, rps: g.stats.throughput_rps.mean });
  }
  const out = [];
  for (const { g, pts } of lines.values()) {
    pts.sort((a, b) => a.cpu - b.cpu);
    for (const level of CPU_LEVELS_PCT) {
      for (let i = 0; i < pts.length; i++) {
        const a = pts[i];
        const b = pts[i + 1];
        if (a.cpu === level) { out.push(levelRow(g, level, a.rps)); break; }
        if (b && a.cpu < level && level <= b.cpu) {
          out.push(levelRow(g, level, a.rps + ((b.rps - a.rps) * (level - a.cpu)) / (b.cpu - a.cpu)));
          break;
        }
      }
    }
  }
  return out.sort((x, y) => cmp(x, y, ['experiment', 'series', 'instances', 'cpu_pct']));
}

function levelRow(g, level, rps) {
  return { experiment: g.experiment, series: g.series, app: g.app, variant: g.variant, instances: g.app_instances, cpu_pct: level, throughput_rps: rps };
}

/** Scale-until-SLO stops (experiment_outcomes) with the study's stop beside them (study §7.3). */
export function scaleStops(outcomes) {
  return outcomes.filter((o) => o.kind === 'scale-until-slo').map((o) => ({ ...o, published: studyScaleStop(o.app) }));
}

/**
 * The "memory needed" procedure (study §4.2.2, Fig. 4.3): the same load at rising container
 * memory (a plan's variants with `memory`). Per experiment, app, instances and load step:
 * the smallest memory (per instance) that no larger one beats — no significantly higher
 * throughput and no significantly lower p95 (Welch and non-overlapping 95 % intervals, as
 * the comparisons) — i.e. where raising memory stops improving throughput and latency.
 */
export function memoryNeeded(groups) {
  const byPoint = new Map();
  for (const g of groups) {
    if (g.kind !== 'rep' || !g.stats.mem_quota_mb.n || !g.stats.throughput_rps.n) continue;
    const key = JSON.stringify([g.experiment, g.app, g.scenario, g.app_instances, g.loadgens, g.parallel, g.rate]);
    if (!byPoint.has(key)) byPoint.set(key, []);
    byPoint.get(key).push(g);
  }
  const out = [];
  for (const gs of byPoint.values()) {
    const sizes = [...new Set(gs.map((g) => Math.round(g.stats.mem_quota_mb.mean)))];
    if (sizes.length < 2) continue;
    gs.sort((a, b) => a.stats.mem_quota_mb.mean - b.stats.mem_quota_mb.mean);
    const beats = (big, small) => {
      const t = compare(big.values.throughput_rps, small.values.throughput_rps);
      const l = compare(big.values.p95_ms, small.values.p95_ms);
      return (t.verdict === 'significant' && t.relDiff < 0) || (l.verdict === 'significant' && l.relDiff > 0);
    };
    const i = gs.findIndex((g, k) => gs.slice(k + 1).every((big) => !beats(big, g)));
    const g0 = gs[0];
    out.push({
      experiment: g0.experiment, app: g0.app, instances: g0.app_instances, load: g0.load,
      sizes_mib: gs.map((g) => Math.round(g.stats.mem_quota_mb.mean)), throughput_rps: gs.map((g) => g.stats.throughput_rps.mean),
      memory_needed_mib: Math.round(gs[i].stats.mem_quota_mb.mean), largest: i === gs.length - 1,
    });
  }
  return out.sort((x, y) => cmp(x, y, ['experiment', 'app', 'instances', 'load']));
}
