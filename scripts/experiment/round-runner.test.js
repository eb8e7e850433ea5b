// round-runner: what run-round gets for a plan's round — prewarm, load balancing, keep-alive,
// front proxies and the steady-state gate's settings — as flags.
'use strict';
const assert = require('node:assert/strict');
const { test } = require('node:test');
const { validatePlan } = require('../../plans/plan.js');
const { gridRounds, roundSpec } = require('../../plans/order.js');
const { specForLabel } = require('../../plans/spec-match.js');
const { runRoundArgs } = require('./round-runner.js');

const ok = { apps: ['node-app', 'java-app'], load: [{ loadgens: 2, parallel: 1 }] };
const cfg = { app: 'node-app', variant: 'default', settings: {} };
/** The value after `flag` in args. */
const valueOf = (args, flag) => args.slice(args.indexOf(flag), args.indexOf(flag) + 2);

test('prewarm: passed to run-round as --prewarm, none without it', () => {
  const p = validatePlan({ ...ok, prewarm: 300 }, 'warm.yml');
  assert.deepEqual(valueOf(runRoundArgs(roundSpec(p, cfg, 2, p.load[0], 'rep1')), '--prewarm'), ['--prewarm', '300']);
  const none = runRoundArgs(roundSpec(validatePlan(ok, 'mini.yml'), cfg, 1, p.load[0], 'rep1'));
  assert.equal(none.includes('--prewarm'), false);
});

test('loadbalancing: passed to run-round as --loadbalancing; without the field the route is left as it is', () => {
  const argsOf = (plan) => runRoundArgs(roundSpec(plan, cfg, 2, plan.load[0], 'rep1'));
  assert.equal(argsOf(validatePlan(ok, 'mini.yml')).includes('--loadbalancing'), false);
  for (const algo of ['round-robin', 'least-connection']) {
    assert.deepEqual(valueOf(argsOf(validatePlan({ ...ok, loadbalancing: algo }, 'lb.yml')), '--loadbalancing'), ['--loadbalancing', algo]);
  }
});

test('keepalive and frontProxies: --no-keepalive and --front-proxies per variant', () => {
  const p = validatePlan({
    apps: ['node-app'], keepalive: false, scenario: 'hello', repetitions: 1, warmup: '10s', load: [{ loadgens: 2, parallel: 1 }],
    variants: [{ name: 'ka-p1', keepalive: true, frontProxies: 1 }, { name: 'noka-p1', frontProxies: 1 }, { name: 'noka-router' }],
  }, 'ka.yml');
  const args = gridRounds(p).map((r) => runRoundArgs(r));
  assert.equal(args[0].includes('--no-keepalive'), false);
  assert.deepEqual(valueOf(args[0], '--front-proxies'), ['--front-proxies', '1']);
  assert.equal(args[1].includes('--no-keepalive'), true);
  assert.equal(args[2].includes('--front-proxies'), false, 'no proxies: straight to the router');
});

test('run-round gets no --warmup with warmup: steady, and the gate settings the plan sets', () => {
  const plan = validatePlan({ name: 's', apps: ['node-app'], load: [{ loadgens: 1, parallel: 4 }], warmup: 'steady',
    steady: { window: '5s', trend: 0.05 } });
  const args = runRoundArgs(specForLabel(plan, 'exp:s:node-app:default:i1:l1:p4:rep1'));
  assert.ok(!args.includes('--warmup'));
  assert.deepEqual(args.slice(args.indexOf('--steady-window'), args.indexOf('--steady-window') + 4),
    ['--steady-window', '5000ms', '--steady-trend', '0.05']);
});
