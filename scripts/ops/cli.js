'use strict';
// cli.js — the command-line side every cfscale Node script shares: messages prefixed with the
// script's name, usage errors, help from a wrapper's header comment, and the checks of
// flag values (durations, positive integers, CPU quotas, known apps).
//
// API:
//   makeCli(name) → { name, log(msg), die(msg), usageError(msg), requireValue(flag, argv, i),
//     parseFlags(argv, spec), durationMs(value, flag), requirePositiveInt(value, flag),
//     requireCpu(value), requireKnownApp(app), knownApps() }
//     log → stderr `NAME: msg`; die → the same, exit 1; usageError → `NAME: msg (see --help)`,
//     exit 1 (one line: the full help is --help).
//   usageFromHeader(file) → the header comment of a bash wrapper (line 2 up to `set -euo`),
//     `# ` stripped: the one source of a script's help.
//   isPositiveNumber(s), parseDurationMs(s) → ms or null (500ms, 10s, 2m, 1h; bare = s).
//   MANIFEST_DIR (CFSCALE_MANIFEST_DIR, default manifests/, relative to the repository root).
const fs = require('node:fs');
const path = require('node:path');

const ROOT = path.resolve(__dirname, '../..');
const MANIFEST_DIR = process.env.CFSCALE_MANIFEST_DIR || 'manifests';
const DURATION = /^([0-9]+(\.[0-9]+)?)(ms|s|m|h)?$/;
const UNIT_MS = { ms: 1, s: 1000, m: 60000, h: 3600000 };

/** A human duration in milliseconds (truncated, as awk's %d did), or null when malformed. */
function parseDurationMs(value) {
  const m = DURATION.exec(value);
  if (!m) return null;
  return Math.trunc(Number(m[1]) * UNIT_MS[m[3] || 's']);
}

/** A positive decimal number (10, 0.5; not 0, not 1e3). */
function isPositiveNumber(s) {
  return /^[0-9]+(\.[0-9]+)?$/.test(s) && !/^0+(\.0+)?$/.test(s);
}

/** The header comment of a script (from line 2 to `set -euo`), comment marks stripped. */
function usageFromHeader(file) {
  const lines = fs.readFileSync(file, 'utf8').split('\n');
  const out = [];
  for (const line of lines.slice(1)) {
    if (/^set -euo/.test(line)) break;
    out.push(line.replace(/^# ?/, ''));
  }
  return `${out.join('\n')}\n`;
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
  const die = (msg) => { log(msg); process.exit(1); };
  const usageError = (msg) => { process.stderr.write(`${name}: ${msg} (see --help)\n`); process.exit(1); };
  return {
    name,
    log,
    die,
    usageError,
    /** A flag at argv[i] has a value after it. */
    requireValue(flag, argv, i) {
      if (i + 1 >= argv.length) usageError(`${flag} needs a value`);
    },
    /**
     * argv read the way every script reads it: spec.values maps each flag that takes a value
     * to its key in the result ("FLAG needs a value" without one), spec.switches each flag
     * without one to its key (set to true); -h/--help prints the header of spec.help (the
     * wrapper, e.g. 'push.sh') and exits 0; an argument without a leading "-" goes to
     * spec.positional(arg, o) when there is one; anything else is "unknown option: ARG".
     * The result starts as a copy of spec.defaults.
     */
    parseFlags(argv, { defaults = {}, values = {}, switches = {}, help, positional = null }) {
      const o = { ...defaults };
      for (let i = 0; i < argv.length; i++) {
        const a = argv[i];
        if (Object.hasOwn(values, a)) {
          this.requireValue(a, argv, i);
          o[values[a]] = argv[++i];
        } else if (Object.hasOwn(switches, a)) {
          o[switches[a]] = true;
        } else if (a === '-h' || a === '--help') {
          process.stdout.write(usageFromHeader(path.join(ROOT, 'scripts', help)));
          process.exit(0);
        } else if (positional && !a.startsWith('-')) {
          positional(a, o);
        } else {
          usageError(`unknown option: ${a}`);
        }
      }
      return o;
    },
    durationMs(value, flag) {
      const ms = parseDurationMs(value);
      if (ms === null) usageError(`${flag} must be a duration like 500ms, 10s, 2m or 1h, got "${value}"`);
      return ms;
    },
    requirePositiveInt(value, flag) {
      if (!/^[1-9][0-9]*$/.test(value)) usageError(`${flag} must be a positive integer, got "${value}"`);
    },
    /** A local CPU quota: a positive number of cores, or none. */
    requireCpu(value) {
      if (value !== 'none' && !isPositiveNumber(value)) {
        usageError(`--cpu must be a positive number of cores or none, got "${value}"`);
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

module.exports = { makeCli, usageFromHeader, isPositiveNumber, parseDurationMs, knownApps, ROOT, MANIFEST_DIR };
