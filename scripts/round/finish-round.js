#!/usr/bin/env node
'use strict';
// finish-round.js — close a round: judge it (every loadgen done, samples present, error
// rate at most --max-error-rate), mark it done or failed (or cancelled), print its summary.
// Exit 0 done, 2 failed or cancelled, 1 usage or database error.
//
// Usage: node scripts/round/finish-round.js --db URL --round ID [--max-error-rate F] [--cancel]
const { parseArgs } = require('./cli-args');
const { withClient } = require('./db');
const { loadSummary, verdict, formatSummary, DEFAULT_MAX_ERROR_RATE } = require('./summary');

const PROG = 'finish-round';

async function main() {
  const args = parseArgs(process.argv.slice(2), {
    db: { required: true },
    round: { type: 'int', required: true },
    'max-error-rate': { type: 'number', default: DEFAULT_MAX_ERROR_RATE },
    cancel: { type: 'bool', default: false },
  }, PROG);
  const code = await withClient(args.db, PROG, async (client) => {
    const summary = await loadSummary(client, args.round);
    if (!summary) throw new Error(`round ${args.round} does not exist`);
    const reasons = args.cancel ? ['cancelled'] : verdict(summary, { maxErrorRate: args.maxErrorRate });
    const status = args.cancel ? 'cancelled' : reasons.length === 0 ? 'done' : 'failed';
    const { rows } = await client.query(
      'UPDATE rounds SET status = $2, finished_at = now() WHERE id = $1 RETURNING status', [args.round, status]);
    summary.round.status = rows[0].status;
    process.stdout.write(`${formatSummary(summary, reasons).join('\n')}\n`);
    return status === 'done' ? 0 : 2;
  });
  process.exit(code);
}

main();
