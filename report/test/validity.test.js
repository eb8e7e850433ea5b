// Round validity flags of a starved generator (its cgroup throttled: CPU wanted, not given), of
// one whose own send lateness weighs in its latencies, and of a round the results database went away in.
'use strict';
const assert = require('node:assert/strict');
const { test } = require('node:test');
const { roundFlags, MAX_THROTTLED_FRACTION, GENERATOR_LATE_MAX_SHARE } = require('../lib/report/validity.js');

const round = (extra) => ({ status: 'done', samples: 1000, duration_ms: 10000, warmup_ms: 1000, measured_s: 9,
  loadgen_cpu_max: 0.3, eloop_p99_max_us: 2000, late_fraction: 0, error_rate: 0, instance_restarts: 0,
  loadgens_not_done: 0, loadgen_runs: 1, ...extra });
const codes = (r) => roundFlags(r).map((f) => f.code);

test('a loadgen throttled in more than its share of CFS periods flags the round: generator-starved', () => {
  const starved = roundFlags(round({ loadgen_throttled_max: 0.4, loadgen_throttled_ms_max: 3200 })).find((f) => f.code === 'generator-starved');
  assert.deepEqual(starved, { code: 'generator-starved', severity: 'bad',
    text: 'generator starved: loadgen CPU throttled in 40.0 % of its CFS periods (3200 ms throttled)' });
  assert.ok(!codes(round({ loadgen_throttled_max: MAX_THROTTLED_FRACTION, loadgen_throttled_ms_max: 10 })).includes('generator-starved'));
  assert.ok(!codes(round({ loadgen_throttled_max: null, loadgen_throttled_ms_max: null })).includes('generator-starved'), 'cpu.stat not visible');
  assert.ok(!codes(round({})).includes('generator-starved'));
});

test('an open-model generator whose send lateness p99 exceeds 10 % of the latency p50 flags the round: generator-late', () => {
  assert.equal(GENERATOR_LATE_MAX_SHARE, 0.1);
  assert.deepEqual(roundFlags(round({ model: 'open', p50_us: 800, send_late_p50_us: 40, send_late_p99_us: 2900 })).find((f) => f.code === 'generator-late'),
    { code: 'generator-late', severity: 'bad', text: 'generator late: send lateness p99 2.90 ms, over 10.0 % of the latency p50 (0.80 ms)' });
  assert.ok(!codes(round({ model: 'open', p50_us: 800, send_late_p50_us: 20, send_late_p99_us: 80 })).includes('generator-late'), 'exactly 10 %');
  assert.ok(!codes(round({ model: 'open', p50_us: 800, send_late_p50_us: 20, send_late_p99_us: 60 })).includes('generator-late'));
  assert.ok(!codes(round({ model: 'closed', p50_us: 800, send_late_p50_us: null, send_late_p99_us: null })).includes('generator-late'), 'closed: none');
});

test('a results-database outage during the round is a warning: db-outage', () => {
  assert.deepEqual(roundFlags(round({ db_outage_ms: '20400' })).find((f) => f.code === 'db-outage'),
    { code: 'db-outage', severity: 'warn', text: 'results database unreachable for 20.4 s during the round' });
  assert.ok(!codes(round({ db_outage_ms: null })).includes('db-outage'));
  assert.ok(!codes(round({ db_outage_ms: '0' })).includes('db-outage'));
});

const env = (e) => round({ platform: 'local', environment: { host_cpus: 2, ...e } });
const cells = (harnessBusy) => ({ busy_cores: 1.2, cells: { sut_cpus: '1', harness_cpus: '0', sut_busy: 0.5, harness_busy: harnessBusy } });

test('the harness\'s CPUs saturated flag the round: harness-busy (bad); a local round without cells is warned', () => {
  const busy = roundFlags(env({ host_cpu: cells(0.93) })).find((f) => f.code === 'harness-busy');
  assert.deepEqual(busy, { code: 'harness-busy', severity: 'bad', text: "the harness's CPUs (0) 93.0 % busy: the load and its timing were the harness's" });
  assert.ok(!codes(env({ host_cpu: cells(0.89) })).includes('harness-busy'));
  assert.equal(roundFlags(env({ host_cpu: { busy_cores: 1.9 } })).find((f) => f.code === 'no-cells')?.severity, 'warn');
  assert.ok(!codes(env({ host_cpu: cells(0.5) })).includes('no-cells'));
});

test('a router at the CPUs it could use flags the round: router-saturated', () => {
  assert.ok(codes(env({ host_cpu: cells(0.5), router_cpu_cores: 0.95 })).includes('router-saturated'), 'one harness CPU');
  assert.ok(!codes(env({ host_cpu: cells(0.5), router_cpu_cores: 0.5 })).includes('router-saturated'));
  assert.ok(!codes(env({ router_cpu_cores: 0.95 })).includes('router-saturated'), 'no cells: the host\'s 2 cores');
});

test('a front proxy that carried under half an even share flags the round: proxy-underserved', () => {
  const usage = (a, b) => [{ url: 'https://127.0.0.1:8443', requests: a }, { url: 'https://127.0.0.1:8444', requests: b }];
  const f = roundFlags(env({ front_proxy_usage: usage(900, 100) })).find((x) => x.code === 'proxy-underserved');
  assert.equal(f.severity, 'bad');
  assert.match(f.text, /1 of 2 front proxies .* \(https:\/\/127\.0\.0\.1:8444: 100 requests\)/);
  assert.ok(!codes(env({ front_proxy_usage: usage(550, 450) })).includes('proxy-underserved'));
});

test('other work on the SUT\'s CPUs beyond the app and its database flags the round: sut-shared', () => {
  const hc = (sutBusy, appDb = 0.09) => ({ busy_cores: 1, parts: { app: 0.2, app_db: appDb }, cells: { sut_cpus: '1', harness_cpus: '0', sut_busy: sutBusy, harness_busy: 0.4 } });
  assert.ok(!codes(env({ host_cpu: hc(0.30) })).includes('sut-shared'), 'the kernel\'s share of the app\'s own work');
  const f = roundFlags(env({ host_cpu: hc(0.45) })).find((x) => x.code === 'sut-shared');
  assert.equal(f.severity, 'bad');
  assert.match(f.text, /other processes used 16\.0 % of the SUT's CPUs \(1\)/);
  assert.ok(codes(env({ host_cpu: hc(0.30), cells: { app_db: 'harness' } })).includes('sut-shared'), 'a database in the harness\'s cell is not the SUT\'s own');
});
