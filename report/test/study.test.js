// The study's figures computed the study's way, on synthetic groups with known answers:
// Table 7.1 (peak CPU against the quota and against the study's notion of available CPU),
// Fig. 7.5/7.6 (throughput at 100-400 % CPU, interpolated), Fig. 7.1 (the plan's SLO),
// Fig. 3.1 (load by loadgen instances), §7.3's stops and the capacity search beside the
// study's published values, and the environment as key = value lines.
'use strict';
const assert = require('node:assert/strict');
const { test } = require('node:test');
const { analyse } = require('../lib/report/analysis.js');
const { cpuLevels, cpuTable, memoryNeeded, scaleStops } = require('../lib/report/study-figures.js');
const { capacityChart, throughputAtCpuLevels, throughputAtFullCore, throughputVsLoadgens, buildCharts } = require('../lib/report/charts.js');
const { keyValues } = require('../lib/report/html.js');
const { firstFullGc, roundMemory } = require('../lib/report/round-charts.js');
const { STUDY, studyAvailableCores } = require('../lib/report/study.js');
const { summarize } = require('../../lib/inference.js');
const { chartSvg } = require('../lib/report/render.js');

/** A group as analysis.js makes it, from per-round values. */
function group({ app = 'java-app', k = 1, loadgens = 4, parallel = 1, rps, cpu, peak, quota = null, entitled = null, meanMs = 5, platform = 'local', hostCpus = 2, sutCpus = null }) {
  const vals = { throughput_rps: rps, cpu_used_pct: cpu, cpu_peak_pct: peak ?? cpu, cpu_available_pct: quota ?? [],
    cpu_entitled_pct: entitled ?? [], mean_ms: [meanMs], p95_ms: [meanMs * 2], p99_ms: [meanMs * 3] };
  const stats = Object.fromEntries(Object.entries(vals).map(([m, v]) => [m, summarize(v)]));
  return { experiment: 'x', app, variant: 'default', series: app, app_instances: k, loadgens, parallel, model: 'closed', kind: 'rep',
    load: loadgens * parallel, platform, host_cpus: hostCpus, sut_cpus: sutCpus, values: vals, stats, slo_met: null };
}

test('Table 7.1: the peak of the load step with the highest peak, against the quota and the study notion', () => {
  const gs = [
    group({ k: 2, rps: [100, 110], cpu: [150, 150], peak: [200, 210], quota: [160, 160] }),
    group({ k: 2, loadgens: 8, rps: [150, 150], cpu: [180, 190], peak: [300, 310], quota: [160, 160] }),
    group({ app: 'node-app', k: 3, rps: [90], cpu: [280], peak: [291], hostCpus: 8 }),
    group({ app: 'java-app', k: 1, rps: [50], cpu: [100], peak: [229], entitled: [80, 80], platform: 'cf', hostCpus: null }),
  ];
  const [j1, j2, n3] = cpuTable(gs);
  assert.equal(j2.cpu_peak_pct.mean, 305);
  assert.equal(j2.cpu_available_pct, 160);
  assert.equal(j2.available_basis, 'quota');
  assert.equal(j2.utilisation, 305 / 160);
  // Locally the host's cores stand for the cell's: 2 cores × 2 Java instances, but never more
  // than the system under test had (sut_cpus not recorded: the host's 2 cores).
  assert.equal(j2.study_wanted_pct, 400);
  assert.equal(j2.study_available_pct, 200);
  assert.equal(j2.study_capped, true);
  assert.match(j2.study_basis, /capped at the 2 CPU\(s\) of the system under test/);
  assert.equal(j2.study_utilisation, 305 / 200);
  assert.deepEqual(j2.published, { runtime: 'java', instances: 2, maxCpuPct: 361, availablePct: 800, utilisationPct: 45 });
  // Node.js: one core per instance, whatever the host has.
  assert.equal(n3.study_available_pct, 300);
  assert.equal(n3.study_utilisation, 291 / 300);
  assert.equal(n3.cpu_available_pct, null);
  assert.equal(n3.published.utilisationPct, 97);
  // CF: no quota; the entitlement stands in, and the cell's cores are the study's assumption, said so.
  assert.equal(j1.available_basis, 'entitlement');
  assert.equal(j1.cpu_available_pct, 80);
  assert.equal(j1.study_available_pct, 400);
  assert.equal(j1.study_assumed, true);
  assert.match(j1.study_basis, /^assumed 4 cores per cell \(study §7\.2\)$/);
  assert.equal(j1.study_utilisation, 229 / 400);
  assert.deepEqual(studyAvailableCores('node-app', 5, null), { cores: 5, wanted: 5, capped: false, basis: '1 core per Node.js instance', assumed: false });
});

test('Table 7.1: the available CPU is capped at the CPUs of the system under test (environment.sut_cpus)', () => {
  const [j3, n3] = cpuTable([
    group({ k: 3, rps: [50], cpu: [90], peak: [95], quota: [300], hostCpus: 2, sutCpus: 1 }),
    group({ app: 'node-app', k: 3, rps: [50], cpu: [90], peak: [99], hostCpus: 8, sutCpus: 1 }),
  ]);
  // A Java instance's cell is the system under test's one CPU: 3 × 1 wanted, 1 there.
  assert.deepEqual([j3.study_wanted_pct, j3.study_available_pct, j3.study_capped], [300, 100, true]);
  assert.equal(j3.study_utilisation, 95 / 100);
  // Three 1-core quotas on 1 CPU: 100 % was there to use, not 300 %.
  assert.deepEqual([j3.cpu_available_pct, j3.utilisation], [100, 95 / 100]);
  assert.match(j3.available_basis, /^quota, capped at the 1 CPU\(s\) of the system under test$/);
  assert.deepEqual([n3.study_wanted_pct, n3.study_available_pct, n3.study_capped], [300, 100, true]);
  // CF: no cap known, the study's 4 cores a cell assumed.
  assert.equal(studyAvailableCores('java-app', 2, null, null).cores, 8);
  assert.equal(studyAvailableCores('java-app', 2, null, 4).cores, 4);
});

test('Fig. 7.5/7.6: throughput at 100-400 % CPU, interpolated between load steps, never extrapolated', () => {
  const gs = [
    group({ app: 'node-app', k: 3, loadgens: 4, rps: [100], cpu: [50] }),
    group({ app: 'node-app', k: 3, loadgens: 8, rps: [300], cpu: [150] }),
    group({ app: 'node-app', k: 3, loadgens: 16, rps: [400], cpu: [250] }),
    group({ app: 'node-app', k: 3, loadgens: 24, rps: [500], cpu: [300] }),
    group({ app: 'java-app', k: 1, loadgens: 4, rps: [80], cpu: [120] }),
  ];
  const rows = cpuLevels(gs).map((r) => [r.app, r.instances, r.cpu_pct, r.throughput_rps]);
  assert.deepEqual(rows, [
    // java-app: one point at 120 %: no level inside its range.
    ['node-app', 3, 100, 200], ['node-app', 3, 200, 350], ['node-app', 3, 300, 500],
  ]);
  // Each step's 95 % interval read off the same way: 105 ± 63.53 and 305 ± 63.53 (t(0.975, 1) · 5), halfway.
  const [half] = cpuLevels([group({ app: 'node-app', k: 1, loadgens: 4, rps: [100, 110], cpu: [50, 50] }),
    group({ app: 'node-app', k: 1, loadgens: 8, rps: [300, 310], cpu: [150, 150] })]);
  assert.equal(half.throughput_rps, 205);
  assert.ok(Math.abs(half.ci_low - (205 - 12.7062047 * 5)) < 1e-4 && Math.abs(half.ci_high - (205 + 12.7062047 * 5)) < 1e-4, JSON.stringify(half));
  assert.equal(rows.length && cpuLevels(gs)[0].ci_low, null, 'one round a step: no interval');
  const spec = throughputAtCpuLevels({ cpuLevels: cpuLevels(gs) });
  assert.deepEqual(spec.data.values.map((v) => v.throughput), [200, 350, 500]);
  assert.deepEqual(spec.layer[0].encoding.x.axis.values, [100, 200, 300, 400]);
});

test('Fig. 7.1 keeps the load steps that meet the plan SLO (mean <= 10 ms) at <= 100 % CPU', () => {
  const row = (id, loadgens, meanUs, cpuCores) => ({
    round_id: id, status: 'done', app: 'node-app', variant: 'default', experiment: 'cpu-100', app_instances: 1, loadgens, model: 'closed',
    parallel: 1, scenario: 'read', samples: 1000, warmup_ms: 1000, duration_ms: 10_000, measured_s: 9, throughput_rps: 100 * loadgens,
    mean_us: meanUs, p95_us: 2 * meanUs, p99_us: 3 * meanUs, error_rate: 0, cpu_used_cores: cpuCores, cpu_peak_cores: cpuCores,
    loadgen_cpu_max: 0.1, eloop_p99_max_us: 1000, late_fraction: 0, instance_restarts: 0, loadgen_runs: 1, loadgens_not_done: 0,
    rep: 'rep1', label: `exp:cpu-100:node-app:default:i1:l${loadgens}:p1:rep1`, environment: {}, platform: 'local',
  });
  // Two rounds a step: a mean is drawn only with its 95 % CI.
  const data = { overview: [row(1, 1, 4000, 0.3), row(2, 2, 9000, 0.7), row(3, 4, 12_000, 0.9), row(4, 8, 8000, 1.2)]
    .flatMap((r) => [r, { ...r, round_id: r.round_id + 10, rep: 'rep2' }]), split: [] };
  const a = analyse(data, { slo: { metric: 'mean', thresholdMs: 10, maxErrorRate: 0.01 } });
  assert.deepEqual(a.groups.map((g) => [g.loadgens, g.slo_met]), [[1, true], [2, true], [4, false], [8, true]]);
  const spec = throughputAtFullCore(a);
  // 4 loadgens misses the SLO (12 ms), 8 loadgens is over one core (120 %).
  assert.deepEqual(spec.data.values.map((v) => v.load), [1, 2]);
  assert.match(spec.title.subtitle, /mean latency ≤ 10 ms \(plan slo; the study: mean < 10 ms, study §7\.2\)/);
  // The default SLO (p95 <= 100 ms) when no plan gives one.
  assert.ok(analyse(data).groups.every((g) => g.slo_met));
  // No-warm-up rounds are counted for the method paragraph, not flagged on the round.
  const cold = analyse({ overview: [{ ...row(5, 1, 4000, 0.3), warmup_ms: 0 }], split: [] });
  assert.deepEqual(cold.noWarmup, [5]);
  assert.ok(cold.rounds[0].flags.every((f) => f.code !== 'no-warmup' || f.severity === 'info'));
});

test('Fig. 3.1: throughput against the number of loadgen instances', () => {
  const gs = [1, 2, 4].map((l) => group({ app: 'node-app', k: 2, loadgens: l, parallel: 4, rps: [90 * l, 110 * l], cpu: [10] }));
  const spec = throughputVsLoadgens({ groups: gs });
  assert.deepEqual(spec.data.values.map((v) => [v.loadgens, v.mean]), [[1, 100], [2, 200], [4, 400]]);
  assert.equal(spec.data.values[0].per, '4 in flight each');
  assert.deepEqual(spec.layer[0].encoding.detail, { field: 'instances', type: 'ordinal' }, 'one line per instance count');
  assert.equal(throughputVsLoadgens({ groups: gs.slice(0, 1) }), null, 'one loadgen count: nothing to draw');
});

test('§7.3: stops beside the study, capacity per instance count with the soak verdict', () => {
  const stops = scaleStops([
    { kind: 'scale-until-slo', experiment: 's', app: 'java-app', variant: 'default', instances: 2, loadgens: 40, stop: 'router-saturation', reason: 'r' },
    { kind: 'capacity', experiment: 'c', app: 'node-app', variant: 'default', instances: 1, capacity_rps: 300, confirmed: true, reason: 'soak confirmed' },
  ]);
  assert.equal(stops.length, 1);
  assert.deepEqual(stops[0].published, STUDY.scaleStops.rows[0]);
  assert.equal(stops[0].published.instances, 3);
  const capacity = [
    { app: 'node-app', variant: 'default', instances: 1, capacity_rps: 300, confirmed: true },
    { app: 'node-app', variant: 'default', instances: 2, capacity_rps: 560, confirmed: false },
    { app: 'node-app', variant: 'default', instances: 3, capacity_rps: null, confirmed: false },
  ];
  const spec = capacityChart({ capacity });
  assert.deepEqual(spec.data.values.map((v) => [v.instances, v.capacity, v.soak]),
    [[1, 300, 'confirmed by the soak'], [2, 560, 'soak failed']]);
  assert.equal(capacityChart({ capacity: [] }), null);
});

test('the environment column: key = value lines, nested keys dotted, HTML escaped', () => {
  const html = keyValues(JSON.stringify({ host_cpus: 2, quota: { app: 0.5 }, tag: '<b>' }));
  assert.equal(html, '<div class="kv"><span class="k">host_cpus</span> = 2<br><span class="k">quota.app</span> = 0.5<br>'
    + '<span class="k">tag</span> = &lt;b&gt;</div>');
  assert.equal(keyValues('{}'), '–');
});

test('Fig. 4.3/7.3: the first full GC (first drop below 90 % of the peak) and the memory needed before it', () => {
  const MiB = 2 ** 20;
  const series = (round, index, mibs) => mibs.map((m, i) => ({ round_id: round, instance_index: index, second: 5 * i, measured: true,
    mem_bytes: m === null ? null : m * MiB, cpu: 0.5, cpu_quota_cores: null }));
  const instances = [
    ...series(7, 0, [100, 180, 250, 300, 290, 200, 260, 150]), // drop at 25 s (200 < 0.9 × 300)
    ...series(7, 1, [100, 120, 140, null, 160]), // grows, never drops
  ];
  assert.deepEqual(firstFullGc(instances), [
    { round_id: 7, instance_index: 0, first_gc_second: 25, memory_needed_mib: 300, after_gc_mib: 200, peak_second: 15 },
    { round_id: 7, instance_index: 1, first_gc_second: null, memory_needed_mib: null, after_gc_mib: null, peak_second: null },
  ]);
  const spec = roundMemory({ series: { seconds: [{ round_id: 7, second: 0 }], instances } });
  const ring = spec.data.values.filter((v) => v.gc);
  assert.deepEqual(ring.map((v) => [v.instance, v.second, v.mib]), [['0', 15, 300]]);
  assert.match(spec.title.text, /study Fig\. 4\.3, 7\.3/);
});

test('regression: one load step drew its axis label as 16.000000 (the tick step is 0); now 16', async () => {
  const g = { ...group({ app: 'node-app', loadgens: 4, parallel: 4, rps: [100, 110], cpu: [50, 52] }),
    split: Object.fromEntries(['loadgen', 'router', 'app', 'pool_wait', 'db', 'network', 'router_own', 'app_own'].map((p) => [p, summarize([])])) };
  g.stats.mem_mb = summarize([]);
  const a = { groups: [g], cpuTable: [], cpuLevels: [], efficiency: [], capacity: [], slo: { metric: 'mean', thresholdMs: 10 },
    series: { seconds: [], instances: [] } };
  const charts = buildCharts(a);
  const load = charts.find((c) => c.name === 'throughput-vs-load');
  const labels = [...(await chartSvg(load.spec)).matchAll(/<text[^>]*>([^<]*)<\/text>/g)].map((m) => m[1]);
  assert.ok(labels.includes('16'), labels.join('|'));
  assert.ok(!labels.some((l) => /\.0{3,}/.test(l)), labels.join('|'));
  for (const c of charts) assert.deepEqual(c.spec.config.axisQuantitative, { format: ',~r' }, c.name);
});

test('memory needed: the smallest memory no larger one beats on throughput or p95', () => {
  const at = (mib, rps, p95) => {
    const g = group({ app: 'java-app', rps, cpu: [100, 100, 100] });
    g.values.mem_quota_mb = [mib, mib, mib];
    g.values.p95_ms = p95;
    g.stats.mem_quota_mb = summarize(g.values.mem_quota_mb);
    g.stats.p95_ms = summarize(p95);
    return g;
  };
  // 512 -> 768: throughput clearly up; 768 -> 1024 -> 1536: within noise on both.
  const gs = [at(1024, [201, 199, 200], [10, 11, 10]), at(512, [150, 151, 149], [20, 21, 19]),
    at(768, [200, 201, 199], [10, 10, 11]), at(1536, [202, 198, 200], [10, 11, 11])];
  const [m] = memoryNeeded(gs);
  assert.deepEqual(m.sizes_mib, [512, 768, 1024, 1536]);
  assert.equal(m.memory_needed_mib, 768);
  assert.equal(m.largest, false);
  // Latency alone counts too: 1536 has a clearly lower p95 than everything below.
  gs[3] = at(1536, [202, 198, 200], [5, 5.1, 4.9]);
  assert.equal(memoryNeeded(gs)[0].memory_needed_mib, 1536);
  assert.equal(memoryNeeded(gs)[0].largest, true, 'the largest size tried: raise further');
  assert.deepEqual(memoryNeeded(gs.slice(0, 1)), [], 'one size: nothing to decide');
});
