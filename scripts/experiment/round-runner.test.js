// round-runner: what runRound gets for a plan's round — prewarm, load balancing, keep-alive,
// front proxies, the CPU quota, the duration and the steady-state gate's settings — as typed
// options that run-round.sh's own checks (run-round-args.js roundOptions) take as they are.
'use strict';
const assert = require('node:assert/strict');
const { test } = require('node:test');
const { validatePlan } = require('../../plans/plan.js');
const { gridRounds, roundSpec } = require('../../plans/order.js');
const { specForLabel } = require('../../plans/spec-match.js');
const { roundValues, roundCommandLine } = require('./round-runner.js');
const { roundOptions } = require('../round/run-round-args.js');
const { makeCli } = require('../ops/cli.js');
const { CPU_DEFAULT, CPU_NONE } = require('../../lib/cpu-quota.js');

const ok = { apps: ['node-app', 'java-app'], load: [{ loadgens: 2, parallel: 1 }] };
const cfg = { app: 'node-app', variant: 'default', settings: {} };
/** The options runRound gets for a spec: its values through run-round.sh's checks. */
const optionsOf = (spec) => roundOptions(roundValues(spec), makeCli('run-round'));

test('prewarm: passed as prewarm, 0 without it', () => {
  const p = validatePlan({ ...ok, prewarm: 300 }, 'warm.yml');
  assert.equal(optionsOf(roundSpec(p, cfg, 2, p.load[0], 'rep1')).prewarm, '300');
  assert.equal(optionsOf(roundSpec(validatePlan(ok, 'mini.yml'), cfg, 1, p.load[0], 'rep1')).prewarm, '0');
});

test('loadbalancing: passed as loadbalancing; without the field the route is left as it is', () => {
  const of = (plan) => optionsOf(roundSpec(plan, cfg, 2, plan.load[0], 'rep1'));
  assert.equal(of(validatePlan(ok, 'mini.yml')).loadbalancing, '');
  for (const algo of ['round-robin', 'least-connection']) {
    assert.equal(of(validatePlan({ ...ok, loadbalancing: algo }, 'lb.yml')).loadbalancing, algo);
  }
});

test('keepalive and frontProxies per variant', () => {
  const p = validatePlan({
    apps: ['node-app'], keepalive: false, scenario: 'hello', repetitions: 1, warmup: '10s', load: [{ loadgens: 2, parallel: 1 }],
    variants: [{ name: 'ka-p1', keepalive: true, frontProxies: 1 }, { name: 'noka-p1', frontProxies: 1 }, { name: 'noka-router' }],
  }, 'ka.yml');
  const o = gridRounds(p).map(optionsOf);
  assert.deepEqual(o.map((x) => [x.keepalive, x.frontProxies]), [[true, '1'], [false, '1'], [false, '']], 'no proxies: straight to the router');
});

test('durations travel as milliseconds; the CPU quota as cores, CPU_NONE, or CPU_DEFAULT without one', () => {
  const base = { apps: ['node-app'], load: [{ loadgens: 1, parallel: 4 }], duration: '12s', warmup: '2s', timeout: '3s' };
  const label = 'exp:d:node-app:default:i1:l1:p4:rep1';
  const cases = [[{}, CPU_DEFAULT], [{ cpu: 0.25 }, 0.25], [{ cpu: 'none' }, CPU_NONE]];
  for (const [over, cpu] of cases) {
    const spec = specForLabel(validatePlan({ name: 'd', ...base, ...over }), label);
    const v = roundValues(spec);
    assert.deepEqual([v.durationMs, v.warmupMs, v.timeoutMs], [12000, 2000, 3000]);
    const o = optionsOf(spec);
    assert.deepEqual([o.durationMs, o.warmupMs, o.timeoutMs, o.cpu], [12000, 2000, 3000, cpu], JSON.stringify(over));
  }
});

test('with warmup: steady no warm-up, and the gate settings the plan sets', () => {
  const plan = validatePlan({ name: 's', apps: ['node-app'], load: [{ loadgens: 1, parallel: 4 }], warmup: 'steady',
    steady: { window: '5s', trend: 0.05 } });
  const spec = specForLabel(plan, 'exp:s:node-app:default:i1:l1:p4:rep1');
  assert.equal(roundValues(spec).warmupMs, undefined);
  assert.deepEqual(optionsOf(spec).steadyGate, { windowMs: 5000, cvMax: 0.1, trendMax: 0.05, maxWarmupMs: 60000 });
  const line = roundCommandLine(roundValues(spec));
  assert.match(line, /^scripts\/run-round\.sh --app node-app /);
  assert.match(line, / --steady-window 5000ms --steady-trend 0\.05 /);
  assert.doesNotMatch(line, /--warmup/);
});

test('a value run-round.sh would refuse is refused here too, as a usage error', () => {
  const spec = specForLabel(validatePlan({ name: 'd', apps: ['node-app'], load: [{ loadgens: 1, parallel: 4 }] }), 'exp:d:node-app:default:i1:l1:p4:rep1');
  const cli = makeCli('run-round');
  for (const [over, re] of [[{ cpu: 0 }, /--cpu must be a positive number of cores or none, got "0"/],
    [{ durationMs: 'soon' }, /--duration must be a duration/], [{ durationMs: -5 }, /--duration must be above 0/], [{ instances: 0 }, /--instances must be a positive integer/],
    [{ bogus: 1 }, /unknown option: bogus/]]) {
    assert.throws(() => roundOptions({ ...roundValues(spec), ...over }, cli), (e) => e.exitCode === 1 && re.test(e.message), JSON.stringify(over));
  }
});
