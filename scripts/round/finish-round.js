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

/**
 * Judge the round, write its status back, and return { code, text }: code 0 done, 2
 * failed or cancelled; text the summary lines. Throws when the round does not exist.
 */
async function finishRound(client, { round, maxErrorRate = DEFAULT_MAX_ERROR_RATE, cancel = false, loadgenLog, dbOutageMs = null }) {
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
