'use strict';
// show-round.js — print one round's summary as run-round.sh printed it (read only).
//
// showRound(db, round, opts), which `scripts/rounds.sh --round` calls.
const { withClient } = require('../ops/results-db');
const { loadSummary, verdict, formatSummary, DEFAULT_MAX_ERROR_RATE } = require('./summary');

const PROG = 'show-round';

/** Print round `round`'s summary; a missing round or database error: one line, exit 1. */
async function showRound(db, round, { maxErrorRate = DEFAULT_MAX_ERROR_RATE } = {}) {
  await withClient(db, PROG, async (client) => {
    const summary = await loadSummary(client, round);
    if (!summary) throw new Error(`round ${round} does not exist`);
    const reasons = summary.round.status === 'cancelled' ? ['cancelled'] : verdict(summary, { maxErrorRate });
    process.stdout.write(`${formatSummary(summary, reasons).join('\n')}\n`);
  });
}

module.exports = { showRound };
