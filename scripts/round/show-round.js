#!/usr/bin/env node
'use strict';
// show-round.js — print one round's summary as run-round.sh printed it (read only).
//
// Usage: node scripts/round/show-round.js --db URL --round ID [--max-error-rate F]
const { parseArgs } = require('./cli-args');
const { withClient } = require('./db');
const { loadSummary, verdict, formatSummary, DEFAULT_MAX_ERROR_RATE } = require('./summary');

const PROG = 'show-round';

async function main() {
  const args = parseArgs(process.argv.slice(2), {
    db: { required: true },
    round: { type: 'int', required: true },
    'max-error-rate': { type: 'number', default: DEFAULT_MAX_ERROR_RATE },
  }, PROG);
  await withClient(args.db, PROG, async (client) => {
    const summary = await loadSummary(client, args.round);
    if (!summary) throw new Error(`round ${args.round} does not exist`);
    const reasons = summary.round.status === 'cancelled' ? ['cancelled']
      : verdict(summary, { maxErrorRate: args.maxErrorRate });
    process.stdout.write(`${formatSummary(summary, reasons).join('\n')}\n`);
  });
}

main();
