'use strict';
// finish-round.js — close a round: mark the loadgens that died in it `lost`
// (lost-loadgens.js), judge it (every loadgen done, samples present, error rate at most
// run-round's --max-error-rate), mark it done or failed (or cancelled), give its summary.
//
// finishRound(client, { round, maxErrorRate, cancel, loadgenLog, dbOutageMs }) → { code, text }
// (round.js): loadgenLog: async () → the `cf logs loadgen --recent` text (lost-sample
// lines), read only when a loadgen died; dbOutageMs: how long run-round found the results
// database unreachable during the round (rounds.db_outage_ms, a validity flag).
const { loadSummary, verdict, formatSummary, DEFAULT_MAX_ERROR_RATE } = require('./summary');
const { markLostLoadgens } = require('./lost-loadgens');

// The tables a round fills by the hundred thousand. Autovacuum analyzes a table once a tenth
// of it changed, which one round of a large results database never is: the planner then
// takes the round for one row, and a join within it for a nested loop that reads the whole
// round once per request (a summary and a report view ran for minutes).
// Their round_id alone, from a small sample: 0.3 s on a database of 11.6 M router records
// (the whole tables at the default sample: 7-9 s), and enough to see a round's size.
const ROUND_TABLES = ['requests', 'router_timings', 'server_timings'];
const ROUND_STATISTICS_TARGET = 10;
const INSUFFICIENT_PRIVILEGE = '42501';

/**
 * The round's rows made known to the planner (a database user that owns no table gets a warning,
 * not an error), and its BRIN ranges summarized: autosummarize leaves a range to autovacuum's next
 * pass, and until then the next round's queries read it whatever round they ask for.
 */
async function analyzeRoundTables(client) {
  // Only the index's owner may summarize (a broker's second binding may not own it): autosummarize remains.
  await client.query("SELECT brin_summarize_new_values('requests_round_brin')").catch((err) => {
    if (err.code !== INSUFFICIENT_PRIVILEGE) throw err;
  });
  // One simple query is one transaction: SET LOCAL holds for the ANALYZE only.
  await client.query(`SET LOCAL default_statistics_target = ${ROUND_STATISTICS_TARGET}; `
    + `ANALYZE ${ROUND_TABLES.map((t) => `${t} (round_id)`).join(', ')}`);
}

/**
 * Judge the round, write its status back, and return { code, text }: code 0 done, 2
 * failed or cancelled; text the summary lines. Throws when the round does not exist.
 */
async function finishRound(client, { round, maxErrorRate = DEFAULT_MAX_ERROR_RATE, cancel = false, loadgenLog, dbOutageMs = null }) {
  await analyzeRoundTables(client);
  await markLostLoadgens(client, round, { loadgenLog });
  const summary = await loadSummary(client, round);
  if (!summary) throw new Error(`round ${round} does not exist`);
  const reasons = cancel ? ['cancelled'] : verdict(summary, { maxErrorRate });
  const status = cancel ? 'cancelled' : reasons.length === 0 ? 'done' : 'failed';
  const { rows } = await client.query(
    `UPDATE rounds SET status = $2, finished_at = now(), status_reason = $3,
        db_outage_ms = coalesce($4, db_outage_ms)
      WHERE id = $1 RETURNING status, db_outage_ms`, [round, status, reasons.join('; ') || null, dbOutageMs]);
  Object.assign(summary.round, rows[0]);
  return { code: status === 'done' ? 0 : 2, text: `${formatSummary(summary, reasons).join('\n')}\n` };
}

module.exports = { finishRound };
