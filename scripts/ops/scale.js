#!/usr/bin/env node
'use strict';
// scale.js — scripts/scale.sh: set an app's instance count (and, on the local platform,
// its CPU quota), then wait until that many are RUNNING. Help: the header of scripts/scale.sh.
const { makeCli, knownApps } = require('./cli');
const { selectPlatform } = require('./target');
const { localPlatformUp, scaleApp, waitRunning } = require('./apps');

const cli = makeCli('scale');

function parseArgs(argv) {
  return cli.parseFlags(argv, {
    defaults: { app: '', instances: '', cpu: '', platform: '', dryRun: process.env.DRY_RUN === '1' },
    values: { '-i': 'instances', '--instances': 'instances', '--cpu': 'cpu', '--platform': 'platform' },
    switches: { '--dry-run': 'dryRun' },
    help: 'scale.sh',
    positional(a, o) {
      if (o.app) cli.usageError(`one APP only, got "${o.app}" and "${a}"`);
      o.app = a;
    },
  });
}

function main() {
  const o = parseArgs(process.argv.slice(2));
  if (!o.app) cli.usageError(`APP is required (one of: ${knownApps().join(' ')})`);
  cli.requireKnownApp(o.app);
  if (!o.instances) cli.usageError('-i N is required');
  cli.requirePositiveInt(o.instances, '-i');
  if (o.cpu) cli.requireCpu(o.cpu);
  const p = selectPlatform(cli, { platformOpt: o.platform, dryRun: o.dryRun });
  if (o.cpu && p.name !== 'local') cli.usageError('--cpu is local only (on CF, CPU follows memory)');
  if (p.name === 'cf') p.cfPreflight();
  else localPlatformUp(p);
  const guid = p.appGuid(o.app);
  if (!guid) cli.die(`${o.app} is not pushed: run scripts/push.sh ${o.app}`);
  scaleApp(p, o.app, o.instances, o.cpu, guid);
  waitRunning(p, guid, o.instances);
}

main();
