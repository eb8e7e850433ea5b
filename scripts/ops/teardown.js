#!/usr/bin/env node
'use strict';
// teardown.js — scripts/teardown.sh: stop and delete the apps (with --all the services
// too), leaving nothing running. Help: the header of scripts/teardown.sh.
const { makeCli } = require('./cli');
const { selectPlatform, ALL_APPS, SERVICES } = require('./target');
const { onPath } = require('./exec');
const { localPlatformUp } = require('./apps');

const cli = makeCli('teardown');

function parseArgs(argv) {
  return cli.parseFlags(argv, {
    defaults: { all: false, platform: '', dryRun: process.env.DRY_RUN === '1' },
    values: { '--platform': 'platform' },
    switches: { '--all': 'all', '--dry-run': 'dryRun' },
    help: 'teardown.sh',
  });
}

function main() {
  const o = parseArgs(process.argv.slice(2));
  const p = selectPlatform(cli, { platformOpt: o.platform, dryRun: o.dryRun });
  if (p.name === 'cf') {
    if (!onPath('cf')) cli.die('the cf CLI is not installed: run scripts/setup.sh');
    for (const app of ALL_APPS) p.cfRun('delete', app, '-f');
    if (o.all) for (const s of SERVICES) p.cfRun('delete-service', s, '-f');
    return;
  }
  // Locally the services live in the platform's PostgreSQL: it must be up to delete them.
  if (o.all) {
    localPlatformUp(p);
    for (const app of ALL_APPS) p.cfRun('delete', app, '-f');
    for (const s of SERVICES) p.cfRun('delete-service', s, '-f');
  }
  p.cflRun('down');
}

main();
