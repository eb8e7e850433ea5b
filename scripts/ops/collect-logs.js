#!/usr/bin/env node
'use strict';
// collect-logs.js — scripts/collect-logs.sh: the router's access-log lines of an app into
// router_timings, until SIGTERM/SIGINT. Help: the header of scripts/collect-logs.sh.
const path = require('node:path');
const { makeCli, usageFromHeader } = require('./cli');
const { selectPlatform } = require('./platform');
const { requireCollectorArgs, pipeUntilTerm } = require('./collect');

const cli = makeCli('collect-logs');
const VALUE_FLAGS = new Set(['--app', '--round', '--db', '--platform']);

function parseArgs(argv) {
  const o = { app: '', round: '', db: '', platform: '', dryRun: process.env.DRY_RUN === '1' };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (VALUE_FLAGS.has(a)) {
      cli.requireValue(a, argv, i);
      o[a.slice(2)] = argv[++i];
    } else if (a === '--dry-run') {
      o.dryRun = true;
    } else if (a === '-h' || a === '--help') {
      process.stdout.write(usageFromHeader(path.join(__dirname, '../collect-logs.sh')));
      process.exit(0);
    } else {
      cli.usageError(`unknown option: ${a}`);
    }
  }
  return o;
}

async function main() {
  const o = parseArgs(process.argv.slice(2));
  requireCollectorArgs(cli, o);
  const p = selectPlatform(cli, { platformOpt: o.platform, dryRun: o.dryRun });
  // `cfl logs APP` prints the layout of `cf logs APP` (the [RTR/N] lines ingest-rtr.js keeps).
  const argv = [...p.cf, 'logs', o.app];
  if (p.dryRun) {
    p.printCmd(argv);
    return;
  }
  const db = o.db || p.resultsDbUrl();
  process.exit(await pipeUntilTerm({ argv }, ['node', 'scripts/parsers/ingest-rtr.js', '--db', db,
    '--round', o.round, '--app', o.app, '--platform', p.name]));
}

main();
