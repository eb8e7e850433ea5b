#!/usr/bin/env node
'use strict';
// finish-round.js — close a round: mark the loadgens that died in it `lost`
// (lost-loadgens.js), judge it (every loadgen done, samples present, error rate at most
// --max-error-rate), mark it done or failed (or cancelled), print its summary.
// Exit 0 done, 2 failed or cancelled, 1 usage or database error.
//
// Usage: node scripts/round/finish-round.js --db URL --round ID [--max-error-rate F] [--cancel]
//        [--loadgen-log FILE]   (`cf logs loadgen --recent` output: lost-sample lines)
// Also a module (run-round.js): finishRound(client, { round, maxErrorRate, cancel, loadgenLog,
// dbOutageMs }) → { code, text }; loadgenLog: async () → that text, read only when a loadgen
// died; dbOutageMs: how long run-round found the results database unreachable during the
// round (rounds.db_outage_ms, a validity flag).
const { parseArgs, fail } = require('./cli-args');
const { withClient } = require('./results-db');
const fs = require('node:fs');
const { loadSummary, verdict, formatSummary, DEFAULT_MAX_ERROR_RATE } = require('./summary');
const { markLostLoadgens } = require('./lost-loadgens');

const PROG = 'finish-round';

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

async function main() {
  const args = parseArgs(process.argv.slice(2), {
    db: { required: true },
    round: { type: 'int', required: true },
    'max-error-rate': { type: 'number', default: DEFAULT_MAX_ERROR_RATE },
    cancel: { type: 'bool', default: false },
    'loadgen-log': {},
  }, PROG);
  const logFile = args.loadgenLog;
  let logText = '';
  try {
    if (logFile) logText = fs.readFileSync(logFile, 'utf8');
  } catch (err) {
    fail(PROG, `--loadgen-log: ${err.message}`);
  }
  args.loadgenLog = async () => logText;
  const code = await withClient(args.db, PROG, async (client) => {
    const { code: c, text } = await finishRound(client, args);
    process.stdout.write(text);
    return c;
  });
  process.exit(code);
}

if (require.main === module) main();

module.exports = { finishRound };
