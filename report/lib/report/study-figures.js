// study-figures.js — the study's figures computed the study's way, from the report's groups
// (analysis.js): Table 7.1 on peak CPU against two notions of available CPU, the throughput
// read off at 100-400 % CPU (Fig. 7.5/7.6), the memory needed (§4.2.2, Fig. 4.3) and §7.3's
// stops beside the study's (study.js holds its published values).
'use strict';
const { compare } = require('../../../lib/inference.js');
const { studyAvailableCores, studyScaleStop, studyTable71 } = require('./study.js');

/** Orders rows by the given keys in turn (missing values first). */
function cmp(a, b, keys) {
  for (const k of keys) {
    const x = a[k] ?? '';
    const y = b[k] ?? '';
    if (x < y) return -1;
    if (x > y) return 1;
  }
  return 0;
}

/**
 * Study Table 7.1, computed as the study did it and beside the quota-based reading: per
 * series and instance count, the group with the highest peak CPU (the study's "Max CPU
 * Usage": per round the highest sample per instance, summed; the group's mean over its
 * rounds), against two notions of the CPU available:
 * - quota: the sum of the instance CPU quotas (local cgroups); on CF, where no quota is
 *   known, the CPU the instances are entitled to (v3 stats' cpu_entitlement) when the stats
 *   carry it;
 * - study: the cell's cores per Java instance, one core per Node.js instance (study.js),
 *   never more than the CPUs of the system under test (environment.sut_cpus; locally, when
 *   not recorded, the host's cores): a 2-core host cannot have made 600 % available.
 * The study's own row (study Table 7.1) is put beside ours.
 */
function cpuTable(groups) {
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
    const sut = g.sut_cpus ?? (g.platform === 'cf' ? null : g.host_cpus);
    const given = g.stats.cpu_available_pct.n ? { pct: g.stats.cpu_available_pct.mean, basis: 'quota' }
      : g.stats.cpu_entitled_pct.n ? { pct: g.stats.cpu_entitled_pct.mean, basis: 'entitlement' } : { pct: null, basis: null };
    // Quotas summed over instances may promise more than the system under test had.
    const quota = given.pct !== null && sut > 0 && given.pct > 100 * sut ? { pct: 100 * sut, basis: `${given.basis}, capped at the ${sut} CPU(s) of the system under test` } : given;
    const st = studyAvailableCores(g.app, g.app_instances, g.platform === 'cf' ? null : sut, sut);
    const studyPct = st ? 100 * st.cores : null;
    return {
      experiment: g.experiment, series: g.series, app: g.app, variant: g.variant, instances: g.app_instances,
      cpu_peak_pct: peak, cpu_used_pct: g.stats.cpu_used_pct,
      cpu_available_pct: quota.pct, available_basis: quota.basis,
      utilisation: quota.pct ? peak.mean / quota.pct : null,
      study_available_pct: studyPct, study_basis: st?.basis ?? null, study_assumed: st?.assumed ?? false,
      study_wanted_pct: st ? 100 * st.wanted : null, study_capped: st?.capped ?? false,
      study_utilisation: studyPct ? peak.mean / studyPct : null,
      published: studyTable71(g.app, g.app_instances),
    };
  }).sort((x, y) => cmp(x, y, ['experiment', 'series', 'instances']));
}

/** The CPU levels (% of one core) the study read throughput off at (study Fig. 7.5, 7.6). */
const CPU_LEVELS_PCT = [100, 200, 300, 400];

/**
 * Study Fig. 7.5/7.6: per series and instance count, the throughput at 100, 200, 300 and
 * 400 % CPU, interpolated linearly between the two load steps whose mean CPU brackets the
 * level (the study drew lines down from these CPU levels). Levels outside the measured CPU
 * range are not extrapolated.
 */
function cpuLevels(groups) {
  const lines = new Map();
  for (const g of groups) {
    if (g.kind !== 'rep' || !g.stats.cpu_used_pct.n || !g.stats.throughput_rps.n) continue;
    const key = JSON.stringify([g.experiment, g.series, g.app_instances]);
    if (!lines.has(key)) lines.set(key, { g, pts: [] });
    const t = g.stats.throughput_rps;
    lines.get(key).pts.push({ cpu: g.stats.cpu_used_pct.mean, rps: t.mean, lo: t.ciLow, hi: t.ciHigh });
  }
  const out = [];
  for (const { g, pts } of lines.values()) {
    pts.sort((a, b) => a.cpu - b.cpu);
    for (const level of CPU_LEVELS_PCT) {
      for (let i = 0; i < pts.length; i++) {
        const a = pts[i];
        const b = pts[i + 1];
        if (a.cpu === level) { out.push(levelRow(g, level, a, a, 0)); break; }
        if (b && a.cpu < level && level <= b.cpu) {
          out.push(levelRow(g, level, a, b, (level - a.cpu) / (b.cpu - a.cpu)));
          break;
        }
      }
    }
  }
  return out.sort((x, y) => cmp(x, y, ['experiment', 'series', 'instances', 'cpu_pct']));
}

/**
 * A level read off between steps a and b at fraction w: the throughput, and the interval
 * between the two steps' 95 % interval ends read off the same way (wider than the
 * interval of the interpolated mean, so on the safe side; null without both intervals).
 */
function levelRow(g, level, a, b, w) {
  const at = (x, y) => x + (y - x) * w;
  const ci = [a.lo, a.hi, b.lo, b.hi].every(Number.isFinite);
  return { experiment: g.experiment, series: g.series, app: g.app, variant: g.variant, instances: g.app_instances, cpu_pct: level,
    throughput_rps: at(a.rps, b.rps), ci_low: ci ? at(a.lo, b.lo) : null, ci_high: ci ? at(a.hi, b.hi) : null };
}

/** Scale-until-SLO stops (experiment_outcomes) with the study's stop beside them (study §7.3). */
function scaleStops(outcomes) {
  return outcomes.filter((o) => o.kind === 'scale-until-slo').map((o) => ({ ...o, published: studyScaleStop(o.app) }));
}

/**
 * The "memory needed" procedure (study §4.2.2, Fig. 4.3): the same load at rising container
 * memory (a plan's variants with `memory`). Per experiment, app, instances and load step:
 * the smallest memory (per instance) that no larger one beats — no significantly higher
 * throughput and no significantly lower p95 (Welch and non-overlapping 95 % intervals, as
 * the comparisons) — i.e. where raising memory stops improving throughput and latency.
 */
function memoryNeeded(groups) {
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

module.exports = { cmp, cpuTable, cpuLevels, scaleStops, memoryNeeded, CPU_LEVELS_PCT };
