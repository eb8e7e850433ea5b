// round-charts.js — per-round time series, one small panel per round (Vega-Lite facets):
// throughput and errors per second, p50 and p99 per second, and CPU and memory per
// instance per stats sample, each marking the measured window (results-schema.sql round_seconds and
// round_instance_series, read by steady-data.js). They show what a round's single figure
// hides: a warm-up, a drift, throttling steps, an instance that lagged.
'use strict';

const SCHEMA = 'https://vega.github.io/schema/vega-lite/v6.json';
// Beyond this many rounds the panels show the newest only (the CSVs keep every round).
const MAX_ROUNDS_CHARTED = 48;
const PANEL = { width: 240, height: 110 };

function chartedRounds(a) {
  const ids = [...new Set(a.series.seconds.map((s) => s.round_id))].sort((x, y) => x - y);
  return new Set(ids.slice(-MAX_ROUNDS_CHARTED));
}

function subtitle(a, what) {
  const n = new Set(a.series.seconds.map((s) => s.round_id)).size;
  return `${what}; ${n > MAX_ROUNDS_CHARTED ? `the newest ${MAX_ROUNDS_CHARTED} of ${n} rounds` : `${n} round(s)`}`;
}

function faceted(title, sub, values, layer) {
  return {
    $schema: SCHEMA, title: { text: title, subtitle: sub }, data: { values },
    facet: { field: 'round', type: 'ordinal', title: null, sort: { field: 'round_id' } }, columns: 3,
    spec: { ...PANEL, layer }, resolve: { scale: { y: 'independent' } },
  };
}

const phase = (measured) => (measured ? 'measured window' : 'warm-up / outside');
const x = { field: 'second', type: 'quantitative', title: 's since start' };

/** Throughput (ok answers) and errors per second. */
function roundThroughput(a) {
  const keep = chartedRounds(a);
  const v = a.series.seconds.filter((s) => keep.has(s.round_id)).map((s) => ({
    round: `round ${s.round_id}`, round_id: s.round_id, second: s.second, ok: s.ok, errors: s.errors, phase: phase(s.measured),
  }));
  if (!v.length) return null;
  return faceted('Throughput per second, per round', subtitle(a, 'ok answers per second; red: errors'), v, [
    { mark: { type: 'point', filled: true, size: 12 }, encoding: { x, y: { field: 'ok', type: 'quantitative', title: 'req/s' },
      color: { field: 'phase', type: 'nominal', title: null, scale: { range: ['#1f77b4', '#bbbbbb'], domain: ['measured window', 'warm-up / outside'] } } } },
    { mark: { type: 'tick', color: '#d62728' }, transform: [{ filter: 'datum.errors > 0' }],
      encoding: { x, y: { field: 'errors', type: 'quantitative' } } },
  ]);
}

/** p50 and p99 latency per second. */
function roundLatency(a) {
  const keep = chartedRounds(a);
  const v = [];
  for (const s of a.series.seconds) {
    if (!keep.has(s.round_id)) continue;
    for (const [p, us] of [['p50', s.p50_us], ['p99', s.p99_us]]) {
      if (us !== null && us > 0) v.push({ round: `round ${s.round_id}`, round_id: s.round_id, second: s.second, percentile: p, ms: us / 1000, measured: s.measured });
    }
  }
  if (!v.length) return null;
  return faceted('Latency per second, per round', subtitle(a, 'p50 and p99 of the samples sent in each second (log scale); faint: outside the measured window'), v, [
    { mark: { type: 'line', point: false, strokeWidth: 1 }, encoding: { x, y: { field: 'ms', type: 'quantitative', title: 'ms', scale: { type: 'log' } },
      color: { field: 'percentile', type: 'nominal', title: null },
      detail: { field: 'measured', type: 'nominal' }, // one line inside the window, one outside
      opacity: { condition: { test: 'datum.measured', value: 1 }, value: 0.35 } } },
  ]);
}

/** The charted rounds' stats samples with a value of `field`, one point per instance and sample. */
function instancePoints(a, field, values) {
  const keep = chartedRounds(a);
  return a.series.instances.filter((s) => keep.has(s.round_id) && s[field] !== null).map((s) => ({
    round: `round ${s.round_id}`, round_id: s.round_id, second: Number(s.second), instance: String(s.instance_index),
    measured: s.measured, ...values(s),
  }));
}

/** One line per instance, faint outside the measured window. */
function instanceLine(field, title) {
  return { name: 'sample', mark: { type: 'line', strokeWidth: 1 }, encoding: { x, y: { field, type: 'quantitative', title },
    color: { field: 'instance', type: 'nominal', title: 'instance' },
    detail: { field: 'measured', type: 'nominal' }, // one line inside the window, one outside
    opacity: { condition: { test: 'datum.measured', value: 1 }, value: 0.35 } } };
}

/** CPU per app instance per stats sample (% of one core), and its quota where there is one (study Fig. 7.2: Java held below its cap). */
function roundCpu(a) {
  const v = instancePoints(a, 'cpu', (s) => ({ cpu: 100 * s.cpu, quota: s.cpu_quota_cores === null ? null : 100 * s.cpu_quota_cores }));
  if (!v.length) return null;
  return faceted('CPU per instance, per round (study Fig. 7.2)', subtitle(a, '% of one core per stats sample; dashed: the quota; faint: outside the measured window'), v, [
    instanceLine('cpu', 'CPU %'),
    { mark: { type: 'rule', strokeDash: [3, 3], color: 'gray' }, transform: [{ filter: 'datum.quota !== null' }],
      encoding: { y: { aggregate: 'max', field: 'quota', type: 'quantitative' } } },
  ]);
}

/** A drop below this fraction of the memory seen so far counts as the first full GC. */
const GC_DROP = 0.9;

/**
 * Study §4.2.2 (Fig. 4.3): memory grows under load until the first full garbage collection,
 * then stays flat; the peak before that drop is the memory the app needs. Per round and
 * instance: the first sample below GC_DROP × the highest memory so far, and that peak
 * (null: no drop seen, the round was too short or the app never collected).
 */
function firstFullGc(instances) {
  const by = new Map();
  for (const s of instances) {
    if (s.mem_bytes === null) continue;
    const key = `${s.round_id}/${s.instance_index}`;
    if (!by.has(key)) by.set(key, { round_id: s.round_id, instance_index: s.instance_index, peak: 0, peakSecond: null, gc: null });
    const e = by.get(key);
    if (e.gc) continue;
    if (s.mem_bytes > e.peak) { e.peak = s.mem_bytes; e.peakSecond = Number(s.second); } else if (s.mem_bytes < GC_DROP * e.peak) {
      e.gc = { second: Number(s.second), after_bytes: s.mem_bytes };
    }
  }
  return [...by.values()].map((e) => ({
    round_id: e.round_id, instance_index: e.instance_index, first_gc_second: e.gc?.second ?? null,
    memory_needed_mib: e.gc ? e.peak / 2 ** 20 : null, after_gc_mib: e.gc ? e.gc.after_bytes / 2 ** 20 : null,
    peak_second: e.gc ? e.peakSecond : null,
  }));
}

/** Memory per app instance per stats sample (MiB), the first full GC marked (study Fig. 4.3, 7.3). */
function roundMemory(a) {
  const v = instancePoints(a, 'mem_bytes', (s) => ({ mib: s.mem_bytes / 2 ** 20 }));
  if (!v.length) return null;
  const keep = chartedRounds(a);
  const gc = firstFullGc(a.series.instances).filter((g) => keep.has(g.round_id) && g.first_gc_second !== null).map((g) => ({
    round: `round ${g.round_id}`, round_id: g.round_id, instance: String(g.instance_index), second: g.peak_second, mib: g.memory_needed_mib,
  }));
  return faceted('Memory per instance, per round (study Fig. 4.3, 7.3)',
    subtitle(a, `MiB per stats sample; ring: the peak before the first full GC (first drop below ${100 * GC_DROP} %), the memory needed; faint: outside the measured window`),
    [...v, ...gc.map((g) => ({ ...g, gc: true }))], [
      { ...instanceLine('mib', 'MiB'), transform: [{ filter: '!datum.gc' }] },
      { name: 'sample_peak', mark: { type: 'point', size: 60, color: 'black' }, transform: [{ filter: 'datum.gc' }], encoding: { x, y: { field: 'mib', type: 'quantitative', title: 'MiB' } } },
    ]);
}

const ROUND_CHARTS = [
  ['round-throughput', roundThroughput],
  ['round-latency', roundLatency],
  ['round-cpu', roundCpu],
  ['round-memory', roundMemory],
];

module.exports = { roundThroughput, roundLatency, roundCpu, firstFullGc, roundMemory, MAX_ROUNDS_CHARTED, GC_DROP, ROUND_CHARTS };
