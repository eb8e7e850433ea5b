'use strict';
// router-usage.test.js — the local router's mean CPU over a round from two cgroup readings;
// nothing read on CF (Gorouter's load is not observable) or in a dry run.
const test = require('node:test');
const assert = require('node:assert/strict');
const { readRouterCpu, routerCores } = require('./router-usage');

test('routerCores: CPU time over wall time between the readings', () => {
  const a = { atNs: 1_000_000_000n, cpuNs: 5e9 };
  const b = { atNs: 11_000_000_000n, cpuNs: 5e9 + 2.5e9 }; // 2.5 s of CPU in 10 s
  assert.equal(routerCores(a, b), 0.25);
  assert.equal(routerCores(null, b), null);
  assert.equal(routerCores(a, null), null);
  assert.equal(routerCores(b, b), null, 'no span');
});

test('readRouterCpu: nothing on CF or in a dry run', async () => {
  assert.equal(await readRouterCpu({ name: 'cf', dryRun: false }), null);
  assert.equal(await readRouterCpu({ name: 'local', dryRun: true }), null);
});
