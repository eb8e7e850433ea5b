#!/usr/bin/env node
'use strict';
// scale.js — scripts/scale.sh: set an app's instance count (and, on the local platform,
// its CPU quota), then wait until that many are RUNNING. COMMAND is its help and its flags.
const { makeCli, knownApps, ROWS } = require('./cli');
const { enterRepository, selectPlatform } = require('./target');
const { localPlatformUp, scaleApp, appAction, waitRunning } = require('./apps');
const { giveMissingControlToken } = require('./control-token');
const { note, cliExitCode } = require('../../lib/arg-table');

const cli = makeCli('scale');

const COMMAND = {
  usage: 'Usage: scripts/scale.sh APP -i N [--cpu CORES|none] [--platform local|cf] [--dry-run]',
  about: "Set APP's instance count (node-app, java-app or loadgen) and, on the local platform, its CPU quota.",
  rows: [
    ['--instances N', 'instances', 'int', note('(required)'), 'instances', [1]],
    ['--cpu CORES', 'cpu', 'str', note('unchanged'), 'local only: per-instance CPU quota in cores (e.g. 0.5, 2), or none for '
      + 'no quota (the local platform starts apps with manifest memory in GB x CFSCALE_CPU_PER_GB cores, as CF shares CPU by '
      + 'memory; the loadgen: none, it is the instrument, not the subject)'],
    ROWS.platform,
    ROWS.dryRun,
    ROWS.help,
  ],
  aliases: { '-i': '--instances' },
  positionals: 2,
  notes: [
    'Runs `cf scale APP -i N` (locally after `scripts/cfl up` and the cf login of push.sh; a',
    '--cpu quota first, as the process annotation cfscale.local/cpu-quota: `cf curl -X PATCH',
    '/v3/processes/GUID`), then waits until the v3 process stats show N instances RUNNING; an',
    'instance whose crash repeats ends the wait at once with its last error line (cf logs APP',
    '--recent). node-app or java-app without a CONTROL_TOKEN (a plain cf push) gets one first and',
    'is restarted (`cf curl -X PATCH /v3/apps/GUID/environment_variables -d @FILE`, then',
    '`cf curl -X POST /v3/apps/GUID/actions/restart`; docs/control-credential.md).',
    'Exit: 0 ok, 1 usage/configuration error.',
  ].join('\n'),
};

async function main() {
  enterRepository();
  const o = cli.parse(process.argv.slice(2), COMMAND);
  [o.app, o.second] = o._;
  if (o.second) cli.usageError(`one APP only, got "${o.app}" and "${o.second}"`);
  if (!o.app) cli.usageError(`APP is required (one of: ${knownApps().join(' ')})`);
  cli.requireKnownApp(o.app);
  if (o.instances === undefined) cli.usageError('-i N is required');
  o.instances = String(o.instances);
  if (o.cpu !== undefined) o.cpu = cli.cpuQuota(o.cpu);
  const p = await selectPlatform(cli, { platformOpt: o.platform, dryRun: o.dryRun });
  if (o.cpu !== undefined && p.name !== 'local') cli.usageError('--cpu is local only (on CF, CPU follows memory)');
  if (p.name === 'cf') await p.cfPreflight();
  else await localPlatformUp(p);
  const guid = await p.appGuid(o.app);
  if (!guid) cli.die(`${o.app} is not pushed: run scripts/push.sh ${o.app}`);
  const sinceMs = Date.now();
  const restart = await giveMissingControlToken(p, o.app, guid, 'restarting it');
  await scaleApp(p, o.app, o.instances, o.cpu, guid);
  if (restart) await appAction(p, guid, 'restart');
  await waitRunning(p, o.app, guid, o.instances, sinceMs);
}

main().catch((err) => process.exit(cliExitCode(err)));
