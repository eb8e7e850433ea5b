// steady-flags.js — validity flags on a round's measured window, from the columns of
// report_round_steady (results-schema.sql) that data.js merges into each overview row:
// the steady-state gate's answer, a trend inside the window, CFS throttling (local), the
// CPU entitlement used (CF), and the first round after a change. Thresholds: plan.js
// DEFAULTS.validity (trendMax, throttledMax, entitlementMax) and plan.afterChange;
// report/README.md documents each flag.
'use strict';
const { tQuantile } = require('../../../lib/inference.js');

const pct = (x) => `${(100 * x).toFixed(1)} %`;
const num = (v) => (v === null || v === undefined ? null : Number(v));

/**
 * A trend counts when it is larger than trendMax and its 95 % interval leaves out 0: Student t
 * on the per-second residuals, with the degrees of freedom their autocorrelation leaves
 * (window_trend_df, round_window_trend in results-schema.sql). Per-second noise alone, and a
 * wander of a few seconds, must not flag a round.
 */
function significantTrend(r, trendMax) {
  const trend = num(r.window_trend);
  const se = num(r.window_trend_se);
  const n = num(r.window_seconds);
  if (trend === null || n === null || n < 3 || Math.abs(trend) <= trendMax) return false;
  const df = num(r.window_trend_df) ?? n - 2;
  return se === null || Math.abs(trend) > tQuantile(0.975, df) * se;
}

/** The flags ({code, severity, text}) of one row; add(code, severity, text) collects them. */
function steadyFlags(r, limits, afterChange, add) {
  if (r.steady === false) {
    const max = num(r.steady_gate?.max_warmup_ms);
    add('never-steady', 'warn', `never steady: the steady-state gate gave up after ${max === null ? '?' : (max / 1000).toFixed(0)} s of warm-up`);
  }
  if (significantTrend(r, limits.trendMax)) {
    add('trend', 'bad', `throughput trends ${num(r.window_trend) > 0 ? '+' : ''}${pct(num(r.window_trend))} `
      + `(± ${pct(num(r.window_trend_se))}) over the ${r.window_seconds} s measured window`);
  }
  const throttled = num(r.throttled_fraction_max);
  if (throttled !== null && throttled > limits.throttledMax) {
    const p = num(r.cpu_period_us);
    const ms = p ? `${p / 1000} ms` : 'the CFS period';
    add('throttled', 'warn', `CPU quota throttled an instance in ${pct(throttled)} of its periods of ${ms}: `
      + `latency percentiles are quantized at multiples of ${ms} (the quota, not the app)`);
  }
  const ent = num(r.cpu_entitlement_max);
  if (ent !== null && ent > limits.entitlementMax) {
    add('over-entitlement', 'warn', `CPU entitlement ${pct(ent)} used: beyond it the app runs on spare capacity of its cell, `
      + 'which neighbours can take back');
  }
  if (r.first_after_change) {
    const what = `first round after a change (${(r.changes ?? []).join('; ')})`;
    if (r.superseded_by) add('first-after-change', 'bad', `${what}: left out, the step ran again as round ${r.superseded_by}`);
    else add('first-after-change', afterChange === 'keep' ? 'info' : 'warn', `${what}: figures may include its after-effects`);
  }
}

module.exports = { significantTrend, steadyFlags };
