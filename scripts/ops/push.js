#!/usr/bin/env node
'use strict';
// push.js — scripts/push.sh: push an app (or all of them) from its manifest to the local
// platform or CF. Help: the header of scripts/push.sh.
const { makeCli, knownApps } = require('./cli');
const { selectPlatform, ALL_APPS } = require('./target');
const { localPlatformUp, localServices, pushApp } = require('./apps');
const { requireNodeModules } = require('./node-modules');
const { noteCfVerifies } = require('./tls');

const cli = makeCli('push');

function parseArgs(argv) {
  return cli.parseFlags(argv, {
    defaults: { target: '', instances: '', platform: '', skipSslValidation: false, dryRun: process.env.DRY_RUN === '1' },
    values: { '-i': 'instances', '--instances': 'instances', '--platform': 'platform' },
    switches: { '--dry-run': 'dryRun', '--skip-ssl-validation': 'skipSslValidation' },
    help: 'push.sh',
    positional(a, o) {
      if (o.target) cli.usageError(`one APP (or all) only, got "${o.target}" and "${a}"`);
      o.target = a;
    },
  });
}

function main() {
  const o = parseArgs(process.argv.slice(2));
  if (!o.target) cli.usageError(`APP is required (one of: ${knownApps().join(' ')}, all)`);
  if (o.instances) cli.requirePositiveInt(o.instances, '-i');
  const apps = o.target === 'all' ? ALL_APPS : [o.target];
  for (const app of apps) cli.requireKnownApp(app);
  const p = selectPlatform(cli, { platformOpt: o.platform, dryRun: o.dryRun });
  if (p.name === 'local') {
    localPlatformUp(p);
    localServices(p);
  } else {
    noteCfVerifies(p, o.skipSslValidation);
    p.cfPreflight();
    for (const app of apps) requireNodeModules(p, app);
  }
  for (const app of apps) pushApp(p, app, o.instances);
}

if (require.main === module) main();
