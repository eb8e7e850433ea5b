#!/usr/bin/env node
'use strict';
// teardown.js — scripts/teardown.sh: stop and delete the apps (with --all the services
// too), leaving nothing running. Help: the header of scripts/teardown.sh.
const path = require('node:path');
const { makeCli, usageFromHeader } = require('./cli');
const { selectPlatform, onPath, ALL_APPS, SERVICES } = require('./platform');

const cli = makeCli('teardown');

function parseArgs(argv) {
  const o = { all: false, platform: '', dryRun: process.env.DRY_RUN === '1' };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--all') {
      o.all = true;
    } else if (a === '--platform') {
      cli.requireValue(a, argv, i);
      o.platform = argv[++i];
    } else if (a === '--dry-run') {
      o.dryRun = true;
    } else if (a === '-h' || a === '--help') {
      process.stdout.write(usageFromHeader(path.join(__dirname, '../teardown.sh')));
      process.exit(0);
    } else {
      cli.usageError(`unknown option: ${a}`);
    }
  }
  return o;
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
    p.cfRun('up');
    for (const app of ALL_APPS) p.cfRun('delete', app, '-f');
    for (const s of SERVICES) p.cfRun('delete-service', s, '-f');
  }
  p.cfRun('down');
}

main();
