// steady: the report's side of the steady-state gate, on rows with known answers — the
// validity flags of the measured window (never steady, a significant trend, CFS
// throttling, CPU entitlement, the first round after a change), the plan's `warmup:
// steady`, `steady` and `afterChange`, and the stale-round check (what run-round gets is
// scripts/experiment/round-runner.test.js's).
'use strict';
const assert = require('node:assert/strict');
const { test } = require('node:test');
const { DEFAULTS, validatePlan } = require('../../plans/plan.js');
const { roundMismatches, specForLabel } = require('../../plans/spec-match.js');
const { roundFlags, trusted } = require('../lib/report/validity.js');
const { significantTrend } = require('../lib/report/steady-flags.js');

// A done round that passes every other check.
const ROUND = {
  status: 'done', samples: 5000, duration_ms: 30000, warmup_ms: 0, measured_s: 29.9, window_ms: 30000,
  loadgen_cpu_max: 0.2, eloop_p99_max_us: 1000, late_fraction: 0, error_rate: 0, instance_restarts: 0,
  loadgens_not_done: 0, loadgen_runs: 1, steady_gate: { window_ms: 10000, cv_max: 0.1, trend_max: 0.1, max_warmup_ms: 60000 },
  steady: true, measure_from_ms: 14000, warmup_samples: 3000, window_seconds: 30, window_trend: 0.01, window_trend_se: 0.02,
};
const codes = (r, ...rest) => roundFlags({ ...ROUND, ...r }, ...rest).map((f) => `${f.code}:${f.severity}`);

test('a steady round: only the warm-up the gate excluded, as information', () => {
  const f = roundFlags(ROUND);
  assert.deepEqual(f, [{ code: 'warmup', severity: 'info', text: 'warm-up 14 s excluded by the steady-state gate (3000 samples)' }]);
});

test('never steady: a warning naming the maximum warm-up', () => {
  const f = roundFlags({ ...ROUND, steady: false, measure_from_ms: 60000 });
  assert.equal(f[0].text, 'never steady: the steady-state gate gave up after 60 s of warm-up');
  assert.equal(f[0].severity, 'warn');
  assert.ok(trusted(f));
});

test('a trend inside the window is bad only when beyond trendMax and significant', () => {
  assert.equal(DEFAULTS.validity.trendMax, 0.1);
  // +15 % ± 2 % over 30 s: t(0.975, 28) · 2 % = 4.1 % < 15 %.
  assert.deepEqual(codes({ window_trend: 0.15, window_trend_se: 0.02 }), ['trend:bad', 'warmup:info']);
  assert.match(roundFlags({ ...ROUND, window_trend: -0.15, window_trend_se: 0.02 })[0].text,
    /^throughput trends -15\.0 % \(± 2\.0 %\) over the 30 s measured window$/);
  // +15 % ± 8 %: 2.05 · 8 % = 16.4 % > 15 %, within the noise.
  assert.equal(significantTrend({ window_trend: 0.15, window_trend_se: 0.08, window_seconds: 30 }, 0.1), false);
  // +8 % ± 0.1 %: significant but below the bound.
  assert.equal(significantTrend({ window_trend: 0.08, window_trend_se: 0.001, window_seconds: 30 }, 0.1), false);
  assert.equal(trusted(roundFlags({ ...ROUND, window_trend: 0.15, window_trend_se: 0.02 })), false);
  // Seconds that wander together leave fewer degrees of freedom (window_trend_df): +15 % ± 6 %
  // is significant with 28 (2.05 · 6 % = 12.3 %), not with 2.5 (3.57 · 6 % = 21.4 %).
  const wander = { window_trend: 0.15, window_trend_se: 0.06, window_seconds: 30 };
  assert.equal(significantTrend(wander, 0.1), true);
  assert.equal(significantTrend({ ...wander, window_trend_df: 2.5 }, 0.1), false);
});

test('throttled: the share of CFS periods, with the quantization named', () => {
  const f = roundFlags({ ...ROUND, throttled_fraction_max: 0.92, cpu_period_us: 100000 });
  assert.equal(f[0].code, 'throttled');
  assert.equal(f[0].severity, 'warn');
  assert.equal(f[0].text, 'CPU quota throttled an instance in 92.0 % of its periods of 100 ms: '
    + 'latency percentiles are quantized at multiples of 100 ms (the quota, not the app)');
  assert.deepEqual(codes({ throttled_fraction_max: 0.4, cpu_period_us: 100000 }), ['warmup:info']);
  assert.deepEqual(codes({ throttled_fraction_max: 0.4 }, { ...DEFAULTS.validity, throttledMax: 0.3 }), ['throttled:warn', 'warmup:info']);
});

test('CF: above the CPU entitlement is a warning', () => {
  assert.deepEqual(codes({ cpu_entitlement_max: 1.35 }), ['over-entitlement:warn', 'warmup:info']);
  assert.deepEqual(codes({ cpu_entitlement_max: 0.9 }), ['warmup:info']);
});

test('the first round after a change: left out when its step ran again, else a warning (information with afterChange: keep)', () => {
  const changed = { first_after_change: true, changes: ['instances: 1 → 2'] };
  const left = roundFlags({ ...ROUND, ...changed, superseded_by: 12 });
  assert.equal(left[0].text, 'first round after a change (instances: 1 → 2): left out, the step ran again as round 12');
  assert.equal(trusted(left), false);
  assert.deepEqual(codes(changed), ['first-after-change:warn', 'warmup:info']);
  assert.deepEqual(codes(changed, DEFAULTS.validity, 'keep'), ['first-after-change:info', 'warmup:info']);
});

test('plan: warmup: steady, its settings, afterChange; bad values name the field', () => {
  const base = { name: 's', apps: ['node-app'], load: [{ loadgens: 1, parallel: 4 }] };
  const p = validatePlan({ ...base, warmup: 'steady', steady: { window: '5s', maxWarmup: '90s' } });
  assert.equal(p.warmupMs, null);
  assert.deepEqual(p.steady, { windowMs: 5000, cv: null, trend: null, maxWarmupMs: 90000 });
  assert.equal(p.afterChange, 'rerun');
  assert.equal(validatePlan({ ...base, afterChange: 'keep' }).afterChange, 'keep');
  for (const [raw, msg] of [
    [{ warmup: '10s', steady: { window: '5s' } }, /steady is for warmup: steady/],
    [{ warmup: 'steady', steady: { cv: 2 } }, /steady\.cv must be a number > 0 and <= 1, got 2/],
    [{ warmup: 'steady', steady: { wndow: '5s' } }, /steady\.wndow is not a known field/],
    [{ warmup: 'steady', requests: 100, duration: undefined }, /warmup: steady needs a duration/],
    [{ afterChange: 'drop' }, /afterChange must be one of rerun, keep, got "drop"/],
  ]) assert.throws(() => validatePlan({ ...base, ...raw }), msg);
});

test('stale rounds under warmup: steady: the gate settings the plan sets are compared', () => {
  const plan = validatePlan({ name: 's', apps: ['node-app'], load: [{ loadgens: 1, parallel: 4 }], warmup: 'steady',
    steady: { window: '5s', trend: 0.05 } });
  const spec = specForLabel(plan, 'exp:s:node-app:default:i1:l1:p4:rep1');
  // Stale-round check: a gated round matches warmup: steady, not a fixed warm-up; the gate's
  // settings are compared where the plan sets them.
  const row = { app: 'node-app', app_instances: 1, loadgens: 1, model: 'closed', parallel: 4, rate: null, duration_ms: 60000,
    requests: null, warmup_ms: 0, timeout_ms: 10000, keepalive: true, scenario: 'read', plan: {}, environment: { app_cpu_quota_cores: 'default' },
    settings: {}, steady_gate: { window_ms: 5000, cv_max: 0.1, trend_max: 0.05, max_warmup_ms: 60000 } };
  assert.deepEqual(roundMismatches(row, spec), []);
  assert.deepEqual(roundMismatches({ ...row, steady_gate: { ...row.steady_gate, window_ms: 10000 } }, spec), ['steady.window_ms: round 10000, plan 5000']);
  const fixed = specForLabel(validatePlan({ name: 's', apps: ['node-app'], load: [{ loadgens: 1, parallel: 4 }], warmup: '10s' }), 'exp:s:node-app:default:i1:l1:p4:rep1');
  assert.deepEqual(roundMismatches(row, fixed), ['warmup_ms: round steady, plan 10000']);
});
