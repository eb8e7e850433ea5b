// The keep-alive chart (study §5.2.3) on synthetic rounds with known answers: groups split by
// keep-alive and proxy count, the busiest proxy's CPU, and the study's cap per proxy count.
'use strict';
const assert = require('node:assert/strict');
const { test } = require('node:test');
const { analyse } = require('../lib/report/analysis.js');
const { buildCharts } = require('../lib/report/charts.js');
const { capRows, keepaliveRows, keepaliveThroughput, proxyCpuMaxPct, STUDY_PROXY_CAP_RPS } = require('../lib/report/keepalive-chart.js');

let id = 0;
// One done round of the keepalive plan with throughput `rps` and proxy CPU per proxy (cores).
function round(variant, loadgens, keepalive, proxies, rps, proxyCores) {
  id += 1;
  return {
    round_id: id, status: 'done', experiment: 'keepalive', app: 'node-app', variant, rep: `rep${id}`, label: `exp:keepalive:node-app:${variant}`,
    app_instances: 2, loadgens, model: 'closed', parallel: 2, rate: null, scenario: 'hello', duration_ms: 20000, warmup_ms: 5000,
    samples: rps * 15, ok: rps * 15, errors: 0, error_rate: 0, throughput_rps: rps, measured_s: 15, p95_us: 1000, mean_us: 500,
    loadgen_cpu_max: 0.1, eloop_p99_max_us: 1000, late_fraction: null, instance_restarts: 0, loadgens_not_done: 0, loadgen_runs: loadgens,
    cpu_used_cores: 0.5, environment: { front_proxy_usage: proxyCores.map((c, i) => ({ index: i, cpu_cores: c })) },
    keepalive, front_proxies: proxies,
  };
}

test('proxyCpuMaxPct: the busiest proxy, % of one core; none without proxies', () => {
  assert.equal(proxyCpuMaxPct({ front_proxy_usage: [{ cpu_cores: 0.1 }, { cpu_cores: 0.25 }, { cpu_cores: null }] }), 25);
  assert.equal(proxyCpuMaxPct({}), null);
  assert.equal(proxyCpuMaxPct(null), null);
});

test('keep-alive on and off at 1 and 4 proxies: groups, means, proxy CPU and the study cap lines', () => {
  const overview = [
    // keep-alive off, 1 proxy: capped near its quota, 170 and 180 req/s → mean 175, CPU 24 / 26 % → 25 %
    round('noka-p1', 4, false, 1, 170, [0.24]), round('noka-p1', 4, false, 1, 180, [0.26]),
    // keep-alive on, 1 proxy: far above the cap
    round('ka-p1', 4, true, 1, 2000, [0.2]), round('ka-p1', 4, true, 1, 2200, [0.22]),
    // keep-alive off, 4 proxies
    round('noka-p4', 8, false, 4, 600, [0.25, 0.25, 0.2, 0.1]), round('noka-p4', 8, false, 4, 640, [0.25, 0.24, 0.2, 0.1]),
    // a round straight to the router is not drawn
    { ...round('direct', 4, true, 0, 3000, []), environment: {} },
  ];
  const a = analyse({ overview, split: [] });
  const rows = keepaliveRows(a.groups).sort((x, y) => x.series.localeCompare(y.series));
  assert.deepEqual(rows.map((r) => [r.series, r.loadgens, r.proxies, r.keepalive, r.mean, r.n]), [
    ['node-app ka-p1', 4, 1, 'on', 2100, 2],
    ['node-app noka-p1', 4, 1, 'off', 175, 2],
    ['node-app noka-p4', 8, 4, 'off', 620, 2],
  ]);
  assert.deepEqual(rows.map((r) => Math.round(r.proxyCpuPct * 10) / 10), [21, 25, 25]);
  // Student t, n = 2, sd 7.07: 175 ± 12.706 × 5 = 175 ± 63.53
  const off1 = rows[1];
  assert.ok(Math.abs(off1.lo - (175 - 63.53)) < 0.01 && Math.abs(off1.hi - (175 + 63.53)) < 0.01, `${off1.lo} ${off1.hi}`);
  assert.equal(STUDY_PROXY_CAP_RPS, 100);
  assert.deepEqual(capRows(rows).map((c) => [c.proxies, c.cap]), [[1, 100], [4, 400]]);

  const spec = keepaliveThroughput(a);
  assert.match(spec.title.text, /study §5\.2\.3/);
  const rules = spec.layer.find((l) => l.mark.type === 'rule');
  assert.deepEqual(rules.data.values.map((c) => c.cap), [100, 400]);
  assert.ok(buildCharts(a).some((c) => c.name === 'keepalive-throughput'));
});

test('no rounds through front proxies: no keep-alive chart', () => {
  const a = analyse({ overview: [{ ...round('direct', 1, true, 0, 100, []), environment: {} }], split: [] });
  assert.equal(keepaliveThroughput(a), null);
});
