// cpu-charts.js — the report's charts of CPU (study Fig. 7.1, 7.4–7.6, Table 7.1 and Fig.
// 7.2): throughput against the CPU used, read off at 100–400 %, and the CPU used against the
// CPU available. Each takes the analysis and returns null when there is nothing to draw; the
// rules every chart keeps are chart-kit.js's.
'use strict';
const { STUDY } = require('./study.js');
const { CPU_LEVELS_PCT: CPU_LEVELS } = require('./study-figures.js');
const { SCHEMA, base, meanCi, meanLayers, num, low, panelize } = require('./chart-kit.js');

const CPU_TITLE = 'CPU used (% of one core, summed over instances)';
const RPS_TITLE = 'throughput (req/s)';

/** One row per group with a CI on both its throughput and its (window-mean) CPU. */
function cpuRows(groups, filter = () => true) {
  return groups.filter((g) => g.kind === 'rep' && filter(g)).map((g) => ({ g, t: meanCi(g.stats.throughput_rps), c: meanCi(g.stats.cpu_used_pct) }))
    .filter((x) => x.t && x.c).map(({ g, t, c }) => ({
      app: g.app, series: g.series, instances: g.app_instances, load: g.load, line: `${g.series} ×${g.app_instances}`,
      throughput: t.mean, tlo: t.lo, thi: t.hi, cpu: c.mean, clo: c.lo, chi: c.hi,
    }));
}

/** CPU (y) against throughput (x), a line per app and instance count, CIs both ways. */
function throughputCpuLayers() {
  const enc = { x: { field: 'throughput', type: 'quantitative', title: RPS_TITLE }, color: { field: 'line', type: 'nominal', title: 'app ×instances' },
    order: { field: 'load' } };
  return meanLayers(enc, { field: 'cpu', title: CPU_TITLE }, { yLo: 'clo', yHi: 'chi', xCi: { lo: 'tlo', hi: 'thi' } });
}

const sloText = (slo) => `${slo.metric} latency ≤ ${slo.thresholdMs} ms`;

/**
 * Fig 7.1: throughput while each instance uses at most 100 % of one core and the load
 * steps meet the plan's SLO (study §7.2: mean end-to-end under 10 ms).
 */
function throughputAtFullCore(a) {
  const v = panelize(cpuRows(a.groups, (g) => g.stats.cpu_used_pct.mean <= 100 * g.app_instances && g.slo_met === true), (r) => r.line);
  if (!v.length) return null;
  return base('Throughput at ≤ 100 % CPU per instance (study Fig. 7.1)',
    `load steps with ${sloText(a.slo)} (plan slo; the study: mean < ${STUDY.fig71Slo.thresholdMs} ms, ${STUDY.fig71Slo.cite}); bars: 95 % CI both ways`,
    v, throughputCpuLayers());
}

/** Fig 7.4: throughput against CPU, one line per app and instance count. */
function throughputVsCpu(a) {
  const v = panelize(cpuRows(a.groups), (r) => r.line);
  if (!v.length) return null;
  return base('Throughput vs CPU per instance count (study Fig. 7.4)', 'one line per app and instance count; bars: 95 % CI both ways', v, throughputCpuLayers());
}

/** Fig 7.5/7.6: throughput read off at 100–400 % CPU (interpolated), per app and instance count. */
function throughputAtCpuLevels(a) {
  const v = a.cpuLevels.map((r) => ({ series: r.series, instances: r.instances, cpu: r.cpu_pct, throughput: num(r.throughput_rps) }));
  if (!v.length) return null;
  const x = { field: 'cpu', type: 'quantitative', title: CPU_TITLE, scale: { domain: [0, 400] }, axis: { values: CPU_LEVELS } };
  return base('Throughput at 100–400 % CPU (study Fig. 7.5, 7.6)', 'read off the throughput-vs-CPU lines, interpolated between load steps (not extrapolated)', v, [
    { mark: { type: 'line', point: true }, encoding: { x, y: { field: 'throughput', type: 'quantitative', title: RPS_TITLE },
      color: { field: 'series', type: 'nominal', title: 'app / variant' }, strokeDash: { field: 'instances', type: 'ordinal', title: 'instances' } } },
    { mark: { type: 'rule', strokeDash: [2, 4], color: 'gray' }, data: { values: CPU_LEVELS.map((c) => ({ c })) }, encoding: { x: { field: 'c', type: 'quantitative' } } },
  ]);
}

/**
 * Fig 7.5/7.6 for one app: its throughput against CPU (x: CPU, as the study drew it), one line
 * per instance count, with the 100-400 % lines the study read throughput off at and the
 * throughput read off where a line crosses one, with the interval read off the same way.
 */
function cpuEfficiency(a, app) {
  const v = cpuRows(a.groups, (g) => g.app === app);
  if (!v.length) return null;
  const levels = a.cpuLevels.filter((r) => r.app === app && r.ci_low !== null)
    .map((r) => ({ cpu: r.cpu_pct, throughput: num(r.throughput_rps), lo: low(r.ci_low), hi: num(r.ci_high) }));
  const x = { field: 'cpu', type: 'quantitative', title: CPU_TITLE, scale: { domain: [0, Math.max(400, ...v.map((r) => r.chi))] } };
  const y = { field: 'throughput', type: 'quantitative', title: RPS_TITLE };
  const enc = { x, color: { field: 'instances', type: 'ordinal', title: 'instances' }, order: { field: 'load' } };
  return base(`Throughput per CPU of ${app} (study Fig. ${app === 'java-app' ? '7.6' : '7.5'})`,
    'one line per instance count, bars: 95 % CI both ways; dashed: 100-400 % CPU; rings: the throughput read off where a line crosses one', v, [
      ...meanLayers(enc, y, { yLo: 'tlo', yHi: 'thi', xCi: { lo: 'clo', hi: 'chi' } }),
      { name: 'reference', mark: { type: 'rule', strokeDash: [2, 4], color: 'gray' }, data: { values: CPU_LEVELS.map((c) => ({ c })) }, encoding: { x: { field: 'c', type: 'quantitative', title: CPU_TITLE } } },
      { name: 'readoff', mark: { type: 'point', size: 90, shape: 'circle', filled: false, color: 'black' }, data: { values: levels }, encoding: { x, y } },
      { name: 'readoff_ci', mark: { type: 'rule', color: 'black' }, data: { values: levels }, encoding: { x, y: { ...y, field: 'lo' }, y2: { field: 'hi' } } },
    ]);
}

/**
 * Table 7.1 as bars per app and instance count: the CPU used (peak, as the study took it, and
 * the window mean; each with its 95 % CI) against the CPU available (quota or entitlement;
 * the study's notion, capped at the system under test's CPUs) and the study's published peak.
 */
function cpuUtilisation(a) {
  const v = [];
  for (const r of a.cpuTable) {
    const add = (kind, mark, pct, ci = null) => { if (num(pct) !== null) v.push({ series: r.series, instances: r.instances, kind, mark, pct, lo: ci?.lo ?? null, hi: ci?.hi ?? null }); };
    const peak = meanCi(r.cpu_peak_pct);
    const mean = meanCi(r.cpu_used_pct);
    if (peak) add('1 peak used (study\'s way)', 'mean', peak.mean, peak);
    if (mean) add('2 mean used (window)', 'mean', mean.mean, mean);
    add(`3 available (${r.available_basis ?? 'quota'})`, 'reference', r.cpu_available_pct);
    add('4 available (study: cell cores Java, 1 core Node.js)', 'reference', r.study_available_pct);
    add('5 study: max used (published)', 'reference', r.published?.maxCpuPct);
  }
  if (!v.some((x) => x.mark === 'mean')) return null;
  const x = { field: 'instances', type: 'ordinal', title: 'instances' };
  const y = { field: 'pct', type: 'quantitative', title: 'CPU (% of one core)' };
  const bars = (name) => ({ name, transform: [{ filter: `datum.mark === '${name}'` }], mark: 'bar',
    encoding: { x, xOffset: { field: 'kind' }, y, color: { field: 'kind', type: 'nominal', title: 'CPU' } } });
  return { $schema: SCHEMA, title: { text: 'CPU used vs available (study Table 7.1)', subtitle: `% of one core, summed over instances; bars: 95 % CI; the study's values: ${STUDY.table71.cite}` },
    data: { values: v }, facet: { column: { field: 'series', type: 'nominal', title: null } },
    spec: { width: 160, height: 220, layer: [bars('reference'), bars('mean'),
      { name: 'mean_ci', transform: [{ filter: "datum.mark === 'mean'" }], mark: { type: 'rule' }, encoding: { x, xOffset: { field: 'kind' }, y: { ...y, field: 'lo' }, y2: { field: 'hi' } } }] } };
}

module.exports = { cpuRows, throughputAtFullCore, throughputVsCpu, throughputAtCpuLevels, cpuEfficiency, cpuUtilisation };
