#!/usr/bin/env node
'use strict';
// teardown.js — scripts/teardown.sh: stop and delete the apps (with --all the services
// too), leaving nothing running. COMMAND is its help and its flags.
const { makeCli, ROWS } = require('./cli');
const { enterRepository, selectPlatform, ALL_APPS, SERVICES } = require('./target');
const { onPath } = require('./exec');
const { localPlatformUp } = require('./apps');
const { cliExitCode } = require('../../lib/arg-table');

const cli = makeCli('teardown');

const COMMAND = {
  usage: 'Usage: scripts/teardown.sh [--all] [--platform local|cf] [--dry-run]',
  about: 'Stop and delete the apps, leaving nothing running.',
  rows: [
    ['--all', 'all', 'bool', false, 'also delete the services node-db, java-db and results-db (all data, the results too)'],
    ROWS.platform,
    ROWS.dryRun,
    ROWS.help,
  ],
  notes: [
    'cf: `cf delete APP -f` for node-app, java-app and loadgen (then `cf delete-service NAME -f`',
    'with --all; locally after `scripts/cfl up` and the cf login of push.sh). local: then',
    '`scripts/cfl down` stops every instance, the router and PostgreSQL (data is kept unless',
    '--all deleted the services first). What the local platform still keeps after --all (its',
    'state in CFSCALE_HOME, PostgreSQL\'s data in /var/lib/cfscale/<hash> for a clone only root',
    'may enter, its cgroups): `scripts/cfl purge` lists it, `scripts/cfl purge --yes` removes it.',
    'Exit: 0 ok, 1 usage/configuration error.',
  ].join('\n'),
};

async function main() {
  enterRepository();
  const o = cli.parse(process.argv.slice(2), COMMAND);
  const p = await selectPlatform(cli, { platformOpt: o.platform, dryRun: o.dryRun });
  if (p.name === 'cf') {
    if (!onPath('cf')) cli.die('the cf CLI is not installed: run scripts/setup.sh');
    for (const app of ALL_APPS) await p.cfRun('delete', app, '-f');
    if (o.all) for (const s of SERVICES) await p.cfRun('delete-service', s, '-f');
    return;
  }
  // Locally the services live in the platform's PostgreSQL: it must be up to delete them.
  if (o.all) {
    await localPlatformUp(p);
    for (const app of ALL_APPS) await p.cfRun('delete', app, '-f');
    for (const s of SERVICES) await p.cfRun('delete-service', s, '-f');
  }
  await p.cflRun('down');
  if (o.all && !p.dryRun) cli.log('the platform\'s state and what it keeps outside the clone remain: scripts/cfl purge lists them, scripts/cfl purge --yes removes them');
}

main().catch((err) => process.exit(cliExitCode(err)));
