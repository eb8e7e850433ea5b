'use strict';
// stats-source.js — where an app's per-instance stats come from, and how often a new sample
// can be expected: the one place for collect-stats.js (what it runs) and round.js (what
// a round records and the expectation its summary and report check against).
//
// API:
//   resolveStatsSource(p, source) → 'plugin' | 'v3' (p: ops Platform). auto: v3 (on both
//     platforms: the local one answers CC's v3 stats). The cf statistics plugin calls only
//     v2 endpoints, off by default on current foundations (docs/cf-platform.md §1): it is an
//     explicit choice, and when the cf CLI's plugin config does not list it, p.cli.die.
//   statsIntervalSec(platform, source, pollSec) → seconds between new samples: the longer
//     of the poll interval and how often the platform refreshes the figures.
//   pluginConfigPath(env) → the cf CLI's plugins/config.json; pluginInstalled(env) → boolean
//   defaultIntervalSec(platform) → the v3 poll interval (a string, as a flag value);
//   PLUGIN_POLL_SEC
const fs = require('node:fs');
const path = require('node:path');

/** Diego rep's container_metrics_report_interval default (stats-parser.js §1 Freshness). */
const ENVELOPE_INTERVAL_SEC = 15;

// v3 polling interval: CF refreshes the process stats only every ~15 s (docs/cf-platform.md
// §1, §2) and ingest-stats.js drops the repeats, so polling faster adds nothing there. The
// local platform refreshes them every second (CFSCALE_STATS_INTERVAL_MS), and one `cf curl`
// costs it about 30 ms of CPU: polled every second, as the plugin would.
const DEFAULT_INTERVAL_SEC = { cf: '5', local: '1' };
// The statistics plugin polls once a second (§1).
const PLUGIN_POLL_SEC = 1;

/**
 * The cf CLI keeps its plugin config in $CF_PLUGIN_HOME/.cf/plugins, else in
 * $CF_HOME/.cf/plugins, else in $HOME/.cf/plugins (docs/cf-platform.md §1).
 */
function pluginConfigPath(env = process.env) {
  return path.join(env.CF_PLUGIN_HOME || env.CF_HOME || env.HOME || '', '.cf', 'plugins', 'config.json');
}

/** The cf statistics plugin is installed: the cf CLI's plugin config lists "Statistics". */
function pluginInstalled(env = process.env) {
  try {
    const plugins = JSON.parse(fs.readFileSync(pluginConfigPath(env), 'utf8')).Plugins;
    return plugins !== null && typeof plugins === 'object' && !Array.isArray(plugins)
      && Object.keys(plugins).some((name) => name.toLowerCase() === 'statistics');
  } catch {
    return false;
  }
}

function resolveStatsSource(p, source) {
  if (source === 'auto') return 'v3';
  if (source === 'plugin' && !pluginInstalled()) {
    p.cli.die(`the cf statistics plugin is not installed (not in ${pluginConfigPath()}): `
      + 'install it, or use the v3 stats (--source v3, the default on CF)');
  }
  return source;
}

/**
 * Seconds between new samples of one instance. CF: the cells send container metrics every
 * 15 s (§1), repeats are dropped. Locally the daemon samples every CFSCALE_STATS_INTERVAL_MS
 * (its default, 1 s, is never slower than a poll).
 */
function defaultIntervalSec(platform) {
  return DEFAULT_INTERVAL_SEC[platform];
}

function statsIntervalSec(platform, source, pollSec = Number(defaultIntervalSec(platform))) {
  const poll = source === 'plugin' ? PLUGIN_POLL_SEC : Number(pollSec);
  const refresh = platform === 'cf' ? ENVELOPE_INTERVAL_SEC : Number(process.env.CFSCALE_STATS_INTERVAL_MS || 0) / 1000;
  return Math.max(poll, refresh);
}

module.exports = {
  resolveStatsSource, statsIntervalSec, defaultIntervalSec, pluginConfigPath, pluginInstalled, PLUGIN_POLL_SEC, ENVELOPE_INTERVAL_SEC,
};
