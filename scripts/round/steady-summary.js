'use strict';
// steady-summary.js — the round summary's lines on the measured window (results-schema.sql
// report_round_steady): where it started and why (the steady-state gate's answer, or
// --warmup), its per-second throughput CV and trend, CFS throttling (local), the CPU
// entitlement used (CF), and whether the round is the first after a change.
//
//   loadSteady(client, roundId) → the report_round_steady row (null when absent)
//   steadyLines(row) → lines of text (none without a row)

async function loadSteady(client, roundId) {
  const { rows } = await client.query('SELECT * FROM report_round_steady WHERE round_id = $1', [roundId]);
  return rows[0] ?? null;
}

const n = (v) => (v === null || v === undefined ? null : Number(v));
const s1 = (ms) => `${(ms / 1000).toFixed(1)} s`;
const pct = (x) => `${(100 * x).toFixed(1)} %`;
const signed = (x) => `${x > 0 ? '+' : ''}${pct(x)}`;

function windowLine(w) {
  const from = n(w.measure_from_ms);
  const length = n(w.window_ms);
  const span = `from ${s1(from)}${length === null ? '' : ` for ${s1(length)}`}`;
  const g = w.steady_gate;
  if (!g) return `measured window: ${span} (steady-state gate off: --warmup or --requests)`;
  const bounds = `window ${s1(g.window_ms)}, CV ≤ ${pct(g.cv_max)}, trend within ±${pct(g.trend_max)}`;
  if (w.steady === true) return `measured window: ${span}, steady after ${s1(from)} (gate: ${bounds})`;
  if (w.steady === false) {
    return `measured window: ${span}: NOT steady within the maximum warm-up of ${s1(g.max_warmup_ms)} (gate: ${bounds}); flagged`;
  }
  return 'measured window: the steady-state gate did not decide (the round ended first); all samples count';
}

/** The summary lines of one report_round_steady row. */
function steadyLines(w) {
  if (!w) return [];
  const lines = [windowLine(w)];
  if (n(w.window_seconds) > 2 && n(w.window_trend) !== null) {
    const se = n(w.window_trend_se);
    lines.push(`  per second in it: CV ${pct(n(w.window_cv))}, trend ${signed(n(w.window_trend))}`
      + `${se === null ? '' : ` ± ${pct(se)}`} over ${w.window_seconds} s`);
  }
  if (n(w.throttled_fraction_max) !== null) {
    const period = n(w.cpu_period_us);
    const of = period ? ` of ${period / 1000} ms` : '';
    lines.push(`CPU throttling: throttled in ${pct(n(w.throttled_fraction_max))} of its CFS periods${of} (most throttled instance);`
      + ` a throttled request waits for the next period${period ? `: latencies pile up at multiples of ${period / 1000} ms` : ''}`);
  }
  if (n(w.cpu_entitlement_max) !== null) {
    const e = n(w.cpu_entitlement_max);
    lines.push(`CPU entitlement: ${pct(e)} used (highest instance mean)${e > 1 ? ': above it, on spare capacity of the cell that neighbours can take back' : ''}`);
  }
  if (w.first_after_change) {
    lines.push(`first round after a change since round ${w.prev_round_id}: ${w.changes.join('; ')} (figures may include its after-effects)`);
  }
  return lines;
}

module.exports = { loadSteady, steadyLines };
