// A local plan whose quotas pass the SUT's cell is refused (cell-fit.js): instances × cpu per round.
'use strict';
const assert = require('node:assert/strict');
const { test } = require('node:test');
const { cellProblems, localCells } = require('./cell-fit.js');
const { gridRounds } = require('../../plans/order.js');
const { validatePlan } = require('../../plans/plan.js');

const plan = (extra) => validatePlan({ name: 'fit', apps: ['node-app'], load: [{ loadgens: 1, parallel: 1 }], ...extra }, 'fit.yml');

test('a round whose instances × quota pass the SUT\'s CPUs is named once, with the reason', () => {
  const p = plan({ instances: [1, 2, 3], cpu: 0.4, repetitions: 2 });
  const problems = cellProblems(p, gridRounds(p), 1);
  assert.equal(problems.length, 1, 'k = 3 only, once for both repetitions');
  assert.match(problems[0], /^plan fit: 3 instance\(s\) × 0\.4 core\(s\) = 1\.2 cores of quota, more than the 1 CPU\(s\) of the system under test's cell/);
  assert.deepEqual(cellProblems(p, gridRounds(p), 2), []);
});

test('no quota (cpu none or unset) never exceeds the cell: the instances share it, as on a cell', () => {
  for (const cpu of ['none', undefined]) {
    const p = plan({ instances: [4], ...(cpu ? { cpu } : {}) });
    assert.deepEqual(cellProblems(p, gridRounds(p), 1), []);
  }
});

test('the cells come from cfl cells\' JSON; no cells or no answer is null', async () => {
  assert.deepEqual(await localCells(async () => ({ code: 0, stdout: '{"sut_cpus":"2-3","harness_cpus":"0-1","app_db":"sut"}\n' })),
    { sut_cpus: '2-3', harness_cpus: '0-1', app_db: 'sut', sutCount: 2 });
  assert.equal(await localCells(async () => ({ code: 0, stdout: 'null\n' })), null);
  assert.equal(await localCells(async () => ({ code: 2, stdout: '' })), null);
});
