// The estimate (estimate.js) against the rounds it was calibrated on, and how its parts add up.
'use strict';
const assert = require('node:assert/strict');
const { test } = require('node:test');
const { estimateRounds, roundSeconds } = require('./estimate.js');

const STEADY = { windowMs: 10000, cv: 0.25, trend: 0.15, maxWarmupMs: 30000 };
const spec = (extra) => ({ app: 'node-app', instances: 1, settings: {}, memoryMb: null, cpu: 0.1, rate: null, durationMs: 30000,
  warmupMs: null, steady: STEADY, afterChange: 'keep', restart: 'change', prewarm: 0, loadbalancing: null, ...extra });
// Seconds a round took, run-experiment's "round N done in S s", means of the study's rounds of 2026-11-29.
const MEASURED = [
  ['cpu-100', [spec({ app: 'java-app', cpu: 1, prewarm: 60000, restart: 'round' }), spec({ cpu: 1, prewarm: 60000, restart: 'round' })], 89.4],
  ['horizontal-efficiency', [spec({ prewarm: 20000, restart: 'round' }), spec({ instances: 2, prewarm: 20000, restart: 'round' })], (68.1 + 80.9) / 2],
  ['node-driver', [spec({ cpu: 0.2, settings: { DB_DRIVER: 'js' }, restart: 'round' }), spec({ cpu: 0.2, settings: { DB_DRIVER: 'native' }, restart: 'round' })], 67.8],
];

for (const [plan, pair, seconds] of MEASURED) {
  test(`${plan}: within 10 % of the seconds a round took`, () => {
    const specs = Array.from({ length: 8 }, (_, i) => pair[i % 2]);
    const perRound = estimateRounds(specs).seconds / specs.length;
    assert.ok(Math.abs(perRound / seconds - 1) <= 0.1, `${perRound.toFixed(1)} s a round against ${seconds} s measured`);
  });
}

test('a prewarm costs per instance; a restart per round and a scale up add to the round', () => {
  assert.ok(roundSeconds(spec({ instances: 2, prewarm: 20000 })) > roundSeconds(spec({ prewarm: 20000 })) + 20000 / 4500);
  const alone = estimateRounds([spec({})]).seconds;
  assert.ok(estimateRounds([spec({ restart: 'round' })]).seconds > alone);
  const up = estimateRounds([spec({}), spec({ instances: 2 })]).seconds - estimateRounds([spec({ instances: 2 })]).seconds;
  const down = estimateRounds([spec({ instances: 2 }), spec({})]).seconds - estimateRounds([spec({ instances: 2 })]).seconds;
  assert.ok(up > down, 'starting an instance costs more than stopping one');
});

test('a change with afterChange rerun runs the round twice', () => {
  const r = estimateRounds([spec({}), spec({ instances: 2, afterChange: 'rerun' })]);
  assert.deepEqual([r.rounds, r.reruns], [3, 1]);
});

test('a faster open-model rate leaves more to store after the window, up to what the harness carries', () => {
  assert.ok(roundSeconds(spec({ rate: 500 })) < roundSeconds(spec({ rate: 700 })));
  assert.equal(roundSeconds(spec({ rate: 300, loadgens: 2 })), roundSeconds(spec({ rate: 600, loadgens: 1 })), 'the rate is per loadgen');
  assert.equal(roundSeconds(spec({ cpu: 4, rate: 9000 })), roundSeconds(spec({ cpu: 4, rate: 20000 })));
});
