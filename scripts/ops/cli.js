'use strict';
// cli.js — the command-line side every cfscale Node script shares: messages prefixed with the
// script's name, usage errors, the flags parsed from the command's table (arg-table.js: the
// one source of its parsing, defaults and --help), the rows several commands share, and the
// checks of values a table cannot express (CPU quotas, known apps).
//
// API:
//   makeCli(name) → { name, log(msg), die(msg), usageError(msg), parse(argv, command),
//     cpuQuota(value), requireKnownApp(app), knownApps() }
//     log → stderr `NAME: msg`; die throws CliError `NAME: msg`, exit 1; usageError throws
//     CliError `NAME: msg (see --help)`, exit 1 (one line: the full help is --help). The
//     command's entry point prints it and exits (arg-table.js cliExitCode).
//     parse: command = { usage, about, rows, aliases, positionals, notes }; --help throws
//     CliError with the help (exit 0); a bad flag is a usageError.
//   ROWS: the rows of --platform, --dry-run, --help and RESULTS_DATABASE_URL.
//   parseDurationMs(s) → ms or null (500ms, 10s, 2m, 1h; bare = s).
//   MANIFEST_DIR (CFSCALE_MANIFEST_DIR, default manifests/, relative to the repository root).
const fs = require('node:fs');
const path = require('node:path');
const { parseCommand, note, parseDuration, CliError } = require('../../lib/arg-table');
const { parseCpuQuota, CpuQuotaError } = require('../../lib/cpu-quota');

const ROOT = path.resolve(__dirname, '../..');
const MANIFEST_DIR = process.env.CFSCALE_MANIFEST_DIR || 'manifests';
const HELP_WIDTH = 100;

// Rows several commands share (arg-table.js).
const ROWS = {
  platform: ['--platform P', 'platform', 'str', note('PLATFORM, else cf when `cf target` succeeds and /v3/info does not name the local platform, else local'), 'local | cf',
    ['local', 'cf']],
  dryRun: ['--dry-run', 'dryRun', 'bool', process.env.DRY_RUN === '1', 'print each command, shell-quoted, one per line; run none (also DRY_RUN=1)'],
  help: ['--help', 'help', 'bool', '', 'this help'],
  // A URL with its password: read from the environment only, never a flag (arg-table.js).
  resultsDb: ['RESULTS_DATABASE_URL URL', 'db', 'str', note("local: the credentials of results-db's service key "
    + '(run-round.sh passes them); cf: from scripts/tunnel.sh'), 'results database'],
};

/** A human duration in milliseconds, or null when malformed. */
function parseDurationMs(value) {
  const ms = parseDuration(value);
  return Number.isNaN(ms) ? null : ms;
}

/** The apps of the harness: every manifests/*.yml but the vars files. */
function knownApps(dir = MANIFEST_DIR) {
  let names = [];
  try {
    names = fs.readdirSync(path.resolve(ROOT, dir)).filter((f) => f.endsWith('.yml')).map((f) => f.slice(0, -4));
  } catch {
    // no manifest directory: no apps
  }
  return names.filter((n) => !n.startsWith('vars')).sort();
}

function makeCli(name) {
  const log = (msg) => { process.stderr.write(`${name}: ${msg}\n`); };
  const die = (msg) => { throw new CliError(`${name}: ${msg}`, 1); };
  const usageError = (msg) => { throw new CliError(`${name}: ${msg} (see --help)`, 1); };
  return {
    name,
    log,
    die,
    usageError,
    /** argv by the command's table (cli.js header); throws CliError on --help and on a bad flag. */
    parse(argv, command) {
      return parseCommand(name, argv, { width: HELP_WIDTH, ...command });
    },
    /** --cpu as its one typed value (lib/cpu-quota.js): a number of cores or CPU_NONE; else a usage error. */
    cpuQuota(value) {
      try {
        return parseCpuQuota(value);
      } catch (err) {
        if (err instanceof CpuQuotaError) return usageError(`--cpu ${err.message}`);
        throw err;
      }
    },
    /** An app of the harness: it has a manifest MANIFEST_DIR/APP.yml. */
    requireKnownApp(app) {
      const ok = /^[a-z][a-z0-9-]*$/.test(app) && !app.startsWith('vars')
        && fs.existsSync(path.resolve(ROOT, MANIFEST_DIR, `${app}.yml`));
      if (!ok) usageError(`unknown app "${app}" (known: ${knownApps().join(' ')})`);
    },
    knownApps,
  };
}

module.exports = { makeCli, parseDurationMs, knownApps, ROWS, ROOT, MANIFEST_DIR };
