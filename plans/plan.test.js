// The plan parser/validator: defaults, every shipped plan, and bad plans that must stop
// with one line naming the field.
'use strict';
const assert = require('node:assert/strict');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { test } = require('node:test');
const { loadPlan, parseDurationMs, PlanError, validatePlan, validatePlanAt, LOCAL_STEADY } = require('./plan.js');
const { gridRounds } = require('./order.js');
const { roundMismatches } = require('./spec-match.js');

const REPO_ROOT = path.resolve(__dirname, '..');

const ok = { apps: ['node-app', 'java-app'], load: [{ loadgens: 2, parallel: 1 }] };

test('defaults are filled in', () => {
  const p = validatePlan(ok, 'mini.yml');
  assert.equal(p.name, 'mini');
  assert.equal(p.kind, 'grid');
  assert.equal(p.order, 'interleaved');
  assert.equal(p.repetitions, 3);
  assert.equal(p.durationMs, 60_000);
  assert.equal(p.warmupMs, null, 'by duration: the steady-state gate');
  assert.equal(validatePlan({ ...ok, requests: 100, duration: undefined }, 'mini.yml').warmupMs, 0, 'by requests: no warm-up');
  assert.deepEqual(p.instances, [1]);
  assert.deepEqual(p.variants, [{ name: 'default', apps: null, settings: {}, memoryMb: null }]);
  assert.equal(p.slo.thresholdMs, 100);
  assert.equal(p.scale.loadgensStep, 4);
  assert.equal(p.scale.loadgensMax, 96);
});

test("the local profiles' gate: one default under each profile's own steady:, none without a profile or a gate", () => {
  const steadyAt = (raw, scale = 'local') => validatePlanAt(raw, 'mini.yml', scale).steady;
  const dflt = { windowMs: parseDurationMs(LOCAL_STEADY.window), cv: LOCAL_STEADY.cv, trend: LOCAL_STEADY.trend, maxWarmupMs: parseDurationMs(LOCAL_STEADY.maxWarmup) };
  assert.deepEqual(steadyAt({ ...ok, local: { repetitions: 2 } }), dflt);
  assert.deepEqual(steadyAt({ ...ok, local: { steady: { maxWarmup: '45s' } } }), { ...dflt, maxWarmupMs: 45_000 }, "the profile's own key wins");
  assert.deepEqual(steadyAt({ ...ok, steady: { cv: 0.05, window: '30s' }, local: { repetitions: 2 } }), dflt, "the cf plan's gate is not the local one");
  const cf = { windowMs: 30_000, cv: 0.05, trend: null, maxWarmupMs: null };
  assert.deepEqual(steadyAt({ ...ok, steady: { cv: 0.05, window: '30s' }, local: { repetitions: 2 } }, 'cf'), cf, 'at cf scale: the plan as written');
  assert.deepEqual(steadyAt({ ...ok, steady: { cv: 0.05, window: '30s' } }), cf, 'no local profile: the plan runs the same at both');
  assert.equal(validatePlanAt({ ...ok, local: { warmup: '3s' } }, 'mini.yml', 'local').warmupMs, 3000, 'a fixed warm-up takes no gate');
  assert.throws(() => validatePlanAt({ ...ok, local: { steady: 'tight' } }, 'mini.yml', 'local'), /steady must be a mapping/);
});

test('durations, the load grid shorthand, settings as strings', () => {
  for (const [v, ms] of [['30s', 30_000], ['2m', 120_000], ['500ms', 500], [5, 5000], ['1.5s', 1500], ['x', NaN], ['0s', NaN], [-1, NaN]]) {
    assert.ok(Object.is(parseDurationMs(v), ms) || parseDurationMs(v) === ms, `${v}`);
  }
  const p = validatePlan({ apps: ['node-app'], load: { loadgens: [1, 2], rate: [10, 20] }, settings: { DB_POOL_SIZE: 60 }, slo: { threshold: '20ms' } }, 'g.yml');
  assert.deepEqual(p.load, [{ loadgens: 1, rate: 10 }, { loadgens: 1, rate: 20 }, { loadgens: 2, rate: 10 }, { loadgens: 2, rate: 20 }]);
  assert.deepEqual(p.settings, { DB_POOL_SIZE: '60' });
  assert.equal(p.slo.thresholdMs, 20);
  for (const w of [0, '0s', '0ms']) assert.equal(validatePlan({ ...ok, warmup: w }, 'w.yml').warmupMs, 0, `warmup ${w}`);
});

test('every shipped plan in experiments/ is valid', () => {
  const dir = path.join(REPO_ROOT, 'experiments');
  const files = fs.readdirSync(dir).filter((f) => /\.(ya?ml|json)$/.test(f));
  assert.ok(files.includes('ci-tiny.yml'));
  assert.ok(files.length >= 10, `${files.length} plans`);
  for (const f of files) {
    const p = loadPlan(path.join(dir, f));
    assert.equal(p.name, f.replace(/\.ya?ml$/, ''), f);
  }
});

test('regenerates: figures, tables and sections of the study', () => {
  assert.deepEqual(validatePlan({ ...ok, regenerates: ['Fig. 6.2', 'Table 7.1', '§5.2.3 keep-alive finding'] }, 'r.yml').regenerates,
    ['Fig. 6.2', 'Table 7.1', '§5.2.3 keep-alive finding']);
  assert.deepEqual(validatePlan(ok, 'r.yml').regenerates, []);
});

// [what is wrong, plan, text the one-line error must contain]
const BAD = [
  ['apps missing', { load: ok.load }, 'apps must be a non-empty list'],
  ['apps not a list', { apps: 'node-app', load: ok.load }, 'apps must be'],
  ['bad app name', { apps: ['Node App'], load: ok.load }, 'apps[0]'],
  ['app twice', { apps: ['a', 'a'], load: ok.load }, 'apps lists an app twice'],
  ['unknown field', { ...ok, repetiton: 3 }, 'repetiton is not a known field'],
  ['regenerates not of the study', { ...ok, regenerates: ['Figure 6'] }, 'regenerates[0] must name a figure, table or section of the study'],
  ['variant memory without unit', { ...ok, variants: [{ name: 'a', memory: 512 }] }, 'variants[0].memory must be a size like 512M or 1G'],
  ['memory in some variants only', { ...ok, variants: [{ name: 'a', memory: '512M' }, { name: 'b' }] }, 'variants must all set memory or none'],
  ['regenerates not text', { ...ok, regenerates: [6.2] }, 'regenerates[0] must name'],
  ['unknown kind', { ...ok, kind: 'soak' }, 'kind must be one of grid, scale-until-slo, capacity'],
  ['bad order', { ...ok, order: 'shuffled' }, 'order must be one of'],
  ['zero repetitions', { ...ok, repetitions: 0 }, 'repetitions must be an integer from 1 to 100'],
  ['bad duration', { ...ok, duration: '10 minutes' }, 'duration must be a duration'],
  ['duration and requests', { ...ok, duration: '10s', requests: 100 }, 'give one of duration or requests'],
  ['load missing', { apps: ['node-app'] }, 'load must be a non-empty list'],
  ['load step without model', { apps: ['node-app'], load: [{ loadgens: 1 }] }, 'load[0] needs exactly one of parallel'],
  ['load step with both', { apps: ['node-app'], load: [{ loadgens: 1, parallel: 1, rate: 5 }] }, 'load[0] needs exactly one of'],
  ['bad parallel', { apps: ['node-app'], load: [{ loadgens: 1, parallel: 1 }, { loadgens: 1, parallel: 'x' }] }, 'load[1].parallel must be an integer >= 1, got "x"'],
  ['negative rate', { apps: ['node-app'], load: [{ loadgens: 1, rate: -5 }] }, 'load[0].rate must be a number > 0'],
  ['load field typo', { apps: ['node-app'], load: [{ loadgen: 1, parallel: 1 }] }, 'load[0].loadgen is not a known field'],
  ['instances zero', { ...ok, instances: [1, 0] }, 'instances[1] must be an integer >= 1'],
  ['bad setting name', { ...ok, settings: { 'db-pool': 3 } }, 'settings.db-pool is not an environment variable name'],
  ['setting is a list', { ...ok, settings: { DB_POOL_SIZE: [1] } }, 'settings.DB_POOL_SIZE must be a string'],
  ['the control credential as a setting', { ...ok, settings: { CONTROL_TOKEN: 'x'.repeat(43) } }, 'settings.CONTROL_TOKEN is not a plan setting'],
  ['the apps opened as a variant setting', { ...ok, variants: [{ name: 'a', settings: { LOCAL_DEV_NO_CONTROL_TOKEN: true } }] }, 'variants[0].settings.LOCAL_DEV_NO_CONTROL_TOKEN is not a plan setting'],
  ['variant without name', { ...ok, variants: [{ settings: {} }] }, 'variants[0].name must match'],
  ['variant for unknown app', { ...ok, variants: [{ name: 'a', apps: ['x-app'] }] }, 'variants[0].apps must list apps from apps'],
  ['variants differ in variables', { ...ok, variants: [{ name: 'a', settings: { DB_POOL_SIZE: 30 } }, { name: 'b', settings: {} }] }, 'variants[1].settings must set the same variables'],
  ['slo metric', { ...ok, slo: { metric: 'p90' } }, 'slo.metric must be one of p50, p95, p99, mean'],
  ['slo threshold', { ...ok, slo: { threshold: 'fast' } }, 'slo.threshold must be a duration'],
  ['slo field typo', { ...ok, slo: { treshold: '10ms' } }, 'slo.treshold is not a known field'],
  ['scale step zero', { apps: ['node-app'], kind: 'scale-until-slo', scale: { loadgensStep: 0 } }, 'scale.loadgensStep must be an integer >= 1'],
  ['scale cpu reference', { apps: ['node-app'], kind: 'scale-until-slo', scale: { cpuReference: { app: 'java-app' } } }, 'scale.cpuReference must be'],
  ['scale start above max', { apps: ['node-app'], kind: 'scale-until-slo', scale: { startInstances: 4, maxInstances: 2 } }, 'scale.startInstances must not exceed'],
  ['load on adaptive plan', { apps: ['node-app'], kind: 'capacity', load: ok.load }, 'load is only for kind grid'],
  ['capacity range', { apps: ['node-app'], kind: 'capacity', capacity: { rateMin: 500, rateMax: 100 } }, 'capacity.rateMin (500) must be below capacity.rateMax (100)'],
  ['capacity tolerance', { apps: ['node-app'], kind: 'capacity', capacity: { tolerance: 2 } }, 'capacity.tolerance must be a number > 0 and <= 1'],
  ['capacity soak', { apps: ['node-app'], kind: 'capacity', capacity: { soakDuration: 'long' } }, 'capacity.soakDuration must be a duration'],
  ['cpu quota', { ...ok, cpu: 0 }, 'cpu must be a number > 0'],
  ['validity', { ...ok, validity: { lateMax: 5 } }, 'validity.lateMax must be a number >= 0 and <= 1'],
  ['plan name', { ...ok, name: 'Has Space' }, 'name must match'],
  ['not a mapping', [1, 2], 'must be a mapping of fields'],
];

test('bad plans stop with one line naming the field', () => {
  for (const [what, raw, text] of BAD) {
    assert.throws(() => validatePlan(raw, 'bad.yml'), (e) => {
      assert.ok(e instanceof PlanError, what);
      assert.ok(e.message.startsWith('plan bad.yml: '), `${what}: ${e.message}`);
      assert.ok(e.message.includes(text), `${what}: "${e.message}" lacks "${text}"`);
      assert.ok(!e.message.includes('\n'), `${what}: one line`);
      return true;
    }, what);
  }
});

test('unreadable and malformed files', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cfscale-report-plan-'));
  try {
    const yml = path.join(dir, 'broken.yml');
    fs.writeFileSync(yml, 'apps: [node-app\nload: x: y\n');
    assert.throws(() => loadPlan(yml), /^PlanError: plan broken\.yml: not valid YAML|plan broken\.yml: not valid YAML/);
    const json = path.join(dir, 'p.json');
    fs.writeFileSync(json, JSON.stringify(ok));
    assert.equal(loadPlan(json).name, 'p');
    assert.throws(() => loadPlan(path.join(dir, 'missing.yml')), /cannot read: ENOENT/);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('prewarm: requests per instance, 0 by default', async () => {
  assert.equal(validatePlan(ok, 'mini.yml').prewarm, 0);
  const p = validatePlan({ ...ok, prewarm: 300 }, 'warm.yml');
  assert.equal(p.prewarm, 300);
  assert.throws(() => validatePlan({ ...ok, prewarm: -1 }, 'warm.yml'), /prewarm/);
  assert.throws(() => validatePlan({ ...ok, prewarm: 'lots' }, 'warm.yml'), /prewarm/);
});

test('loadbalancing: none by default, round-robin | least-connection', async () => {
  assert.equal(validatePlan(ok, 'mini.yml').loadbalancing, null);
  for (const algo of ['round-robin', 'least-connection']) assert.equal(validatePlan({ ...ok, loadbalancing: algo }, 'lb.yml').loadbalancing, algo);
  for (const bad of ['hash', 'least-conn', ['round-robin'], 1]) {
    assert.throws(() => validatePlan({ ...ok, loadbalancing: bad }, 'lb.yml'),
      /plan lb\.yml: loadbalancing must be one of round-robin, least-connection, got /, JSON.stringify(bad));
  }
});

test('keepalive and frontProxies: plan-wide defaults, per variant overrides, compared with recorded rounds', async () => {
  const mini = validatePlan(ok, 'mini.yml');
  assert.deepEqual([mini.keepalive, mini.frontProxies], [true, 0]);
  const p = validatePlan({
    apps: ['node-app'], keepalive: false, scenario: 'hello', repetitions: 1, warmup: '10s', load: [{ loadgens: 2, parallel: 1 }],
    variants: [{ name: 'ka-p1', keepalive: true, frontProxies: 1 }, { name: 'noka-p1', frontProxies: 1 }, { name: 'noka-router' }],
  }, 'ka.yml');
  const rounds = gridRounds(p);
  assert.deepEqual(rounds.map((r) => [r.variant, r.keepalive, r.frontProxies]),
    [['ka-p1', true, 1], ['noka-p1', false, 1], ['noka-router', false, 0]]);
  // A round recorded without proxies (plan.front_proxies absent) is not one with a proxy.
  const row = { app: 'node-app', app_instances: 1, loadgens: 2, model: 'closed', parallel: 1, rate: null, duration_ms: 60000,
    requests: null, warmup_ms: 10000, timeout_ms: 10000, keepalive: true, scenario: 'hello', plan: {}, environment: {}, settings: {} };
  assert.deepEqual(roundMismatches(row, rounds[0]), ['front_proxies: round 0, plan 1']);
  assert.deepEqual(roundMismatches({ ...row, plan: { front_proxies: 1 } }, rounds[0]), []);
  assert.deepEqual(roundMismatches({ ...row, plan: { front_proxies: 1 } }, rounds[1]), ['keepalive: round true, plan false']);
  for (const [bad, msg] of [[{ keepalive: 'no' }, /plan ka\.yml: keepalive must be true or false, got "no"/],
    [{ frontProxies: -1 }, /plan ka\.yml: frontProxies must be an integer >= 0, got -1/],
    [{ variants: [{ name: 'a', keepalive: 1 }] }, /plan ka\.yml: variants\[0\]\.keepalive must be true or false, got 1/]]) {
    assert.throws(() => validatePlan({ ...ok, ...bad }, 'ka.yml'), msg);
  }
});
