// charts.js — the Vega-Lite specs of the report, one per figure of the study it
// regenerates. Each takes the analysis and returns null when there is nothing to draw.
// Points are group means over the repetitions; bars are 95 % confidence intervals.
'use strict';

const { ROUND_CHARTS } = require('./round-charts.js');
const { STUDY } = require('./study.js');
const { CPU_LEVELS_PCT: CPU_LEVELS } = require('./study-figures.js');
const { keepaliveThroughput } = require('./keepalive-chart.js');

const SCHEMA = 'https://vega.github.io/schema/vega-lite/v6.json';
const num = (x) => (x === null || x === undefined || !Number.isFinite(x) ? null : x);
// Lower interval ends drawn no lower than 0: every charted quantity is non-negative (the
// tables and CSV keep the interval as computed).
const low = (x) => (num(x) === null ? null : Math.max(0, x));

function base(title, description, values, layers, extra = {}) {
  return { $schema: SCHEMA, title: { text: title, subtitle: description }, width: 420, height: 260,
    data: { values }, layer: layers, ...extra };
}

// Mean line with points, and CI error bars where n >= 2.
function meanWithCi(x, y, color, extraEnc = {}) {
  const enc = { x, color, ...extraEnc };
  return [
    { mark: { type: 'line', point: true }, encoding: { ...enc, y: { field: 'mean', type: 'quantitative', title: y } } },
    { mark: { type: 'errorbar', ticks: true }, transform: [{ filter: 'datum.lo !== null' }],
      encoding: { ...enc, y: { field: 'lo', type: 'quantitative', title: y }, y2: { field: 'hi' } } },
  ];
}

function rowsOf(groups, metric, pick) {
  return groups.filter((g) => g.kind === 'rep' && g.stats[metric].n).map((g) => ({
    ...pick(g), series: g.series, instances: g.app_instances, n: g.stats[metric].n,
    mean: num(g.stats[metric].mean), lo: low(g.stats[metric].ciLow), hi: num(g.stats[metric].ciHigh),
  }));
}

// Every quantitative axis: plain numbers with trailing zeros trimmed. Vega's default format
// takes its precision from the tick step, which is 0 when all points share one value (one
// load step): the axis then read 16.000000.
const AXIS_CONFIG = { axisQuantitative: { format: ',~r' } };
const loadTitle = (groups) => (groups.some((g) => g.model === 'open') ? 'offered load (req/s or requests in flight)' : 'requests in flight (loadgens × parallel)');

/** Fig 6.2: throughput against offered load, per series (e.g. pool size 30/60/90). */
function throughputVsLoad(a) {
  const v = rowsOf(a.groups, 'throughput_rps', (g) => ({ load: g.load }));
  if (!v.length) return null;
  return base('Throughput vs load (study Fig. 6.2)', 'mean of the repetitions, bars: 95 % CI', v,
    meanWithCi({ field: 'load', type: 'quantitative', title: loadTitle(a.groups) }, 'throughput (req/s)',
      { field: 'series', type: 'nominal', title: 'app / variant' }, { strokeDash: { field: 'instances', type: 'ordinal', title: 'instances' } }));
}

/** Fig 6.3: end-to-end latency and the database's part of it, against load. */
function latencySplitVsLoad(a) {
  const v = [];
  for (const g of a.groups) {
    if (g.kind !== 'rep') continue;
    for (const [part, title] of [['loadgen', 'end-to-end (loadgen)'], ['router', 'router'], ['app', 'app'], ['db', 'database']]) {
      const s = g.split[part];
      if (!s.n) continue;
      v.push({ load: g.load, series: `${g.series} ×${g.app_instances}`, part: title, mean: num(s.mean), lo: low(s.ciLow), hi: num(s.ciHigh) });
    }
  }
  if (!v.some((x) => x.part === 'database')) return null;
  return base('End-to-end vs database time (study Fig. 6.3)', 'mean latency per layer, bars: 95 % CI', v,
    meanWithCi({ field: 'load', type: 'quantitative', title: loadTitle(a.groups) }, 'mean latency (ms)',
      { field: 'part', type: 'nominal', title: 'measured at' }, { strokeDash: { field: 'series', type: 'nominal', title: 'app / instances' } }));
}

function cpuRows(groups, filter = () => true) {
  return groups.filter((g) => g.kind === 'rep' && g.stats.cpu_used_pct.n && g.stats.throughput_rps.n && filter(g)).map((g) => ({
    series: g.series, instances: g.app_instances, load: g.load,
    throughput: num(g.stats.throughput_rps.mean), tlo: low(g.stats.throughput_rps.ciLow), thi: num(g.stats.throughput_rps.ciHigh),
    cpu: num(g.stats.cpu_used_pct.mean), clo: low(g.stats.cpu_used_pct.ciLow), chi: num(g.stats.cpu_used_pct.ciHigh),
  }));
}

function throughputCpuLayers() {
  const x = { field: 'throughput', type: 'quantitative', title: 'throughput (req/s)' };
  const color = { field: 'series', type: 'nominal', title: 'app / variant' };
  return [
    { mark: { type: 'line', point: true }, encoding: { x, color, detail: { field: 'instances' },
      order: { field: 'load' }, shape: { field: 'instances', type: 'nominal', title: 'instances' },
      y: { field: 'cpu', type: 'quantitative', title: 'CPU used (% of one core, all instances)' } } },
    { mark: { type: 'errorbar' }, transform: [{ filter: 'datum.clo !== null' }],
      encoding: { x, color, y: { field: 'clo', type: 'quantitative', title: 'CPU used (%)' }, y2: { field: 'chi' } } },
    { mark: { type: 'errorbar' }, transform: [{ filter: 'datum.tlo !== null' }],
      encoding: { y: { field: 'cpu', type: 'quantitative' }, color, x: { field: 'tlo', type: 'quantitative', title: 'throughput (req/s)' }, x2: { field: 'thi' } } },
  ];
}

const sloText = (slo) => `${slo.metric} latency ≤ ${slo.thresholdMs} ms`;

/**
 * Fig 7.1: throughput while each instance uses at most 100 % of one core and the load
 * steps meet the plan's SLO (study §7.2: mean end-to-end under 10 ms).
 */
function throughputAtFullCore(a) {
  const v = cpuRows(a.groups, (g) => g.stats.cpu_used_pct.mean <= 100 * g.app_instances && g.slo_met === true);
  if (!v.length) return null;
  return base('Throughput at ≤ 100 % CPU per instance (study Fig. 7.1)',
    `load steps with ${sloText(a.slo)} (plan slo; the study: mean < ${STUDY.fig71Slo.thresholdMs} ms, ${STUDY.fig71Slo.cite}); CPU summed over instances; bars: 95 % CI`,
    v, throughputCpuLayers());
}

/** Fig 3.1: the load (throughput) produced by the number of loadgen instances. */
function throughputVsLoadgens(a) {
  const v = rowsOf(a.groups, 'throughput_rps', (g) => ({ loadgens: g.loadgens, per: g.model === 'open' ? `${g.rate} req/s each` : `${g.parallel} in flight each` }));
  if (new Set(v.map((r) => r.loadgens)).size < 2) return null;
  return base('Load produced by loadgen instances (study Fig. 3.1)', 'throughput against the number of loadgen instances; bars: 95 % CI', v,
    meanWithCi({ field: 'loadgens', type: 'quantitative', title: 'loadgen instances', axis: { tickMinStep: 1 } }, 'throughput (req/s)',
      { field: 'series', type: 'nominal', title: 'app / variant' },
      { strokeDash: { field: 'per', type: 'nominal', title: 'per loadgen' }, detail: { field: 'instances', type: 'ordinal' } }));
}

/** Fig 7.5/7.6: throughput read off at 100–400 % CPU (interpolated), per app and instance count. */
function throughputAtCpuLevels(a) {
  const v = a.cpuLevels.map((r) => ({ series: r.series, instances: r.instances, cpu: r.cpu_pct, throughput: num(r.throughput_rps) }));
  if (!v.length) return null;
  const x = { field: 'cpu', type: 'quantitative', title: 'CPU used (% of one core, all instances)', scale: { domain: [0, 400] }, axis: { values: [100, 200, 300, 400] } };
  return base('Throughput at 100–400 % CPU (study Fig. 7.5, 7.6)', 'read off the throughput-vs-CPU lines, interpolated between load steps (not extrapolated)', v, [
    { mark: { type: 'line', point: true }, encoding: { x, y: { field: 'throughput', type: 'quantitative', title: 'throughput (req/s)' },
      color: { field: 'series', type: 'nominal', title: 'app / variant' }, strokeDash: { field: 'instances', type: 'ordinal', title: 'instances' } } },
    { mark: { type: 'rule', strokeDash: [2, 4], color: 'gray' }, data: { values: [100, 200, 300, 400].map((c) => ({ c })) }, encoding: { x: { field: 'c', type: 'quantitative' } } },
  ]);
}

/**
 * Fig 7.5/7.6 for one app: its throughput against CPU (x: CPU, as the study drew it), one line
 * per instance count, with the 100-400 % lines the study read throughput off at and the
 * points where a line crosses one (a line that never reaches 100 % shows why none is read).
 */
function cpuEfficiency(a, app) {
  const v = cpuRows(a.groups, (g) => g.app === app).map((r) => ({ ...r, kind: 'measured' }));
  if (!v.length) return null;
  const levels = a.cpuLevels.filter((r) => r.app === app).map((r) => ({ instances: r.instances, cpu: r.cpu_pct, throughput: num(r.throughput_rps), kind: 'read off' }));
  const x = { field: 'cpu', type: 'quantitative', title: 'CPU used (% of one core, all instances)', scale: { domain: [0, Math.max(400, ...v.map((r) => r.cpu))] } };
  const y = { field: 'throughput', type: 'quantitative', title: 'throughput (req/s)' };
  return base(`Throughput per CPU of ${app} (study Fig. ${app === 'java-app' ? '7.6' : '7.5'})`,
    'one line per instance count; dashed: 100-400 % CPU; rings: the throughput read off where a line crosses one', v, [
      { mark: { type: 'line', point: true }, encoding: { x, y, color: { field: 'instances', type: 'ordinal', title: 'instances' }, order: { field: 'load' } } },
      { mark: { type: 'rule', strokeDash: [2, 4], color: 'gray' }, data: { values: CPU_LEVELS.map((c) => ({ c })) }, encoding: { x: { field: 'c', type: 'quantitative' } } },
      { mark: { type: 'point', size: 90, shape: 'circle', filled: false, color: 'black' }, data: { values: levels }, encoding: { x, y } },
    ]);
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

/** Fig 7.4–7.6: throughput against CPU, one line per app and instance count. */
function throughputVsCpu(a) {
  const v = cpuRows(a.groups);
  if (!v.length) return null;
  return base('Throughput vs CPU per instance count (study Fig. 7.4–7.6)', 'one line per app and instance count; bars: 95 % CI', v, throughputCpuLayers());
}

/** Fig 7.7: memory against throughput. */
function memoryVsThroughput(a) {
  const v = a.groups.filter((g) => g.kind === 'rep' && g.stats.mem_mb.n && g.stats.throughput_rps.n).map((g) => ({
    series: g.series, instances: g.app_instances, load: g.load, throughput: num(g.stats.throughput_rps.mean),
    mem: num(g.stats.mem_mb.mean), lo: low(g.stats.mem_mb.ciLow), hi: num(g.stats.mem_mb.ciHigh),
  }));
  if (!v.length) return null;
  const x = { field: 'throughput', type: 'quantitative', title: 'throughput (req/s)' };
  const color = { field: 'series', type: 'nominal', title: 'app / variant' };
  return base('Memory vs throughput (study Fig. 7.7)', 'mean memory summed over instances; bars: 95 % CI', v, [
    { mark: { type: 'line', point: true }, encoding: { x, color, detail: { field: 'instances' }, order: { field: 'load' },
      shape: { field: 'instances', type: 'nominal', title: 'instances' }, y: { field: 'mem', type: 'quantitative', title: 'memory (MiB)' } } },
    { mark: 'errorbar', transform: [{ filter: 'datum.lo !== null' }], encoding: { x, color, y: { field: 'lo', type: 'quantitative', title: 'memory (MiB)' }, y2: { field: 'hi' } } },
  ]);
}

/** Scaling efficiency X(k) / (k · X(1)). */
function scalingEfficiency(a) {
  const v = a.efficiency.map((e) => ({ series: e.series, instances: e.instances, mean: num(e.value), lo: low(e.ciLow), hi: num(e.ciHigh) }));
  if (!v.some((e) => e.instances > 1)) return null;
  return base('Scaling efficiency X(k) / (k · X(1))', '1.0 = linear; X = best mean throughput at k instances; bars: 95 % CI (delta method)', v,
    [...meanWithCi({ field: 'instances', type: 'quantitative', title: 'app instances', axis: { tickMinStep: 1 }, scale: { zero: false } }, 'efficiency', { field: 'series', type: 'nominal', title: 'app / variant' }),
      { mark: { type: 'rule', strokeDash: [4, 4], color: 'gray' }, encoding: { y: { datum: 1 } } }]);
}

/** Table 7.1 as bars: peak CPU used vs available (quota, the study's notion) and the study's own peak. */
function cpuUtilisation(a) {
  const v = [];
  for (const r of a.cpuTable) {
    const add = (kind, pct) => { if (num(pct) !== null) v.push({ series: r.series, instances: r.instances, kind, pct }); };
    add('1 peak used', r.cpu_peak_pct.mean);
    add(`2 available (${r.available_basis ?? 'quota'})`, r.cpu_available_pct);
    add('3 available (study: cell cores Java, 1 core Node.js)', r.study_available_pct);
    add('4 study: max used (published)', r.published?.maxCpuPct);
  }
  if (!v.length) return null;
  return { $schema: SCHEMA, title: { text: 'CPU used vs available (study Table 7.1)', subtitle: `peak CPU per instance count, % of one core; the study's values: ${STUDY.table71.cite}` },
    data: { values: v }, width: 120, height: 220,
    mark: 'bar', encoding: { column: { field: 'series', type: 'nominal', title: null }, x: { field: 'instances', type: 'ordinal', title: 'instances' },
      xOffset: { field: 'kind' }, color: { field: 'kind', type: 'nominal', title: 'CPU' }, y: { field: 'pct', type: 'quantitative', title: 'CPU (%)' } } };
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
    .map((c) => ({ ...c, spec: { ...c.spec, config: { ...AXIS_CONFIG, ...c.spec.config } } }));
}

module.exports = { cpuEfficiency, throughputVsLoad, latencySplitVsLoad, throughputAtFullCore, throughputVsLoadgens, throughputAtCpuLevels, capacityChart, throughputVsCpu, memoryVsThroughput, scalingEfficiency, cpuUtilisation, latencySplitBars, buildCharts, AXIS_CONFIG, CHARTS };
