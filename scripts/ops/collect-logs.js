#!/usr/bin/env node
'use strict';
// collect-logs.js — scripts/collect-logs.sh: the router's access-log lines of an app into
// router_timings, until SIGTERM/SIGINT. Help: the header of scripts/collect-logs.sh.
//
// `cf logs APP` ends by itself after 5 log-cache errors in a row, with exit 0
// (docs/cf-platform.md §10): then `cf logs APP --recent` catches up on what the gap
// missed (its last 1000 lines; records already stored are dropped by vcap_request_id) and
// `cf logs APP` follows again, until the collector is stopped.
const { makeCli } = require('./cli');
const { selectPlatform } = require('./target');
const { requireCollectorArgs, pipeUntilTerm } = require('./collect');
const { formatCmd } = require('./exec');

const cli = makeCli('collect-logs');
// Between an early end of `cf logs` and the catch-up: the CLI itself retried for ~1 s.
const RESTART_DELAY_MS = 1000;

function parseArgs(argv) {
  return cli.parseFlags(argv, {
    defaults: { app: '', round: '', db: '', platform: '', dryRun: process.env.DRY_RUN === '1' },
    values: { '--app': 'app', '--round': 'round', '--db': 'db', '--platform': 'platform' },
    switches: { '--dry-run': 'dryRun' },
    help: 'collect-logs.sh',
  });
}

/** `cf logs APP`, restarted after a catch-up with --recent whenever it ends by itself. */
function followLogs(p, app) {
  let restarts = 0;
  const follow = { argv: [...p.cf, 'logs', app] };
  const catchUp = { argv: [...p.cf, 'logs', app, '--recent'], delayMs: RESTART_DELAY_MS, next: () => follow };
  follow.next = (code) => {
    restarts++;
    cli.log(`${formatCmd(follow.argv)} ended by itself (exit ${code}; restart ${restarts}): `
      + 'catching up with --recent, then following again');
    return catchUp;
  };
  return follow;
}

async function main() {
  const o = parseArgs(process.argv.slice(2));
  requireCollectorArgs(cli, o);
  const p = selectPlatform(cli, { platformOpt: o.platform, dryRun: o.dryRun });
  // `cf logs APP` on both platforms (the local one serves log-cache): the [RTR/N] lines ingest-rtr.js keeps.
  const producer = followLogs(p, o.app);
  if (p.dryRun) {
    p.printCmd(producer.argv);
    return;
  }
  const db = o.db || p.resultsDbUrl();
  process.exit(await pipeUntilTerm(producer, ['node', 'scripts/parsers/ingest-rtr.js', '--db', db,
    '--round', o.round, '--app', o.app, '--platform', p.name]));
}

main();
