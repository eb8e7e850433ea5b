// tables.js — the report's tables as plain rows: shown in the HTML and written as CSV.
// Every comparison carries n and the 95 % interval of both sides.
'use strict';
const { firstFullGc } = require('./round-charts.js');

const r2 = (x, d = 2) => (x === null || x === undefined || !Number.isFinite(x) ? null : Number(x.toFixed(d)));

function groupRows(a) {
  return a.groups.map((g) => {
    const s = g.stats;
    const row = {
      experiment: g.experiment, app: g.app, variant: g.variant, instances: g.app_instances,
      loadgens: g.loadgens, parallel: g.parallel, rate: g.rate, load: g.load, kind: g.kind,
      keepalive: g.keepalive, front_proxies: g.front_proxies,
      n: s.throughput_rps.n, rounds: g.round_ids.join(' '), excluded_rounds: g.excluded_ids.join(' '), slo_met: g.slo_met,
    };
    for (const m of ['throughput_rps', 'mean_ms', 'p95_ms', 'p99_ms', 'error_rate', 'cpu_used_pct', 'mem_mb', 'mem_kb_per_rps', 'rps_per_core', 'proxy_cpu_max_pct']) {
      const d = m === 'error_rate' ? 5 : 2;
      row[`${m}`] = r2(s[m].mean, d);
      row[`${m}_ci_low`] = r2(s[m].ciLow, d);
      row[`${m}_ci_high`] = r2(s[m].ciHigh, d);
    }
    return row;
  });
}

function comparisonRows(a) {
  return a.comparisons.map((c) => ({
    experiment: c.ga.experiment, instances: c.ga.app_instances, loadgens: c.ga.loadgens, parallel: c.ga.parallel, rate: c.ga.rate,
    changed: c.changed, metric: c.metric,
    a: c.ga.series, a_n: c.a.n, a_mean: r2(c.a.mean), a_ci_low: r2(c.a.ciLow), a_ci_high: r2(c.a.ciHigh),
    b: c.gb.series, b_n: c.b.n, b_mean: r2(c.b.mean), b_ci_low: r2(c.b.ciLow), b_ci_high: r2(c.b.ciHigh),
    diff_pct: r2(100 * c.relDiff, 1), welch_t: r2(c.t, 3), welch_df: r2(c.df, 1), p_value: r2(c.p, 4), verdict: c.verdict,
  }));
}

function efficiencyRows(a) {
  return a.efficiency.map((e) => ({
    experiment: e.experiment, app: e.app, variant: e.variant, instances: e.instances, n: e.n,
    peak_rps: r2(e.peak_rps, 1), peak_rps_1: r2(e.peak_rps_1, 1),
    efficiency: r2(e.value, 3), ci_low: r2(e.ciLow, 3), ci_high: r2(e.ciHigh, 3),
  }));
}

const pct1 = (x) => r2(x === null || x === undefined ? null : 100 * x, 1);

/** Study Table 7.1 (analysis.js cpuTable): ours on both notions of "available", the study's beside. */
function cpuRows(a) {
  return a.cpuTable.map((c) => ({
    experiment: c.experiment, app: c.app, variant: c.variant, instances: c.instances, n: c.cpu_peak_pct.n,
    max_cpu_used_pct: r2(c.cpu_peak_pct.mean, 1), ci_low: r2(c.cpu_peak_pct.ciLow, 1), ci_high: r2(c.cpu_peak_pct.ciHigh, 1),
    mean_cpu_used_pct: r2(c.cpu_used_pct.mean, 1),
    cpu_available_pct: r2(c.cpu_available_pct, 1), available_basis: c.available_basis, utilisation_pct: pct1(c.utilisation),
    study_available_pct: r2(c.study_available_pct, 1), study_basis: c.study_basis, study_utilisation_pct: pct1(c.study_utilisation),
    published_max_cpu_pct: c.published?.maxCpuPct ?? null, published_available_pct: c.published?.availablePct ?? null,
    published_utilisation_pct: c.published?.utilisationPct ?? null,
  }));
}

function cpuLevelRows(a) {
  return a.cpuLevels.map((c) => ({ ...c, throughput_rps: r2(c.throughput_rps, 1) }));
}

function memoryNeededRows(a) {
  return a.memoryNeeded.map((m) => ({
    experiment: m.experiment, app: m.app, instances: m.instances, load: m.load, sizes_mib: m.sizes_mib.join(' '),
    throughput_rps: m.throughput_rps.map((x) => r2(x, 1)).join(' '), memory_needed_mib: m.memory_needed_mib, largest_tried: m.largest,
  }));
}

function scaleStopRows(a) {
  return a.scaleStops.map((o) => ({
    experiment: o.experiment, platform: o.platform, app: o.app, variant: o.variant, instances: o.instances, loadgens: o.loadgens,
    stop: o.stop, reason: o.reason, published_instances: o.published?.instances ?? null, published_reason: o.published?.reason ?? null,
  }));
}

function capacityRows(a) {
  return a.capacity.map((o) => ({
    experiment: o.experiment, platform: o.platform, app: o.app, variant: o.variant, instances: o.instances,
    capacity_rps: r2(o.capacity_rps === null ? null : Number(o.capacity_rps), 1), confirmed: o.confirmed, reason: o.reason,
  }));
}

function splitRows(a) {
  return a.groups.filter((g) => g.split.loadgen.n).map((g) => {
    const row = { experiment: g.experiment, app: g.app, variant: g.variant, instances: g.app_instances, load: g.load, n: g.split.loadgen.n };
    for (const p of ['loadgen', 'router', 'app', 'pool_wait', 'db', 'network', 'router_own', 'app_own']) row[`${p}_mean_ms`] = r2(g.split[p].mean, 3);
    return row;
  });
}

function roundRows(a) {
  return a.rounds.map((r) => ({
    round: r.round_id, status: r.status, experiment: r.experiment, label: r.label, app: r.app, variant: r.variant,
    instances: r.app_instances, loadgens: r.loadgens, model: r.model, parallel: r.parallel, rate: r.rate,
    samples: r.samples, throughput_rps: r2(r.throughput_rps, 1), p95_ms: r2(r.p95_us / 1000), p99_ms: r2(r.p99_us / 1000),
    error_rate: r2(r.error_rate, 5), cpu_used_cores: r2(r.cpu_used_cores, 3), cpu_available_cores: r2(r.cpu_available_cores, 3),
    mem_mb: r2(r.mem_avg_bytes / 2 ** 20, 1), loadgen_cpu_max: r2(r.loadgen_cpu_max, 3), late_fraction: r2(r.late_fraction, 5),
    instance_restarts: r.instance_restarts,
    measured_from_s: r.measure_from_ms == null ? null : r2(r.measure_from_ms / 1000, 1), steady: r.steady ?? null,
    window_trend: r2(r.window_trend, 4), throttled_fraction: r2(r.throttled_fraction_max, 3),
    first_after_change: r.first_after_change ?? null,
    router_cpu_cores: r2(r.environment?.router_cpu_cores ?? null, 3),
    app_hosts: (r.app_hosts ?? []).join(' '), loadgen_hosts: (r.loadgen_hosts ?? []).join(' '), trusted: r.trusted,
    flags: r.flags.filter((f) => f.severity !== 'info').map((f) => f.text).join('; '),
  }));
}

/** Distinct environments (platform, git revision, versions, quotas, host) and their rounds. */
function environmentRows(a) {
  const m = new Map();
  for (const r of a.rounds) {
    const key = JSON.stringify([r.platform, r.git_rev, r.versions, r.environment]);
    if (!m.has(key)) m.set(key, { platform: r.platform, git_rev: r.git_rev, versions: JSON.stringify(r.versions ?? {}), environment: JSON.stringify(r.environment ?? {}), rounds: [] });
    m.get(key).rounds.push(r.round_id);
  }
  return [...m.values()].map((e) => ({ ...e, rounds: e.rounds.join(' ') }));
}

/** Study §4.2.2: per round and instance, the first full GC and the memory needed (round-charts.js firstFullGc). */
function firstGcRows(a) {
  return firstFullGc(a.series.instances).map((g) => ({ ...g, memory_needed_mib: r2(g.memory_needed_mib, 1), after_gc_mib: r2(g.after_gc_mib, 1) }));
}

/** Per app and event kind (event-stats.js), flat: the quantiles with their intervals as columns. */
function eventRows(a) {
  const q = (x, k) => ({ [k]: r2(x.value, 2), [`${k}_ci_low`]: r2(x.ciLow, 2), [`${k}_ci_high`]: r2(x.ciHigh, 2) });
  return a.eventSummary.map((s) => ({
    app: s.app, kind: s.kind, events: s.events, new_instances: s.new_instances, never_served: s.never_served,
    ...q(s.first_served_p50_s, 'first_served_p50_s'), ...q(s.first_served_p95_s, 'first_served_p95_s'),
    queued_s: r2(s.queued_s, 2), starting_s: r2(s.starting_s, 2), routing_s: r2(s.routing_s, 2), answering_s: r2(s.answering_s, 2),
    ...q(s.first_60s_p99_pct, 'first_60s_p99_pct'), old_p99_pct: r2(s.old_p99_pct, 0),
    errors_mean: r2(s.errors_mean, 2), errors_max: s.errors_max, events_with_errors: s.events_with_errors,
    stopped_errors: s.stopped_errors, stopped_resets: s.stopped_resets,
  }));
}

function toCsv(rows) {
  if (!rows.length) return '';
  const cols = Object.keys(rows[0]);
  const cell = (v) => {
    if (v === null || v === undefined || (typeof v === 'number' && !Number.isFinite(v))) return '';
    const s = typeof v === 'object' ? JSON.stringify(v) : String(v);
    return /[",\n\r]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
  };
  return `${cols.join(',')}\n${rows.map((r) => cols.map((c) => cell(r[c])).join(',')).join('\n')}\n`;
}

function csvFiles(a, data) {
  return {
    rounds: toCsv(roundRows(a)),
    groups: toCsv(groupRows(a)),
    comparisons: toCsv(comparisonRows(a)),
    'scaling-efficiency': toCsv(efficiencyRows(a)),
    'cpu-utilisation': toCsv(cpuRows(a)),
    'throughput-at-cpu': toCsv(cpuLevelRows(a)),
    'memory-needed': toCsv(memoryNeededRows(a)),
    'scale-stops': toCsv(scaleStopRows(a)),
    capacity: toCsv(capacityRows(a)),
    'latency-split': toCsv(splitRows(a)),
    'latency-split-rounds': toCsv(data.split),
    environment: toCsv(environmentRows(a)),
    'round-seconds': toCsv(a.series.seconds),
    'round-instances': toCsv(a.series.instances),
    'memory-first-gc': toCsv(firstGcRows(a)),
    'event-stages': toCsv(a.events.stages),
    'event-traffic': toCsv(a.events.traffic),
    'event-summary': toCsv(eventRows(a)),
  };
}

module.exports = { eventRows, groupRows, comparisonRows, efficiencyRows, cpuRows, cpuLevelRows, memoryNeededRows, scaleStopRows, capacityRows, splitRows, roundRows, environmentRows, firstGcRows, toCsv, csvFiles };
