#!/usr/bin/env node
'use strict';
// rounds.js — scripts/rounds.sh: the summary table of past rounds (newest first), or the
// full summary of one round, or (--reap) the rounds whose control process is gone marked
// failed. Help: the header of scripts/rounds.sh.
const { makeCli } = require('./cli');
const { selectPlatform } = require('./target');
const { localPlatformUp } = require('./apps');
const { printReaped } = require('../round/reap-rounds');
const { showRound } = require('../round/show-round');
const { printRounds } = require('../round/rounds-table');

const cli = makeCli('rounds');
const DEFAULT_LAST = '20';

function parseArgs(argv) {
  return cli.parseFlags(argv, {
    defaults: { last: DEFAULT_LAST, app: '', round: '', platform: '', reap: false },
    values: { '--last': 'last', '--app': 'app', '--round': 'round', '--platform': 'platform' },
    switches: { '--reap': 'reap' },
    help: 'rounds.sh',
  });
}

async function main() {
  const o = parseArgs(process.argv.slice(2));
  cli.requirePositiveInt(o.last, '--last');
  if (o.app) cli.requireKnownApp(o.app);
  if (o.round) cli.requirePositiveInt(o.round, '--round');
  const p = selectPlatform(cli, { platformOpt: o.platform });
  if (p.name === 'local') localPlatformUp(p);
  const db = p.resultsDbUrl();
  if (o.reap) await printReaped(db);
  else if (o.round) await showRound(db, Number(o.round));
  else await printRounds(db, { last: Number(o.last), app: o.app });
  process.exit(0);
}

if (require.main === module) main();
