// study-figures-page.js — each figure and table of the study (Zeng 2017) on the results page:
// which plan's rounds draw it, the chart, what the study showed, and two or three sentences
// on ours, all computed from the analyses (analysis.js) of the study's plans. The page
// (study-page.js) writes them; nothing here is typed in by hand but the study's own words.
'use strict';
const C = require('./charts.js');
const { roundMemory } = require('./round-charts.js');
const { STUDY } = require('./study.js');
const { meanCi, meanLayers } = require('./chart-kit.js');
const { sameOrDifferent } = require('../../../lib/verdict.js');

const n0 = (x) => Math.round(x).toLocaleString('en-US');
const n1 = (x) => x.toFixed(1);
const pct = (x) => `${Math.round(100 * x)} %`;

/** "1,234 req/s (95 % CI 1,200–1,270, n = 2)" from a summarize() result. */
function withCi(s, unit = 'req/s', f = n0) {
  if (!s?.n) return 'not measured';
  const ci = s.n >= 2 && Number.isFinite(s.ciLow) ? `95 % CI ${f(Math.max(0, s.ciLow))}–${f(s.ciHigh)}, ` : '';
  return `${f(s.mean)} ${unit} (${ci}n = ${s.n})`;
}

const reps = (a) => a.groups.filter((g) => g.kind === 'rep' && g.stats.throughput_rps.n);
const byApp = (gs, app) => gs.filter((g) => g.app === app);
const best = (gs, m = 'throughput_rps') => gs.reduce((b, g) => (!b || g.stats[m].mean > b.stats[m].mean ? g : b), null);

/** A chart of one app's part of an analysis (the same function, fewer groups). */
const onlyApp = (chart, app) => (a) => chart({
  ...a, groups: a.groups.filter((g) => g.app === app), cpuLevels: a.cpuLevels.filter((r) => r.app === app),
  cpuTable: a.cpuTable.filter((r) => r.app === app),
});

/**
 * Fig 4.3, by our procedure, not the study's: the mean memory used over the measured window
 * (and the throughput) at each container size, per app, with their 95 % CIs. The study read
 * the memory an app needs off its rise under load until the first full GC (§4.2.2).
 */
function memorySizes(a) {
  const v = reps(a).map((g) => ({ g, size: g.stats.mem_quota_mb.n ? Math.round(g.stats.mem_quota_mb.mean) : null }))
    .filter((x) => x.size !== null).flatMap(({ g, size }) => [['throughput (req/s)', meanCi(g.stats.throughput_rps), 1],
      ['memory used per instance (MiB)', meanCi(g.stats.mem_mb), g.app_instances]]
      .filter(([, m]) => m).map(([metric, m, k]) => ({ app: g.app, size, metric, mean: m.mean / k, lo: m.lo / k, hi: m.hi / k })));
  if (!v.length) return null;
  const panel = (metric) => ({ width: 240, height: 220, transform: [{ filter: { field: 'metric', equal: metric } }],
    layer: meanLayers({ x: { field: 'size', type: 'quantitative', title: 'container memory (MiB)' }, color: { field: 'app', type: 'nominal', title: 'app' } },
      { field: 'mean', title: metric }) });
  return {
    $schema: 'https://vega.github.io/schema/vega-lite/v6.json',
    title: { text: 'Memory at rising container sizes (our procedure, not the study\'s; study Fig. 4.3)',
      subtitle: 'window means at each size, bars: 95 % CI; the study read the memory needed off its rise until the first full GC (§4.2.2)' },
    data: { values: v }, hconcat: ['throughput (req/s)', 'memory used per instance (MiB)'].filter((m) => v.some((r) => r.metric === m)).map(panel),
  };
}

/** The per-second series of one app's rounds. */
function seriesOf(a, app) {
  const ids = new Set(a.rounds.filter((r) => r.app === app && r.trusted).map((r) => Number(r.round_id)));
  return { seconds: a.series.seconds.filter((s) => ids.has(s.round_id)), instances: a.series.instances.filter((s) => ids.has(s.round_id)) };
}

/** Fig 7.3: memory per instance per second of the trusted Java rounds (the study saw a surge). */
const javaMemoryOverTime = (a) => roundMemory({ ...a, series: seriesOf(a, 'java-app') });

function loadgensSay(a) {
  const gs = reps(a).sort((x, y) => x.loadgens - y.loadgens);
  if (gs.length < 2) return 'Too few load steps to say.';
  const lo = gs[0];
  const hi = gs[gs.length - 1];
  const gain = hi.stats.throughput_rps.mean / lo.stats.throughput_rps.mean;
  return `From ${lo.loadgens} to ${hi.loadgens} loadgen instances the throughput went from ${withCi(lo.stats.throughput_rps)} to `
    + `${withCi(hi.stats.throughput_rps)}, ${n1(gain)}× for ${hi.loadgens / lo.loadgens}× the instances: `
    + `${gain >= 0.8 * (hi.loadgens / lo.loadgens) ? 'the load grows with the instances, as the study found' : 'the load grows less than the instances: past some count the app (or this host), not the generator, sets the pace'}.`;
}

function memorySay(a, m) {
  const rows = m.memoryNeeded;
  if (!rows.length) return 'Too few memory sizes to say.';
  return rows.map((r) => `${r.app}: ${r.memory_needed_mib} MiB is enough (no larger size served significantly more or faster`
    + `${r.largest ? '; the largest size tried, so possibly more' : ''}); sizes tried ${r.sizes_mib.join(', ')} MiB.`).join(' ')
    + ` ${usedMemory(a)}`;
}

function usedMemory(a) {
  const used = (app) => {
    const gs = byApp(reps(a), app).filter((g) => g.stats.mem_mb.n);
    return gs.length ? Math.max(...gs.map((g) => g.stats.mem_mb.mean / g.app_instances)) : null;
  };
  const j = used('java-app');
  const n = used('node-app');
  return j && n ? `At most ${n0(j)} MiB used per Java instance against ${n0(n)} MiB per Node.js one (${n1(j / n)}×).`
    : 'No trusted round of both apps holds a memory sample.';
}

function poolSay(a) {
  const loads = [...new Set(reps(a).map((g) => g.load))].sort((x, y) => x - y);
  const parts = [];
  for (const app of ['java-app', 'node-app']) {
    const top = loads[loads.length - 1];
    const gs = byApp(reps(a), app).filter((g) => g.load === top);
    if (gs.length < 2) continue;
    const hi = best(gs);
    const lo = gs.reduce((b, g) => (!b || g.stats.throughput_rps.mean < b.stats.throughput_rps.mean ? g : b), null);
    const spread = hi.stats.throughput_rps.mean / lo.stats.throughput_rps.mean - 1;
    const c = sameOrDifferent({ label: lo.variant, values: lo.values.throughput_rps }, { label: hi.variant, values: hi.values.throughput_rps });
    parts.push(`${app} at ${top} requests in flight: ${hi.variant} ${withCi(hi.stats.throughput_rps)} against ${lo.variant} `
      + `${withCi(lo.stats.throughput_rps)}, ${pct(spread)} apart; the verdict engine: *${c.answer}* (${c.reason}).`);
  }
  return parts.join(' ') || 'Too few pool sizes to say.';
}

function splitSay(a) {
  const gs = reps(a).filter((g) => g.split.loadgen.n && g.split.db.n);
  if (!gs.length) return 'No latency split (server timings) recorded.';
  const parts = [];
  for (const app of ['java-app', 'node-app']) {
    const mine = byApp(gs, app).sort((x, y) => x.load - y.load);
    if (mine.length < 2) continue;
    const lo = mine[0];
    const hi = mine[mine.length - 1];
    parts.push(`${app}: from ${lo.load} to ${hi.load} requests in flight the end-to-end mean went from ${n1(lo.split.loadgen.mean)} to `
      + `${n1(hi.split.loadgen.mean)} ms while the database's part went from ${n1(lo.split.db.mean)} to ${n1(hi.split.db.mean)} ms`
      + ` (${pct(hi.split.db.mean / hi.split.loadgen.mean)} of it at the top).`);
  }
  return `${parts.join(' ')} The study found the database time stable while the end-to-end time peaked.`;
}

function perCoreSay(a) {
  const rows = (app) => reps(a).filter((g) => g.app === app && g.slo_met && g.stats.rps_per_core.n);
  const top = (app) => best(rows(app), 'rps_per_core');
  const j = top('java-app');
  const n = top('node-app');
  if (!j || !n) return `No load step of both apps met the SLO (${a.slo.metric} ≤ ${a.slo.thresholdMs} ms) at ≤ 100 % CPU.`;
  return `Per core of CPU used, Java served up to ${withCi(j.stats.rps_per_core, 'req/s per core')} and Node.js up to `
    + `${withCi(n.stats.rps_per_core, 'req/s per core')} (load steps meeting the SLO, each instance held to one core). `
    + `The study found more throughput from Java at the same CPU.`;
}

function cpuUseSay(a) {
  const rows = a.cpuTable.filter((r) => r.app === 'java-app');
  if (!rows.length) return 'No Java CPU figures.';
  return rows.map((r) => `Java ×${r.instances}: peak ${n0(r.cpu_peak_pct.mean)} % of one core, ${r.study_utilisation === null ? '' : `${pct(r.study_utilisation)} of the ${n0(r.study_available_pct)} % it could have (${r.study_basis})`}.`).join(' ')
    + ' The study: Java never used all of its cell\'s 4 cores (Fig. 7.2).';
}

function memoryTimeSay(a) {
  const mem = seriesOf(a, 'java-app').instances.filter((s) => s.mem_bytes != null);
  if (!mem.length) return 'No Java memory series.';
  const mb = mem.map((s) => Number(s.mem_bytes) / 2 ** 20);
  return `Java's memory per instance ranged from ${n0(Math.min(...mb))} to ${n0(Math.max(...mb))} MiB over its trusted rounds `
    + `(one sample per instance per second). The study saw an abnormal surge with one Java instance (Fig. 7.3).`;
}

function cpuCurveSay(a) {
  const parts = [];
  for (const app of ['java-app', 'node-app']) {
    const gs = byApp(reps(a), app).filter((g) => g.stats.cpu_used_pct.n);
    const top = best(gs);
    if (top) parts.push(`${app} peaked at ${withCi(top.stats.throughput_rps)} with ${top.app_instances} instance(s) using ${n0(top.stats.cpu_used_pct.mean)} % of one core in all`);
  }
  return `${parts.join('; ')}.`;
}

function levelsSay(app) {
  return (a) => {
    const rows = a.cpuLevels.filter((r) => r.app === app);
    if (!rows.length) return `The ${app} lines never reached 100 % CPU: nothing to read off (not extrapolated).`;
    return rows.map((r) => `×${r.instances} at ${r.cpu_pct} % CPU: ${n0(r.throughput_rps)} req/s`).join('; ') + '.';
  };
}

function memoryThroughputSay(a) {
  return `${usedMemory(a)} The study: Node.js used little memory over the whole range, Java much more, not in proportion to its throughput.`;
}

function table71Say(a) {
  return a.cpuTable.map((r) => `${r.app} ×${r.instances}: peak ${n0(r.cpu_peak_pct.mean)} % of one core`
    + `${r.study_utilisation === null ? '' : `, ${pct(r.study_utilisation)} of the study's notion of available (${r.study_basis})`}`
    + `${r.utilisation === null ? '' : `, ${pct(r.utilisation)} of its quota`}${r.published ? ` (study: ${r.published.utilisationPct} %)` : ''}`).join('; ') + '.';
}

// Why a figure's chart can be empty when its plan has points of 2 trusted rounds.
const EMPTY = {
  'Fig. 3.1': 'fewer than two loadgen counts with a 95 % CI',
  'Fig. 4.3': 'no container size with a 95 % CI',
  'Fig. 6.3': 'no latency split (server and router timings) with a 95 % CI',
  'Fig. 7.1': 'no load step met the SLO at ≤ 100 % CPU per instance with a 95 % CI on both its throughput and its CPU',
  'Fig. 7.3': 'no memory series of a trusted Java round',
};

// [id, title, plan, chart(analysis) → spec, what the study showed, our sentences(analysis, analyses)]
const FIGURES = [
  ['Fig. 3.1', 'Load produced by loadgen instances', 'loadgen-scaling', C.throughputVsLoadgens,
    'Load grows with the number of loadgen instances (a Grafana screenshot of the router, no values; study §3.4).', loadgensSay],
  ['Fig. 4.3', 'Memory needed (our procedure, not the study\'s)', 'memory-needed', memorySizes,
    'Memory rises under load until the first full GC, then stays: the memory an app needs (§4.2.2). A Node.js app needs at most about 100 MB (§4.1.3); Java much more. '
      + 'Ours is a different procedure: the same load at rising container sizes, the memory used over the window (the first full GC per round is in the CSVs of `report.sh`).', (a) => memorySay(a, a)],
  ['Fig. 6.2', 'Database connection pool 30 / 60 / 90', 'pool-size', C.throughputVsLoad,
    'Pool size 90 reached the upper limit slightly earlier, 60 slightly better than 30: the pool size is not a deciding bottleneck (§6.2).', poolSay],
  ['Fig. 6.3', 'End-to-end vs database time', 'pool-size', C.latencySplitVsLoad,
    'When the end-to-end response time peaks, the database response time stays stable (§6.2).', splitSay],
  ['Fig. 7.1', 'Throughput at ≤ 100 % CPU', 'cpu-100', C.throughputAtFullCore,
    `The same CPU brings more throughput in Java than in Node.js; Node.js's gains flatten near 100 % CPU (§7.2; SLO: mean < ${STUDY.fig71Slo.thresholdMs} ms).`, perCoreSay],
  ['Fig. 7.2', 'Limited CPU usage in Java', 'cpu-utilisation', onlyApp(C.cpuUtilisation, 'java-app'),
    'Java never got to use all of its 4 CPUs; database and router were not under stress (§7.3.1).', cpuUseSay],
  ['Fig. 7.3', 'Memory over time (Java)', 'memory-vs-throughput', javaMemoryOverTime,
    'An abnormal increase of memory with one Java instance; no cause found (§7.3.1).', memoryTimeSay],
  ['Fig. 7.4', 'Throughput in relation to CPU', 'throughput-vs-cpu', C.throughputVsCpu,
    'Java at 1-3 instances (the router its limit at 3), Node.js at 1-5: throughput against CPU (§7.3.2).', cpuCurveSay],
  ['Fig. 7.5', 'CPU efficiency of Node.js', 'throughput-vs-cpu', (a) => C.cpuEfficiency(a, 'node-app'),
    'Read off at 100-400 % CPU, Node.js throughput scales with instances, linearly per CPU (§7.3.2).', levelsSay('node-app')],
  ['Fig. 7.6', 'CPU efficiency of 3 Java instances', 'throughput-vs-cpu', (a) => C.cpuEfficiency(a, 'java-app'),
    'With more CPU, Java throughput scales almost linearly (§7.3.2).', levelsSay('java-app')],
  ['Fig. 7.7', 'Memory in relation to throughput', 'throughput-vs-cpu', C.memoryVsThroughput,
    'Node.js shows excellent memory use over the whole range; Java is memory demanding, not in proportion to its throughput (§7.3.2).', memoryThroughputSay],
  ['Table 7.1', 'Percentage of utilized CPU', 'cpu-utilisation', C.cpuUtilisation,
    'Java used 57 %, 45 %, 35 % of its cells\' cores at 1-3 instances; Node.js 103-94 % of one core per instance at 1-5 (§7.3.2).', table71Say],
].map(([id, title, plan, chart, study, say]) => ({ id, title, plan, chart, study, say, empty: EMPTY[id] }));

module.exports = { FIGURES, withCi, reps, best, byApp, usedMemory, n0, n1, pct };
