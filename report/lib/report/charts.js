// charts.js — the Vega-Lite specs of the report, one per figure of the study it
// regenerates (the CPU ones in cpu-charts.js). Each takes the analysis and returns null when
// there is nothing to draw. Points are group means over the repetitions, drawn only with
// their 95 % CI; the rules every chart keeps are chart-kit.js's.
'use strict';

const { ROUND_CHARTS } = require('./round-charts.js');
const { EVENT_CHARTS } = require('./event-charts.js');
const { keepaliveThroughput } = require('./keepalive-chart.js');
const { CHART_CONFIG, SCHEMA, base, meanCi, meanLayers, num, low, panelize, rowsOf } = require('./chart-kit.js');
const { cpuEfficiency, cpuUtilisation, throughputAtCpuLevels, throughputAtFullCore, throughputVsCpu } = require('./cpu-charts.js');

const loadTitle = (groups) => (groups.some((g) => g.model === 'open') ? 'offered load (req/s or requests in flight)' : 'requests in flight (loadgens × parallel)');

/** Fig 6.2: throughput against offered load, a line per app / variant and instance count. */
function throughputVsLoad(a) {
  const v = panelize(rowsOf(a.groups, 'throughput_rps', (g) => ({ load: g.load, line: `${g.series} ×${g.app_instances}` })), (r) => r.line);
  if (!v.length) return null;
  return base('Throughput vs load (study Fig. 6.2)', 'mean of the repetitions, bars: 95 % CI', v,
    meanLayers({ x: { field: 'load', type: 'quantitative', title: loadTitle(a.groups) }, color: { field: 'line', type: 'nominal', title: 'app / variant ×instances' } },
      { field: 'mean', title: 'throughput (req/s)' }));
}

const SPLIT_PARTS = [['loadgen', 'end-to-end (loadgen)'], ['router', 'router'], ['app', 'app'], ['db', 'database']];

/** Fig 6.3: end-to-end latency and the database's part of it, against load: a panel per app / variant and instance count. */
function latencySplitVsLoad(a) {
  const v = [];
  for (const g of a.groups.filter((x) => x.kind === 'rep')) {
    for (const [part, title] of SPLIT_PARTS) {
      const m = meanCi(g.split[part]);
      if (m) v.push({ load: g.load, app: g.app, panel: `${g.series} ×${g.app_instances}`, part: title, ...m });
    }
  }
  if (!v.some((x) => x.part === 'database')) return null;
  return base('End-to-end vs database time (study Fig. 6.3)', 'mean latency per layer, a panel per app and instance count; bars: 95 % CI', v,
    meanLayers({ x: { field: 'load', type: 'quantitative', title: loadTitle(a.groups) }, color: { field: 'part', type: 'nominal', title: 'measured at' } },
      { field: 'mean', title: 'mean latency (ms)' }));
}

/** Fig 3.1: the load (throughput) produced by the number of loadgen instances. */
function throughputVsLoadgens(a) {
  const v = rowsOf(a.groups, 'throughput_rps', (g) => ({ loadgens: g.loadgens, per: g.model === 'open' ? `${g.rate} req/s each` : `${g.parallel} in flight each` }));
  if (new Set(v.map((r) => r.loadgens)).size < 2) return null;
  return base('Load produced by loadgen instances (study Fig. 3.1)', 'throughput against the number of loadgen instances; bars: 95 % CI', v,
    meanLayers({ x: { field: 'loadgens', type: 'quantitative', title: 'loadgen instances', axis: { tickMinStep: 1 } },
      color: { field: 'series', type: 'nominal', title: 'app / variant' }, detail: { field: 'instances', type: 'ordinal' },
      strokeDash: { field: 'per', type: 'nominal', title: 'per loadgen' } }, { field: 'mean', title: 'throughput (req/s)' }));
}

/** Capacity search (kind capacity): capacity per instance count, and whether the soak confirmed it. */
function capacityChart(a) {
  const v = a.capacity.filter((c) => c.capacity_rps !== null).map((c) => ({
    series: `${c.app}${c.variant === 'default' ? '' : ` ${c.variant}`}`, instances: c.instances, capacity: Number(c.capacity_rps),
    soak: c.confirmed ? 'confirmed by the soak' : 'soak failed',
  }));
  if (!v.length) return null;
  const x = { field: 'instances', type: 'quantitative', title: 'app instances', axis: { tickMinStep: 1 } };
  return base('Capacity per instance count', 'highest open-model rate meeting the SLO (bisection); filled: the soak confirmed it', v, [
    { mark: { type: 'line' }, encoding: { x, y: { field: 'capacity', type: 'quantitative', title: 'capacity (req/s, total)' }, color: { field: 'series', type: 'nominal', title: 'app / variant' } } },
    { mark: { type: 'point', size: 80 }, encoding: { x, y: { field: 'capacity', type: 'quantitative' }, color: { field: 'series', type: 'nominal' },
      fill: { condition: { test: "datum.soak === 'confirmed by the soak'", field: 'series', type: 'nominal' }, value: 'white' },
      shape: { field: 'soak', type: 'nominal', title: 'soak' } } },
  ]);
}

/** Fig 7.7: memory against throughput, a line per app / variant and instance count, CIs both ways. */
function memoryVsThroughput(a) {
  const v = panelize(a.groups.filter((g) => g.kind === 'rep').map((g) => ({ g, t: meanCi(g.stats.throughput_rps), m: meanCi(g.stats.mem_mb) }))
    .filter((x) => x.t && x.m).map(({ g, t, m }) => ({ app: g.app, line: `${g.series} ×${g.app_instances}`, load: g.load,
      throughput: t.mean, tlo: t.lo, thi: t.hi, mem: m.mean, lo: m.lo, hi: m.hi })), (r) => r.line);
  if (!v.length) return null;
  return base('Memory vs throughput (study Fig. 7.7)', 'mean memory summed over instances; bars: 95 % CI both ways', v,
    meanLayers({ x: { field: 'throughput', type: 'quantitative', title: 'throughput (req/s)' }, color: { field: 'line', type: 'nominal', title: 'app / variant ×instances' },
      order: { field: 'load' } }, { field: 'mem', title: 'memory (MiB)' }, { xCi: { lo: 'tlo', hi: 'thi' } }));
}

/** Scaling efficiency X(k) / (k · X(1)). */
function scalingEfficiency(a) {
  const v = a.efficiency.filter((e) => e.n >= 2 && num(e.ciHigh) !== null)
    .map((e) => ({ series: e.series, instances: e.instances, mean: num(e.value), lo: low(e.ciLow), hi: num(e.ciHigh) }));
  if (!v.some((e) => e.instances > 1)) return null;
  return base('Scaling efficiency X(k) / (k · X(1))', '1.0 = linear; X = best mean throughput at k instances; bars: 95 % CI (delta method)', v,
    [...meanLayers({ x: { field: 'instances', type: 'quantitative', title: 'app instances', axis: { tickMinStep: 1 }, scale: { zero: false } },
      color: { field: 'series', type: 'nominal', title: 'app / variant' } }, { field: 'mean', title: 'efficiency' }),
    { name: 'reference', mark: { type: 'rule', strokeDash: [4, 4], color: 'gray' }, encoding: { y: { datum: 1 } } }]);
}

/** The latency split as stacked bars: where a request's mean time goes. */
function latencySplitBars(a) {
  const v = [];
  for (const g of a.groups) {
    if (g.kind !== 'rep') continue;
    for (const [part, title] of [['network', '1 client+network'], ['router_own', '2 router'], ['app_own', '3 app'], ['pool_wait', '4 pool wait'], ['db', '5 database']]) {
      const s = g.split[part];
      if (s.n) v.push({ group: `${g.series} ×${g.app_instances} @${Number(g.load)}`, part: title, ms: num(Math.max(0, s.mean)) });
    }
  }
  if (!v.length) return null;
  return { $schema: SCHEMA, title: { text: 'Latency split: loadgen ↔ router ↔ app ↔ database', subtitle: 'mean ms per layer (correlation-id joins)' },
    data: { values: v }, width: 420, mark: 'bar',
    encoding: { y: { field: 'group', type: 'nominal', title: null, sort: null }, x: { field: 'ms', type: 'quantitative', stack: 'zero', title: 'mean latency (ms)' },
      color: { field: 'part', type: 'nominal', title: 'layer' }, order: { field: 'part' } } };
}

const CHARTS = [
  ...ROUND_CHARTS,
  ...EVENT_CHARTS,
  ['throughput-vs-load', throughputVsLoad],
  ['latency-split-vs-load', latencySplitVsLoad],
  ['throughput-vs-loadgens', throughputVsLoadgens],
  ['throughput-at-full-core', throughputAtFullCore],
  ['throughput-vs-cpu', throughputVsCpu],
  ['throughput-at-cpu-levels', throughputAtCpuLevels],
  ['capacity', capacityChart],
  ['memory-vs-throughput', memoryVsThroughput],
  ['scaling-efficiency', scalingEfficiency],
  ['cpu-utilisation', cpuUtilisation],
  ['latency-split', latencySplitBars],
  ['keepalive-throughput', keepaliveThroughput],
];

/** [{name, spec}] for every chart with data. */
function buildCharts(analysis) {
  return CHARTS.map(([name, f]) => ({ name, spec: f(analysis) })).filter((c) => c.spec)
    .map((c) => ({ ...c, spec: { ...c.spec, config: { ...CHART_CONFIG, ...c.spec.config } } }));
}

module.exports = { cpuEfficiency, throughputVsLoad, latencySplitVsLoad, throughputAtFullCore, throughputVsLoadgens, throughputAtCpuLevels, capacityChart, throughputVsCpu, memoryVsThroughput, scalingEfficiency, cpuUtilisation, latencySplitBars, buildCharts, CHART_CONFIG, CHARTS };
