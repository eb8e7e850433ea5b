#!/usr/bin/env node
'use strict';
// rounds.js — scripts/rounds.sh: the summary table of past rounds (newest first), or the
// full summary of one round, or (--reap) the rounds whose control process is gone marked
// failed. COMMAND is its help and its flags.
const { makeCli, ROWS } = require('../ops/cli');
const { enterRepository, selectPlatform } = require('../ops/target');
const { localPlatformUp } = require('../ops/apps');
const { printReaped } = require('./reap-rounds');
const { showRound } = require('./show-round');
const { printRounds } = require('./rounds-table');
const { cliExitCode } = require('../../lib/arg-table');

const cli = makeCli('rounds');

const COMMAND = {
  usage: 'Usage: scripts/rounds.sh [--last N] [--app APP] [--round ID | --reap] [--platform local|cf]',
  about: 'Summary table of past rounds (newest first), from the round_summary view.',
  rows: [
    ['--last N', 'last', 'int', 20, 'how many rounds', [1]],
    ['--app APP', 'app', 'str', undefined, 'only rounds of this app'],
    ['--round ID', 'round', 'int', undefined, 'the full summary of one round instead (as run-round.sh printed it)', [1]],
    ['--reap', 'reap', 'bool', false, 'mark failed, with the reason, every round still pending or running whose control '
      + 'process is gone (no heartbeat for round_heartbeat_timeout() in results-schema.sql); one line per round'],
    [...ROWS.platform.slice(0, 4), "where the results database is: local (results-db's service key, see run-round.sh) "
      + 'or cf (RESULTS_DATABASE_URL, see scripts/tunnel.sh)', ROWS.platform[5]],
    ROWS.help,
  ],
  notes: `Columns: id, created (UTC), app, platform, status, app instances, loadgens x parallel
(pN) or rate (R/s), length, samples after warm-up, error %, throughput, p50 and p99 ms,
label. Exit: 0 ok, 1 usage or database error.`,
};

async function main() {
  enterRepository();
  const o = cli.parse(process.argv.slice(2), COMMAND);
  if (o.app) cli.requireKnownApp(o.app);
  const p = await selectPlatform(cli, { platformOpt: o.platform });
  if (p.name === 'local') await localPlatformUp(p);
  const db = await p.resultsDbUrl();
  if (o.reap) await printReaped(db);
  else if (o.round) await showRound(db, o.round);
  else await printRounds(db, { last: o.last, app: o.app || '' });
  process.exit(0);
}

if (require.main === module) main().catch((err) => process.exit(cliExitCode(err)));
