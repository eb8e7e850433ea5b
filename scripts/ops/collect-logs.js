#!/usr/bin/env node
'use strict';
// collect-logs.js — scripts/collect-logs.sh: the router's access-log lines of an app into
// router_timings, until SIGTERM/SIGINT. Help: the header of scripts/collect-logs.sh.
const { makeCli } = require('./cli');
const { selectPlatform } = require('./platform');
const { requireCollectorArgs, pipeUntilTerm } = require('./collect');

const cli = makeCli('collect-logs');

function parseArgs(argv) {
  return cli.parseFlags(argv, {
    defaults: { app: '', round: '', db: '', platform: '', dryRun: process.env.DRY_RUN === '1' },
    values: { '--app': 'app', '--round': 'round', '--db': 'db', '--platform': 'platform' },
    switches: { '--dry-run': 'dryRun' },
    help: 'collect-logs.sh',
  });
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
