#!/usr/bin/env node
'use strict';
// collect-stats.js — scripts/collect-stats.sh: per-instance CPU and memory of an app into
// instance_stats, until SIGTERM/SIGINT. Help: the header of scripts/collect-stats.sh.
//
// The statistics plugin exits on its first error and after 15 s without data
// (docs/cf-platform.md §1): when it ends by itself, the v3 stats are polled instead for the
// rest of the run.
const { makeCli } = require('./cli');
const { selectPlatform } = require('./target');
const { requireCollectorArgs, pipeUntilTerm } = require('./collect');
const { resolveStatsSource, defaultIntervalSec } = require('./stats-source');

const cli = makeCli('collect-stats');

function parseArgs(argv) {
  return cli.parseFlags(argv, {
    defaults: { app: '', guid: '', round: '', db: '', source: 'auto', interval: '', platform: '', dryRun: process.env.DRY_RUN === '1' },
    values: {
      '--app': 'app', '--guid': 'guid', '--round': 'round', '--db': 'db', '--source': 'source', '--interval': 'interval', '--platform': 'platform',
    },
    switches: { '--dry-run': 'dryRun' },
    help: 'collect-stats.sh',
  });
}

/** The producer of the stats: the v3 poll, or the plugin with the v3 poll to take over. */
function producerOf(p, o, source) {
  const intervalSec = Number(o.interval);
  const v3 = () => {
    const guid = o.guid || p.appGuid(o.app);
    return guid ? { argv: [...p.cf, 'curl', `/v3/apps/${guid}/processes/web/stats`], intervalMs: intervalSec * 1000 } : null;
  };
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
  const o = parseArgs(process.argv.slice(2));
  requireCollectorArgs(cli, o);
  if (!['plugin', 'v3', 'auto'].includes(o.source)) {
    cli.usageError(`--source must be plugin, v3 or auto, got "${o.source}"`);
  }
  if (o.interval) cli.requirePositiveInt(o.interval, '--interval');
  const p = selectPlatform(cli, { platformOpt: o.platform, dryRun: o.dryRun });
  o.interval ||= defaultIntervalSec(p.name);
  const producer = producerOf(p, o, resolveStatsSource(p, o.source));
  if (p.dryRun) {
    p.printCmd(producer.argv);
    return;
  }
  const db = o.db || p.resultsDbUrl();
  process.exit(await pipeUntilTerm(producer, ['node', 'scripts/parsers/ingest-stats.js', '--db', db,
    '--round', o.round, '--app', o.app, '--platform', p.name]));
}

main();
