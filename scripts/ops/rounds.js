#!/usr/bin/env node
'use strict';
// rounds.js — scripts/rounds.sh: the summary table of past rounds (newest first), or the
// full summary of one round. Help: the header of scripts/rounds.sh.
const path = require('node:path');
const { makeCli, usageFromHeader } = require('./cli');
const { selectPlatform } = require('./platform');
const { runSync } = require('./exec');

const cli = makeCli('rounds');
const DEFAULT_LAST = '20';
const VALUE_FLAGS = new Set(['--last', '--app', '--round', '--platform']);

function parseArgs(argv) {
  const o = { last: DEFAULT_LAST, app: '', round: '', platform: '' };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (VALUE_FLAGS.has(a)) {
      cli.requireValue(a, argv, i);
      o[a.slice(2)] = argv[++i];
    } else if (a === '-h' || a === '--help') {
      process.stdout.write(usageFromHeader(path.join(__dirname, '../rounds.sh')));
      process.exit(0);
    } else {
      cli.usageError(`unknown option: ${a}`);
    }
  }
  return o;
}

function main() {
  const o = parseArgs(process.argv.slice(2));
  cli.requirePositiveInt(o.last, '--last');
  if (o.app) cli.requireKnownApp(o.app);
  if (o.round) cli.requirePositiveInt(o.round, '--round');
  const p = selectPlatform(cli, { platformOpt: o.platform });
  const db = p.resultsDbUrl();
  const argv = o.round
    ? ['node', 'scripts/round/show-round.js', '--db', db, '--round', o.round]
    : ['node', 'scripts/round/rounds-table.js', '--db', db, '--last', o.last, ...(o.app ? ['--app', o.app] : [])];
  process.exit(runSync(argv, { stdout: 'inherit' }));
}

main();
