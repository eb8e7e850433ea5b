// claims.test.js — the claims of the results page (study-claims.js) on the verdict engine:
// on synthetic rounds with known answers (equivalent thread pools, a contradicted one, a
// void efficiency, the CPU a 1-CPU system under test cannot show), and on the real groups of
// the stored study run (helpers/study-fixture.js), whose two rounds a point decide nothing.
'use strict';
const assert = require('node:assert/strict');
const { after, before, test } = require('node:test');
const V = require('../../lib/verdict.js');
const { analyse } = require('../lib/report/analysis.js');
const { perRound } = require('../lib/report/claim-points.js');
const { claimRows, CLAIMS } = require('../lib/report/study-claims.js');
const { studyAnalyses } = require('../lib/report/study-page.js');
const { inStudy, shippedPlans } = require('../../plans/shipped.js');
const { stopOwnCluster, testDatabase } = require('./helpers/pg.js');
const { loadFixture, FIXTURE_2026_11_26, FIXTURE_PLANS_2026_11_26 } = require('./helpers/study-fixture.js');

let nextId = 1;
/** A trusted report_round_overview row of a plan's point. */
function row(experiment, { app = 'java-app', variant = 'default', k = 1, loadgens = 2, rps, cpuCores = 0.5, quota = null, memMib = 100, env = {} }) {
  const id = nextId++;
  return {
    round_id: id, created_at: new Date(Date.UTC(2026, 0, 1, 0, id)).toISOString(), status: 'done', platform: 'local', app, variant, experiment,
    app_instances: k, loadgens, model: 'closed', parallel: 8, scenario: 'read', samples: 1000, warmup_ms: 1000, duration_ms: 10_000, measured_s: 9,
    throughput_rps: rps, mean_us: 4000, p50_us: 3000, p95_us: 8000, p99_us: 12_000, error_rate: 0, cpu_used_cores: cpuCores, cpu_peak_cores: cpuCores,
    cpu_available_cores: quota, cpu_utilisation: quota ? cpuCores / quota : null, mem_avg_bytes: memMib * k * 2 ** 20, rps_per_core: rps / cpuCores,
    loadgen_cpu_max: 0.1, eloop_p99_max_us: 1000, late_fraction: 0, instance_restarts: 0, loadgen_runs: 1, loadgens_not_done: 0,
    rep: `rep${id}`, label: `exp:${experiment}:${app}:${variant}:i${k}:l${loadgens}:p8:rep${id}`, environment: { host_cpus: 2, ...env },
  };
}
const around = (x, n = 5, spread = 0.01) => Array.from({ length: n }, (_, i) => x * (1 + spread * (i - (n - 1) / 2)));
const plan = (rows) => analyse({ overview: rows, split: [] });
const claim = (analyses, start) => claimRows(analyses).find((c) => c.finding.startsWith(start));

test('equivalent thread pools reproduce "no deciding difference"; 30 % apart contradicts it; 2 rounds decide nothing', () => {
  const pools = (f, n = 5) => ['threads50', 'threads200'].flatMap((variant, i) => around(1000 * (i ? f : 1), n).map((rps) => row('jetty-threads', { variant, rps })));
  const same = claim({ 'jetty-threads': plan(pools(1.02)) }, 'Jetty');
  assert.equal(same.verdict, V.REPRODUCED, same.reason);
  assert.equal(same.own, true, 'our own experiment, marked');
  assert.deepEqual([same.n_min, same.ci_halfwidth_pct], [5, 2]);
  assert.equal(claim({ 'jetty-threads': plan(pools(1.3)) }, 'Jetty').verdict, V.CONTRADICTED);
  const two = claim({ 'jetty-threads': plan(pools(1.02, 2)) }, 'Jetty');
  assert.equal(two.verdict, V.INCONCLUSIVE);
  assert.match(two.reason, /n = 2 < 5 rounds/);
  assert.equal(two.n_min, 2);
});

test('scaling efficiency decided on its CI; above 1.1 it voids the reading (a bad baseline)', () => {
  const he = (eff2) => ({ 'horizontal-efficiency': plan([
    ...around(300).map((rps) => row('horizontal-efficiency', { app: 'node-app', k: 1, rps, cpuCores: 0.1, quota: 0.1 })),
    ...around(600 * eff2).map((rps) => row('horizontal-efficiency', { app: 'node-app', k: 2, rps, cpuCores: 0.2, quota: 0.2 })),
  ]) });
  const linear = claim(he(0.97), 'Node.js scales');
  assert.equal(linear.verdict, V.REPRODUCED, linear.reason);
  assert.match(linear.ours, /k = 2: 0\.97 \(95 % CI 0\.9\d to 0\.9\d, n = 5, 5\)/);
  const tooGood = claim(he(1.3), 'Node.js scales');
  assert.equal(tooGood.verdict, V.INCONCLUSIVE);
  assert.match(tooGood.reason, /1\.30 > 1\.1: a bad baseline voids the reading/);
  assert.equal(claim(he(0.6), 'Node.js scales').verdict, V.CONTRADICTED);
  // Utilisation is the window mean over the quota: all of it holds; 1.15 of it is void.
  assert.equal(claim(he(0.97), 'Node.js uses about 100 %').verdict, V.REPRODUCED);
  const over = { 'horizontal-efficiency': plan(around(300).map((rps) => row('horizontal-efficiency', { app: 'node-app', rps, cpuCores: 0.115, quota: 0.1 }))) };
  const void115 = claim(over, 'Node.js uses about 100 %');
  assert.equal(void115.verdict, V.INCONCLUSIVE);
  assert.match(void115.reason, /node ×1 1\.15 > 1\.1: a bad baseline voids the reading/);
});

test('a system under test of 1 CPU cannot show the JVM on a multi-core cell, nor 3 Node.js cores: not measurable here', () => {
  const sut = { sut_cpus: 1, host_cpu: { busy_cores: 1.0, sut_cores: 0.9, harness_cores: 0.1 } };
  const cu = plan([1, 2, 3].flatMap((k) => ['java-app', 'node-app'].flatMap((app) => around(500).map((rps) => row('cpu-utilisation', { app, k, rps, cpuCores: 0.97, env: sut })))));
  const java = claim({ 'cpu-utilisation': cu }, 'Java uses only part');
  assert.equal(java.verdict, V.NOT_MEASURABLE);
  assert.match(java.reason, /the JVM on a multi-core cell \(study: 4 cores, study §7\.2\) cannot be shown on the 1 CPU of the system under test/);
  const node = claim({ 'cpu-utilisation': cu }, 'Node.js uses about 100 %');
  // ×1: 0.97 of its one core; ×2, ×3 would need 2 and 3 CPUs.
  assert.equal(node.verdict, V.REPRODUCED, node.reason);
  assert.match(node.reason, /not measurable here: ×2 of 1 core per Node\.js instance: the study's 2 core\(s\) for 2 instance\(s\); the system under test had 1/);
  // Three 1-core quotas on that 1 CPU: the share is of the 1 CPU there was, not of 3.
  const quota = plan(around(500).map((rps) => row('horizontal-efficiency', { app: 'node-app', k: 3, rps, cpuCores: 0.97, quota: 3, env: sut })));
  const q = claim({ 'horizontal-efficiency': quota }, 'Node.js uses about 100 %');
  assert.equal(q.verdict, V.REPRODUCED, q.reason);
  assert.match(q.ours, /^×3 of its quota: 97 %/);
});

test('cpu-utilisation under a quota (its local profile) reads as a share of the quota, for both apps', () => {
  const sut = { sut_cpus: 1, host_cpu: { busy_cores: 0.8, sut_cores: 0.5, harness_cores: 0.3 } };
  const cu = plan([1, 2].flatMap((k) => ['java-app', 'node-app'].flatMap((app) => around(1000 * k).map((rps) => row('cpu-utilisation', { app, k, rps, cpuCores: 0.196 * k, quota: 0.2 * k, env: sut })))));
  const java = claim({ 'cpu-utilisation': cu }, 'Java uses only part');
  assert.equal(java.verdict, V.CONTRADICTED, java.reason);
  assert.match(java.ours, /^×1 of its quota: 98 %.*×2 of its quota: 98 %/);
  assert.equal(java.n_min, 5);
  const node = claim({ 'cpu-utilisation': cu }, 'Node.js uses about 100 %');
  assert.equal(node.verdict, V.REPRODUCED, node.reason);
  // Without a quota the same plan's groups read as the study's share, not twice.
  const free = plan(around(500).map((rps) => row('cpu-utilisation', { app: 'java-app', rps, cpuCores: 0.97, env: sut })));
  assert.equal(claim({ 'cpu-utilisation': free }, 'Java uses only part').verdict, V.NOT_MEASURABLE);
});

test('every claim names its kind, threshold and groups; missing plans are inconclusive on 0 rounds', () => {
  for (const c of claimRows({})) {
    assert.ok(c.test && c.compares, c.finding);
    assert.equal(c.verdict, V.INCONCLUSIVE, c.finding);
    assert.equal(c.n_min, 0, c.finding);
    assert.match(c.reason, /no trusted rounds of plan|no load step/, c.finding);
  }
  assert.deepEqual(CLAIMS.filter((c) => c.own).map((c) => c.finding), ['Jetty\'s thread pool (10–400) does not decide throughput', 'pg-native serves more than pg']);
});

describeFixture();

/** The stored study run: its groups have 2 trusted rounds at most, so nothing is decided on them. */
function describeFixture() {
  let db;
  let analyses;
  before(async () => {
    db = await testDatabase('claims');
    await loadFixture(db.client, FIXTURE_2026_11_26);
    // The plans as they were when the stored run was made: today's would find its rounds stale.
    const plans = shippedPlans('local', FIXTURE_PLANS_2026_11_26).map((e) => e.plan).filter(inStudy);
    analyses = Object.fromEntries(Object.entries(await studyAnalyses(db.client, plans)).map(([k, x]) => [k, x.analysis]));
  });
  after(async () => {
    await db.drop();
    stopOwnCluster();
  });

  test('the fixture\'s real groups (n ≤ 2) come out inconclusive from the engine', () => {
    const a = analyses['pool-size'];
    const at = (variant) => a.groups.find((g) => g.app === 'node-app' && g.variant === variant && g.load === 32);
    const [p30, p60] = [at('pool30'), at('pool60')];
    assert.ok(p30.round_ids.length <= 2 && p60.round_ids.length <= 2, 'the stored run has 2 rounds a point');
    const eq = V.equivalent({ label: 'pool30', values: perRound(a, p30, (r) => r.throughput_rps) }, { label: 'pool60', values: perRound(a, p60, (r) => r.throughput_rps) });
    assert.equal(eq.verdict, V.INCONCLUSIVE);
    assert.match(eq.reason, /pool30: n = 2 < 5 rounds/);
    const h = analyses['horizontal-efficiency'];
    const k = (n) => h.groups.find((g) => g.app_instances === n);
    const eff = V.ratioVersus({ label: 'X(1)', values: perRound(h, k(1), (r) => r.throughput_rps) }, { label: 'X(2)', values: perRound(h, k(2), (r) => r.throughput_rps) },
      { scale: 0.5, direction: 'at least', threshold: 0.9, voidable: true });
    assert.equal(eff.verdict, V.INCONCLUSIVE);
  });

  test('on the stored run no claim is reproduced or contradicted: every one inconclusive or not measurable, n_min ≤ 2', () => {
    const rows = claimRows(analyses);
    assert.equal(rows.length, CLAIMS.length);
    for (const c of rows) {
      assert.ok([V.INCONCLUSIVE, V.NOT_MEASURABLE].includes(c.verdict), `${c.finding}: ${c.verdict}: ${c.reason}`);
      if (c.verdict === V.INCONCLUSIVE) assert.ok(c.n_min <= 2, `${c.finding}: n_min ${c.n_min}`);
    }
  });
}
