#!/usr/bin/env node
'use strict';
// collect-stats.js — scripts/collect-stats.sh: per-instance CPU and memory of an app into
// instance_stats, until SIGTERM/SIGINT. Help: the header of scripts/collect-stats.sh.
const fs = require('node:fs');
const { makeCli } = require('./cli');
const { selectPlatform } = require('./platform');
const { requireCollectorArgs, pipeUntilTerm } = require('./collect');

const cli = makeCli('collect-stats');
// v3 polling interval: CF refreshes the process stats about every 15 s
// (docs/cf-platform.md §1); ingest-stats.js drops the duplicates.
const DEFAULT_INTERVAL_SEC = '5';

function parseArgs(argv) {
  return cli.parseFlags(argv, {
    defaults: { app: '', round: '', db: '', source: 'auto', interval: DEFAULT_INTERVAL_SEC, platform: '', dryRun: process.env.DRY_RUN === '1' },
    values: { '--app': 'app', '--round': 'round', '--db': 'db', '--source': 'source', '--interval': 'interval', '--platform': 'platform' },
    switches: { '--dry-run': 'dryRun' },
    help: 'collect-stats.sh',
  });
}

/** The cf statistics plugin is installed: the cf CLI's plugin config (JSON) lists it. */
function pluginInstalled() {
  const config = `${process.env.CF_PLUGIN_HOME || process.env.HOME || ''}/.cf/plugins/config.json`;
  try {
    const plugins = JSON.parse(fs.readFileSync(config, 'utf8')).Plugins;
    return plugins !== null && typeof plugins === 'object' && !Array.isArray(plugins) && Object.hasOwn(plugins, 'Statistics');
  } catch {
    return false;
  }
}

async function main() {
  const o = parseArgs(process.argv.slice(2));
  requireCollectorArgs(cli, o);
  if (!['plugin', 'v3', 'auto'].includes(o.source)) {
    cli.usageError(`--source must be plugin, v3 or auto, got "${o.source}"`);
  }
  cli.requirePositiveInt(o.interval, '--interval');
  const p = selectPlatform(cli, { platformOpt: o.platform, dryRun: o.dryRun });
  let source = o.source;
  if (source === 'auto') source = p.name === 'local' || pluginInstalled() ? 'plugin' : 'v3';
  let argv = [...p.cf, 'statistics', o.app, '--debug', '--full'];
  if (source === 'v3') {
    const guid = p.appGuid(o.app);
    if (!guid) cli.die(`${o.app} is not pushed`);
    argv = [...p.cf, 'curl', `/v3/apps/${guid}/processes/web/stats`];
  }
  if (p.dryRun) {
    p.printCmd(argv);
    return;
  }
  const db = o.db || p.resultsDbUrl();
  const producer = source === 'v3' ? { argv, intervalMs: Number(o.interval) * 1000 } : { argv };
  process.exit(await pipeUntilTerm(producer, ['node', 'scripts/parsers/ingest-stats.js', '--db', db,
    '--round', o.round, '--app', o.app, '--platform', p.name]));
}

main();
