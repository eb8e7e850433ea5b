#!/usr/bin/env node
'use strict';
// collect-stats.js — scripts/collect-stats.sh: per-instance CPU and memory of an app into
// instance_stats, until SIGTERM/SIGINT. COMMAND is its help and its flags.
//
// The statistics plugin exits on its first error and after 15 s without data
// (docs/cf-platform.md §1): when it ends by itself, the v3 stats are polled instead for the
// rest of the run.
const { makeCli, ROWS } = require('./cli');
const { note, cliExitCode } = require('../../lib/arg-table');
const { enterRepository, selectPlatform } = require('./target');
const { requireCollectorArgs, ingestFrom } = require('./collect');
const { resolveStatsSource, defaultIntervalSec } = require('./stats-source');

const cli = makeCli('collect-stats');

const COMMAND = {
  usage: 'Usage: scripts/collect-stats.sh --app APP --round ID [--source v3|plugin|auto] [--interval SEC] [--guid GUID]\n'
    + '         [--platform local|cf] [--dry-run]',
  about: 'Per-instance CPU and memory of an app into instance_stats, until killed.',
  rows: [
    ['--app APP', 'app', 'str', note('(required)'), 'the app to watch'],
    ['--guid GUID', 'guid', 'str', note('`cf app APP --guid`'), "the app's guid for the v3 stats "
      + '(run-round.sh passes the one it has, a placeholder under --dry-run)'],
    ['--round ID', 'round', 'str', note('(required)'), 'the round the samples belong to'],
    ['--source S', 'source', 'str', 'auto', 'v3: `cf curl /v3/apps/GUID/processes/web/stats` every --interval seconds; '
      + 'plugin: `cf statistics APP --debug --full` (the swisscom statistics plugin, one poll per second; it calls only '
      + 'v2 endpoints, off on current foundations, docs/cf-platform.md §1, so on CF it must be chosen and installed: '
      + "listed in the cf CLI's plugin config, ${CF_PLUGIN_HOME:-${CF_HOME:-$HOME}}/.cf/plugins/config.json; when it "
      + 'ends by itself the v3 stats are polled instead); auto: v3', ['plugin', 'v3', 'auto']],
    ['--interval SEC', 'interval', 'int', note('5 on CF, 1 locally'), 'v3 polling interval in seconds (CF refreshes '
      + 'about every 15 s, docs/cf-platform.md §1, repeats are dropped; locally the figures are refreshed every second)', [1]],
    ROWS.platform,
    ['--dry-run', 'dryRun', 'bool', ROWS.dryRun[3], 'print the platform command, run nothing'],
    ROWS.help,
    ROWS.resultsDb,
  ],
  notes: `The samples are piped into scripts/parsers/ingest-stats.js. SIGTERM or SIGINT stops the
platform command; what was read is flushed and the script exits 0 (2 when rows could not
be written). The cf CLI is the client on both platforms (locally logged in by push.sh).`,
};

/** The producer of the stats: the v3 poll, or the plugin with the v3 poll to take over. */
async function producerOf(p, o, source) {
  const intervalSec = Number(o.interval);
  // Looked up once: the guid stays the app's while it is not deleted.
  const guid = o.guid || await p.appGuid(o.app);
  const v3 = () => (guid ? { argv: [...p.cf, 'curl', `/v3/apps/${guid}/processes/web/stats`], intervalMs: intervalSec * 1000 } : null);
  if (source === 'v3') return v3() || cli.die(`${o.app} is not pushed`);
  return {
    argv: [...p.cf, 'statistics', o.app, '--debug', '--full'],
    next: (code) => {
      const poll = v3();
      cli.log(`cf statistics ended by itself (exit ${code}): `
        + (poll ? `polling the v3 stats every ${intervalSec} s instead` : `${o.app} is not pushed, no more stats`));
      return poll;
    },
  };
}

async function main() {
  enterRepository();
  const o = cli.parse(process.argv.slice(2), COMMAND);
  requireCollectorArgs(cli, o);
  const p = await selectPlatform(cli, { platformOpt: o.platform, dryRun: o.dryRun });
  o.interval ||= defaultIntervalSec(p.name);
  const producer = await producerOf(p, o, resolveStatsSource(p, o.source));
  const code = await ingestFrom(p, o, producer, 'ingest-stats.js');
  if (code !== undefined) process.exit(code);
}

main().catch((err) => process.exit(cliExitCode(err)));
