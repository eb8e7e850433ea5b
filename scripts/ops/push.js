#!/usr/bin/env node
'use strict';
// push.js — scripts/push.sh: push an app (or all of them) from its manifest to the local
// platform or CF. COMMAND is its help and its flags.
const { makeCli, knownApps, ROWS } = require('./cli');
const { enterRepository, selectPlatform, ALL_APPS } = require('./target');
const { localPlatformUp, localServices, pushApp } = require('./apps');
const { requireNodeModules } = require('./node-modules');
const { noteCfVerifies } = require('./tls');
const { note, cliExitCode } = require('../../lib/arg-table');

const cli = makeCli('push');

const COMMAND = {
  usage: 'Usage: scripts/push.sh APP|all [-i N] [--platform local|cf] [--skip-ssl-validation] [--dry-run]',
  about: 'Push APP (node-app, java-app or loadgen: a manifests/APP.yml; all = every one) from its manifest.',
  rows: [
    ['--instances N', 'instances', 'int', note("the manifest's, from the vars file"), 'instances', [1]],
    ROWS.platform,
    ['--skip-ssl-validation', 'skipSslValidation', 'bool', false, 'a foundation with self-signed certificates: push makes no '
      + 'HTTPS request of its own, and cf push has no such flag (the cf CLI reads its stored setting, `cf api URL '
      + '--skip-ssl-validation`, docs/cf-platform.md §13); on cf a line says so when the cf CLI still verifies'],
    ROWS.dryRun,
    ROWS.help,
  ],
  aliases: { '-i': '--instances' },
  positionals: 2,
  notes: [
    'Both platforms are driven by the real cf CLI (.tools/bin/cf). local: starts the platform',
    '(scripts/cfl up) and logs the cf CLI in to its Cloud Controller (scripts/cfl login: `cf api',
    '$(scripts/cfl api-url)`, `cf auth` as admin, password in CF_PASSWORD, `cf target -o local -s local`, with CF_HOME in the',
    'platform\'s own dir, so your own cf target is untouched), creates the services node-db,',
    'java-db and results-db (cf create-service postgres local NAME), builds the java-app jar',
    'when missing or stale, gives node-app and java-app a fresh control credential, their',
    'CONTROL_TOKEN (`cf create-app APP` when absent; one there without a token, from a plain',
    'cf push, is said to get one; then',
    '`cf curl -X PATCH /v3/apps/GUID/environment_variables -d @FILE`, never printed:',
    'docs/control-credential.md), then `cf push APP -f manifests/APP.yml --vars-file',
    'manifests/vars-local.yml [-i N]` (for those two with `--redact-env`: the manifest diff',
    'would print the token; for the loadgen then no CPU quota: the instrument, see scale.sh --cpu).',
    'cf: checks the cf CLI, login, target and services first, and that a Node app\'s modules',
    'are installed (package-lock.json) and not in its .cfignore: cf push uploads them, so',
    'staging builds pg-native without internet (docs/cf-platform.md §12); then the same',
    'control credential, and',
    '`cf push APP -f manifests/APP.yml --vars-file manifests/vars.yml [-i N]`.',
    'Exit: 0 ok, 1 usage or configuration error. DEBUG=1 traces.',
  ].join('\n'),
};

async function main() {
  enterRepository();
  const o = cli.parse(process.argv.slice(2), COMMAND);
  const [target, second] = o._;
  if (second) cli.usageError(`one APP (or all) only, got "${target}" and "${second}"`);
  if (!target) cli.usageError(`APP is required (one of: ${knownApps().join(' ')}, all)`);
  o.target = target;
  const apps = o.target === 'all' ? ALL_APPS : [o.target];
  for (const app of apps) cli.requireKnownApp(app);
  const p = await selectPlatform(cli, { platformOpt: o.platform, dryRun: o.dryRun });
  if (p.name === 'local') {
    await localPlatformUp(p);
    await localServices(p);
  } else {
    noteCfVerifies(p, o.skipSslValidation);
    await p.cfPreflight();
    for (const app of apps) requireNodeModules(p, app);
  }
  for (const app of apps) await pushApp(p, app, o.instances === undefined ? '' : String(o.instances));
}

if (require.main === module) {
  main().catch((err) => process.exit(cliExitCode(err)));
}
