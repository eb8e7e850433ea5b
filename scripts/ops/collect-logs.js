#!/usr/bin/env node
'use strict';
// collect-logs.js — scripts/collect-logs.sh: the router's access-log lines of an app into
// router_timings, until SIGTERM/SIGINT. COMMAND is its help and its flags.
//
// `cf logs APP` ends by itself after 5 log-cache errors in a row, with exit 0
// (docs/cf-platform.md §10): then `cf logs APP --recent` catches up on what the gap
// missed (its last 1000 lines; records already stored are dropped by vcap_request_id) and
// `cf logs APP` follows again, until the collector is stopped.
const { makeCli, ROWS } = require('./cli');
const { note, cliExitCode } = require('../../lib/arg-table');
const { enterRepository, selectPlatform } = require('./target');
const { requireCollectorArgs, ingestFrom, DRY_RUN } = require('./collect');
const { formatCmd } = require('./exec');
const { sinceTime } = require('./log-cache-lines');
const path = require('node:path');

const cli = makeCli('collect-logs');
// Between an early end of `cf logs` and the catch-up: the CLI itself retried for ~1 s.
const RESTART_DELAY_MS = 1000;

const COMMAND = {
  usage: 'Usage: scripts/collect-logs.sh --app APP --round ID [--since TIME] [--platform local|cf] [--dry-run]',
  about: "The router's access-log lines of an app into router_timings, until killed.",
  rows: [
    ['--app APP', 'app', 'str', note('(required)'), 'the app whose logs to follow'],
    ['--round ID', 'round', 'str', note('(required)'), 'the round the records belong to'],
    ['--since TIME', 'since', 'str', note('follow from now'), 'read what log-cache holds from TIME (ISO 8601) on, then exit, instead of following'],
    ROWS.platform,
    ['--dry-run', 'dryRun', 'bool', ROWS.dryRun[3], 'print the platform command, run nothing'],
    ROWS.help,
    ROWS.resultsDb,
  ],
  notes: [
    'Streams `cf logs APP` (on both platforms: the local one serves log-cache) into',
    'scripts/parsers/ingest-rtr.js, which keeps the [RTR/N] lines (Gorouter access-log',
    'layout, docs/cf-platform.md §5). On CF these are a lossy sample under load. `cf logs`',
    'ends by itself after 5 log-cache errors in a row (§10): it is then restarted, after',
    '`cf logs APP --recent` has caught up on the gap (one line on stderr each time; records',
    'already stored are dropped). SIGTERM or SIGINT stops `cf logs`; what was read is flushed,',
    'exit 0 (2 when rows could not be written). With --since it reads log-cache in pages',
    '(ops/log-cache-lines.js: no 1000-line limit) from TIME to now and exits: what run-round',
    'runs after the round when its routerLogAfterWindow is on (scripts/round/round-plan.js).',
  ].join('\n'),
};

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
  enterRepository();
  const o = cli.parse(process.argv.slice(2), COMMAND);
  requireCollectorArgs(cli, o);
  // Under --dry-run run-round passes DRY_RUN.createdAt (as DRY_RUN.round for --round).
  if (o.since !== undefined && !(o.dryRun && o.since === DRY_RUN.createdAt)) sinceTime(cli, o.since);
  const p = await selectPlatform(cli, { platformOpt: o.platform, dryRun: o.dryRun });
  // `cf logs APP` on both platforms (the local one serves log-cache): the [RTR/N] lines ingest-rtr.js keeps.
  const producer = o.since
    ? { argv: [process.execPath, path.join(__dirname, 'log-cache-lines.js'), '--app', o.app, '--since', o.since, '--platform', p.name] }
    : followLogs(p, o.app);
  const code = await ingestFrom(p, o, producer, 'ingest-rtr.js');
  if (code !== undefined) process.exit(code);
}

main().catch((err) => process.exit(cliExitCode(err)));
