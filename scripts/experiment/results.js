// results.js — what the experiment runner reads back from the results database: the
// finished round that still stands for a step of the plan (resume; spec-match.js decides),
// and the measured figures of a round (the decisions of scale-until-SLO and the capacity
// search). Reads the report views.
'use strict';
const { judgeRounds, ROUND_COLUMNS, roundMismatches } = require('../../plans/spec-match.js');

/** The newest round with this label, whatever its status: {id, status} or null. */
async function roundByLabel(client, label) {
  const { rows } = await client.query('SELECT id, status FROM rounds WHERE label = $1 ORDER BY id DESC LIMIT 1', [label]);
  return rows[0] ?? null;
}

/**
 * The newest done round of the spec's label that matches the spec (spec-match.js), and the
 * done rounds of that label recorded under other parameters: {round: {id, status} | null,
 * stale: [{id, mismatches}]}.
 */
async function doneRoundFor(client, spec) {
  const { rows } = await client.query(
    `SELECT ${ROUND_COLUMNS}, c.first_after_change FROM rounds LEFT JOIN round_changes c ON c.round_id = rounds.id
      WHERE label = $1 AND status = 'done' ORDER BY id DESC`, [spec.label]);
  let round = null;
  const stale = [];
  for (const row of rows) {
    const mismatches = roundMismatches(row, spec);
    if (mismatches.length) stale.push({ id: row.id, mismatches });
    // The first round after a change does not stand for its step unless the plan keeps it.
    else if (!round && !(row.first_after_change && spec.afterChange !== 'keep')) round = { id: row.id, status: row.status };
  }
  return { round, stale };
}

/** What changed before a round (results-schema.sql round_changes), or null when it is not the first after a change. */
async function changeOf(client, roundId) {
  const { rows } = await client.query('SELECT first_after_change, changes FROM round_changes WHERE round_id = $1', [roundId]);
  return rows[0]?.first_after_change ? rows[0].changes : null;
}

/** Figures of one round, latencies in ms, cpu in cores (the app's and the local router's). */
async function roundMetrics(client, roundId) {
  const { rows } = await client.query(
    `SELECT o.round_id, o.status, o.throughput_rps, o.error_rate, o.mean_us, o.p50_us, o.p95_us, o.p99_us,
            o.cpu_used_cores, o.late_fraction, o.samples,
            (r.environment->>'router_cpu_cores')::float8 AS router_cores,
            (r.environment->>'router_cpu_quota_cores')::float8 AS router_quota_cores
       FROM report_round_overview o JOIN rounds r ON r.id = o.round_id WHERE o.round_id = $1`, [roundId]);
  const r = rows[0];
  if (!r) return null;
  const ms = (us) => (us === null || us === undefined ? null : us / 1000);
  return {
    roundId: r.round_id, status: r.status, samples: r.samples,
    throughputRps: r.throughput_rps ?? 0, errorRate: r.error_rate ?? 1,
    meanMs: ms(r.mean_us), p50Ms: ms(r.p50_us), p95Ms: ms(r.p95_us), p99Ms: ms(r.p99_us),
    cpuCores: r.cpu_used_cores, lateFraction: r.late_fraction ?? 0,
    // The local router's mean CPU and its cgroup's quota (run-round; null on CF: not observable).
    routerCores: r.router_cores, routerQuotaCores: r.router_quota_cores,
  };
}

/**
 * Highest CPU (cores, summed over instances) of an app's done rounds in the plan's
 * experiment, counting only rounds that match the plan now (judgeRounds).
 */
async function maxCpuOfApp(client, plan, app) {
  const { rows } = await client.query(
    `SELECT ${ROUND_COLUMNS} FROM rounds WHERE app = $2 AND status = 'done'
        AND (experiment = $1 OR (experiment IS NULL AND label LIKE 'exp:%' AND split_part(label, ':', 2) = $1))`,
    [plan.name, app]);
  let max = null;
  for (const { id } of judgeRounds(rows, plan).current) {
    // One round at a time: the view's aggregate is then computed for that round only.
    const r = await client.query('SELECT cpu_used_cores AS c FROM report_round_resources WHERE round_id = $1', [id]);
    const c = r.rows[0]?.c;
    if (c !== null && c !== undefined && (max === null || c > max)) max = c;
  }
  return max;
}

module.exports = { roundByLabel, doneRoundFor, changeOf, roundMetrics, maxCpuOfApp };
