// steady-data.js — what the report reads on each round's measured window, beside the
// overview: the report_round_steady row merged into the round's overview row (the
// steady-state gate's answer, trend, throttling, changes: steady-flags.js), and the
// per-second series for the per-round charts (round_seconds: throughput, errors, p50,
// p99; round_instance_series: CPU, memory, throttling per instance per stats sample).
'use strict';

const STEADY_COLUMNS = `steady_gate, steady, measure_from_ms, window_ms, cpu_period_us, window_seconds, window_ok_per_s,
  window_cv, window_trend, window_trend_se, throttled_fraction_max, throttled_us, cpu_entitlement_max,
  prev_round_id, first_after_change, changes, window_trend_df`;

const num = (v) => (v === null || v === undefined ? null : Number(v));

/** Adds round id's steady columns to its (last pushed) overview row and its series to `series`. */
async function loadSteadyData(client, id, overview, series) {
  const row = overview.find((r) => Number(r.round_id) === Number(id));
  const st = (await client.query(`SELECT ${STEADY_COLUMNS} FROM report_round_steady WHERE round_id = $1`, [id])).rows[0];
  if (row && st) {
    for (const k of ['measure_from_ms', 'window_ms', 'cpu_period_us', 'window_seconds', 'prev_round_id', 'window_trend_df']) st[k] = num(st[k]);
    Object.assign(row, st);
  }
  const secs = await client.query(`SELECT round_id, second, ok::int AS ok, errors::int AS errors, error_rate, p50_us, p99_us, measured
    FROM round_seconds WHERE round_id = $1 ORDER BY second`, [id]);
  series.seconds.push(...secs.rows.map((x) => ({ ...x, round_id: Number(x.round_id) })));
  const inst = await client.query(`SELECT round_id, instance_index, second, measured, cpu, mem_bytes, cpu_quota_cores,
      periods::int, throttled_periods::int
    FROM round_instance_series WHERE round_id = $1 ORDER BY instance_index, sampled_at`, [id]);
  series.instances.push(...inst.rows.map((x) => ({ ...x, round_id: Number(x.round_id), mem_bytes: num(x.mem_bytes) })));
}

/**
 * A round whose step ran again later (the same label, a later done round: the experiment
 * runner re-runs the first round after a change) gets superseded_by = that round's id.
 */
function markSuperseded(overview) {
  const latest = new Map();
  for (const r of overview) {
    if (!r.label || r.status !== 'done') continue;
    const id = Number(r.round_id);
    if (!latest.has(r.label) || latest.get(r.label) < id) latest.set(r.label, id);
  }
  for (const r of overview) {
    const l = r.label && latest.get(r.label);
    if (l && l > Number(r.round_id)) r.superseded_by = l;
  }
}

module.exports = { loadSteadyData, markSuperseded };
