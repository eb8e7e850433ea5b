#!/usr/bin/env node
'use strict';
// run-round.js — scripts/run-round.sh: one measured round from the command line. The flags
// (help, defaults, exit codes): run-round-args.js; the round itself: round.js runRound. Prints
// the summary, then `round_id=N` last, and exits with the round's code (SIGINT/SIGTERM: 130).
const { makeCli } = require('../ops/cli');
const { enterRepository } = require('../ops/target');
const { parseRunRoundArgs } = require('./run-round-args');
const { runRound } = require('./round');
const { cliExitCode } = require('../../lib/arg-table');

async function main() {
  enterRepository();
  const res = await runRound(parseRunRoundArgs(process.argv.slice(2), makeCli('run-round')));
  process.stdout.write(res.text);
  if (res.roundId !== null) process.stdout.write(`round_id=${res.roundId}\n`);
  return res.code;
}

main().then((code) => process.exit(code), (err) => process.exit(cliExitCode(err)));
