// spec-match: which recorded rounds still stand for the step of a plan their label names.
// Table-driven: a round row as run-round.sh records it, changed one field at a time,
// against the spec the plan gives now.
'use strict';
const assert = require('node:assert/strict');
const { test } = require('node:test');
const { validatePlan } = require('./plan.js');
const { judgeRounds, matchesSpec, roundMismatches, specForLabel } = require('./spec-match.js');

const PLAN = {
  name: 'm', apps: ['node-app'], instances: [2], load: [{ loadgens: 2, parallel: 4 }], duration: '30s', warmup: '5s',
  timeout: '2s', scenario: 'browse', cpu: 1, loadbalancing: 'least-connection', settings: { DB_POOL_SIZE: 30 },
};
const LABEL = 'exp:m:node-app:default:i2:l2:p4:rep1';

// The row run-round.sh writes for PLAN's round LABEL on the local platform.
function row(over = {}) {
  return {
    id: 1, status: 'done', label: LABEL, experiment: 'm', app: 'node-app', app_instances: 2, loadgens: 2,
    model: 'closed', parallel: 4, rate: null, duration_ms: 30000, requests: null, warmup_ms: 5000, timeout_ms: 2000,
    keepalive: true, scenario: 'browse', plan: { seed_ads: 1000, loadbalancing: 'least-connection' },
    environment: { stats_source: 'local', app_cpu_quota_cores: '1', host_cpus: 2 },
    settings: { DB_POOL_SIZE: '30', OTHER: 'x' }, ...over,
  };
}

const spec = (over = {}) => specForLabel(validatePlan({ ...PLAN, ...over }), LABEL);

test('specForLabel: the spec the runner would pass run-round for the label', () => {
  const s = spec();
  assert.equal(s.label, LABEL);
  assert.deepEqual([s.app, s.instances, s.loadgens, s.parallel, s.rate, s.durationMs, s.warmupMs, s.cpu, s.loadbalancing],
    ['node-app', 2, 2, 4, null, 30000, 5000, 1, 'least-connection']);
  assert.deepEqual(s.settings, { DB_POOL_SIZE: '30' });
  assert.equal(specForLabel(validatePlan(PLAN), 'exp:other:node-app:default:i2:l2:p4:rep1'), null, 'another plan');
  assert.equal(specForLabel(validatePlan(PLAN), 'manual round'), null, 'not an experiment label');
  // Capacity rounds carry their own durations.
  const cap = validatePlan({ ...PLAN, kind: 'capacity', load: undefined, capacity: { probeDuration: '7s', soakDuration: '9s' } });
  assert.equal(specForLabel(cap, 'exp:m:node-app:default:i1:l2:r12.5:probe3').durationMs, 7000);
  assert.equal(specForLabel(cap, 'exp:m:node-app:default:i1:l2:r12.5:soak1').durationMs, 9000);
  assert.equal(specForLabel(cap, 'exp:m:node-app:default:i1:l2:r12.5:soak1').rate, 12.5);
});

test('roundMismatches: a field the round recorded differs from the plan → stale', () => {
  // [case, round row changes, plan changes, expected mismatches (field names)]
  const cases = [
    ['identical', {}, {}, []],
    ['duration edited', {}, { duration: '60s' }, ['duration_ms']],
    ['requests instead of duration', {}, { duration: undefined, requests: 500 }, ['duration_ms', 'requests']],
    ['warm-up edited', {}, { warmup: '10s' }, ['warmup_ms']],
    ['warm-up 0', { warmup_ms: 0 }, { warmup: 0 }, []],
    ['timeout edited', {}, { timeout: '10s' }, ['timeout_ms']],
    ['scenario edited', {}, { scenario: 'read' }, ['scenario']],
    ['keep-alive off in the round', { keepalive: false }, {}, ['keepalive']],
    ['cpu edited', {}, { cpu: 0.5 }, ['cpu']],
    ['cpu recorded as 1.0', { environment: { app_cpu_quota_cores: '1.0' } }, {}, []],
    ['cpu removed from the plan: round ran with a quota', {}, { cpu: undefined }, ['cpu']],
    ['no cpu either side: the platform default', { environment: { app_cpu_quota_cores: 'default' } }, { cpu: undefined }, []],
    ['cpu not recorded (cf, older rounds)', { environment: {} }, { cpu: 3 }, []],
    ['loadbalancing edited', {}, { loadbalancing: 'round-robin' }, ['loadbalancing']],
    ['loadbalancing set, round recorded none (= round-robin)', { plan: { seed_ads: 1000 } }, {}, ['loadbalancing']],
    ['round-robin asked, none recorded: the default', { plan: {} }, { loadbalancing: 'round-robin' }, []],
    ['loadbalancing unset in the plan: any recorded matches', {}, { loadbalancing: undefined }, []],
    ['prewarm recorded and different', { plan: { loadbalancing: 'least-connection', prewarm: 100 } }, {}, ['prewarm']],
    ['prewarm recorded and equal', { plan: { loadbalancing: 'least-connection', prewarm: 100 } }, { prewarm: 100 }, []],
    ['prewarm not recorded (run-round does not yet)', {}, { prewarm: 100 }, []],
    ['setting edited', {}, { settings: { DB_POOL_SIZE: 60 } }, ['settings.DB_POOL_SIZE']],
    ['setting added to the plan', {}, { settings: { DB_POOL_SIZE: 30, THREADS: 4 } }, ['settings.THREADS']],
    ['settings not recorded ({})', { settings: {} }, { settings: { DB_POOL_SIZE: 60 } }, []],
    ['a recorded setting the plan does not set', { settings: { DB_POOL_SIZE: '30', EXTRA: '1' } }, {}, []],
    ['instances differ (label reused by hand)', { app_instances: 3 }, {}, ['app_instances']],
    ['open-model row for a closed step', { model: 'open', parallel: null, rate: 4 }, {}, ['model', 'parallel', 'rate']],
    ['seed_ads and git revision are not compared', { plan: { seed_ads: 5, loadbalancing: 'least-connection' }, git_rev: 'zzz' }, {}, []],
  ];
  for (const [name, rowOver, planOver, want] of cases) {
    const got = roundMismatches(row(rowOver), spec(planOver)).map((m) => m.split(':')[0]);
    assert.deepEqual(got, want, name);
    assert.equal(matchesSpec(row(rowOver), spec(planOver)), want.length === 0, name);
  }
});

test('cpu: rounds recorded before the applied quota (what --cpu said) and after (what the platform applied) both judged', () => {
  // [case, environment the round recorded, the plan's cpu, mismatches]
  const cases = [
    ['before: no --cpu, plan unset', { app_cpu_quota_cores: 'default' }, undefined, []],
    ['before: no --cpu, plan 0.5', { app_cpu_quota_cores: 'default' }, 0.5, ['cpu']],
    ['before: --cpu 0.5 as text, plan 0.5', { app_cpu_quota_cores: '0.5' }, 0.5, []],
    ['before: --cpu 0.5 as text, plan unset', { app_cpu_quota_cores: '0.5' }, undefined, ['cpu']],
    ['before: --cpu none, plan none', { app_cpu_quota_cores: 'none' }, 'none', []],
    ['before: --cpu none, plan 1', { app_cpu_quota_cores: 'none' }, 1, ['cpu']],
    ['after: the default quota applied, plan unset', { app_cpu_quota_cores: 0.0625, app_cpu_quota_default: true }, undefined, []],
    ['after: the default quota applied, plan asks the same cores', { app_cpu_quota_cores: 0.5, app_cpu_quota_default: true }, 0.5, ['cpu']],
    ['after: 0.5 asked and applied, plan 0.5', { app_cpu_quota_cores: 0.5, app_cpu_quota_default: false }, 0.5, []],
    ['after: 0.5 asked and applied, plan unset', { app_cpu_quota_cores: 0.5, app_cpu_quota_default: false }, undefined, ['cpu']],
    ['after: no quota asked and applied, plan none', { app_cpu_quota_cores: 'none', app_cpu_quota_default: false }, 'none', []],
    ['after: no quota, plan 0.5', { app_cpu_quota_cores: 'none', app_cpu_quota_default: false }, 0.5, ['cpu']],
  ];
  for (const [name, environment, cpu, want] of cases) {
    const got = roundMismatches(row({ environment }), spec({ cpu })).map((m) => m.split(':')[0]);
    assert.deepEqual(got, want, name);
  }
});

test('roundMismatches says what differs, round value first', () => {
  assert.deepEqual(roundMismatches(row(), spec({ warmup: '10s', loadbalancing: 'round-robin' })),
    ['warmup_ms: round 5000, plan 10000', 'loadbalancing: round least-connection, plan round-robin']);
});

test('judgeRounds: stale rounds of the plan out, other rounds kept unjudged', () => {
  const plan = validatePlan({ ...PLAN, warmup: '10s' });
  const rows = [
    row({ id: 1 }), // warm-up 5 s: stale
    row({ id: 2, warmup_ms: 10000 }),
    row({ id: 3, label: 'exp:other:node-app:default:i2:l2:p4:rep1' }), // another plan's
    row({ id: 4, label: null }), // a hand-run round
    row({ id: 5, label: 'exp:m:node-app:gone:i2:l2:p4:rep1', warmup_ms: 10000, settings: { DB_POOL_SIZE: '90' } }), // variant no longer in the plan: settings unknown
  ];
  const { current, stale } = judgeRounds(rows, plan);
  assert.deepEqual(current.map((r) => r.id), [2, 3, 4, 5]);
  assert.deepEqual(stale.map((s) => [s.row.id, s.mismatches]), [[1, ['warmup_ms: round 5000, plan 10000']]]);
});

test('judgeRounds: a grid plan\'s round at a load or instance count the plan no longer runs is stale', () => {
  // Its label names its step, so the spec built from the label alone would match it.
  const plan = validatePlan({ ...PLAN, instances: [1, 2], loadgensPer: 'instance', load: [{ loadgens: 1, parallel: 4 }] });
  const at = (id, label, f = {}) => row({ id, label, ...f });
  const rows = [
    at(1, 'exp:m:node-app:default:i2:l2:p4:rep1'), // k = 2: 2 loadgens (one per instance)
    at(2, 'exp:m:node-app:default:i1:l1:p4:rep1', { app_instances: 1, loadgens: 1 }),
    at(3, 'exp:m:node-app:default:i2:l2:p32:rep1', { parallel: 32 }), // the load the plan ran before
    at(4, 'exp:m:node-app:default:i3:l3:p4:rep1', { app_instances: 3, loadgens: 3 }),
  ];
  const { current, stale } = judgeRounds(rows, plan);
  assert.deepEqual(current.map((r) => r.id), [1, 2]);
  assert.deepEqual(stale.map((s) => [s.row.id, s.mismatches[0]]), [
    [3, 'step: round i2:l2:p32, plan i1:l1:p4, i2:l2:p4'],
    [4, 'step: round i3:l3:p4, plan i1:l1:p4, i2:l2:p4'],
  ]);
});

test('roundMismatches: a memory variant against the container memory the round recorded', () => {
  const env = { stats_source: 'local', app_cpu_quota_cores: '1', host_cpus: 2 };
  const at = (mb) => row({ environment: { ...env, app_memory_mb: mb } });
  assert.deepEqual(roundMismatches(at(512), { ...spec(), memoryMb: 1024 }), ['memory_mb: round 512, plan 1024']);
  assert.deepEqual(roundMismatches(at(1024), { ...spec(), memoryMb: 1024 }), []);
  assert.deepEqual(roundMismatches(row(), { ...spec(), memoryMb: 1024 }), [], 'not recorded: not compared');
  assert.deepEqual(roundMismatches(at(512), spec()), [], 'the plan leaves memory to the platform');
});
