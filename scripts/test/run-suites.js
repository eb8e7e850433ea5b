// run-suites.js — every suite of the repository, one after another (scripts/test.sh, which
// first installs what is missing with scripts/setup.sh unless --no-setup).
//
// Suites run against one shared PostgreSQL cluster started here (superuser URL in
// CFSCALE_TEST_PG_URL, cluster dir in CFSCALE_TEST_PG_DIR; it serves TLS too, its CA in
// CFSCALE_TEST_PG_DIR/tls/ca.crt); each suite creates its own databases in it. Tests that need
// a database outage start a cluster of their own with scripts/pg-cluster.sh. The fixed port
// ranges of ports.json are reserved first (not handed out as ephemeral ports). Exit 0 only
// when every suite passed, 1 when one failed or on a usage error.
'use strict';

const fs = require('node:fs');
const path = require('node:path');
const { spawn, execFileSync } = require('node:child_process');
const { parse, help, note } = require('../ops/arg-table');

const ROOT = path.resolve(__dirname, '..', '..');
const PORTS = require('../../ports.json');
const RESERVED_FILE = '/proc/sys/net/ipv4/ip_local_reserved_ports';
const PG_CLUSTER = path.join(ROOT, 'scripts', 'pg-cluster.sh');

// [name, command]: in the order they run (cheap and fundamental first); not vendored code.
const SUITES = [
  ['shellcheck', "git ls-files -z -- '*.sh' '.ci/run' ':(exclude)*/vendor/*' | xargs -0 shellcheck -S warning"],
  ['lint', 'npm run lint'],
  ['node-app', 'cd node-app && npm test'],
  ['java-app', 'cd java-app && mvn -q -B test'],
  ['contract', 'contract/run.sh'],
  ['loadgen', 'cd loadgen && npm test'],
  ['local-platform', 'cd local-platform && npm test'],
  ['scripts', 'cd scripts && npm test'],
  ['chisel', 'chisel/test.sh'],
  ['e2e', 'cd scripts && npm run test:e2e'],
  ['report', 'cd report && npm test'],
];

// The parser, the defaults and --help in one (arg-table.js).
const OPTIONS = [
  ['--no-setup', 'noSetup', 'bool', false, 'do not run scripts/setup.sh first (scripts/test.sh reads it)'],
  ['--only NAME[,NAME...]', 'only', 'str', note('all'), 'run only these suites (see --list)'],
  ['--list', 'list', 'bool', false, 'print the suites in order and exit'],
  ['--help', 'help', 'bool', '', 'this text'],
];
const ALIASES = { '-h': '--help' };

const log = (msg) => process.stderr.write(`test: ${msg}\n`);

/** The flags from OPTIONS, then the header comment's description (the one source of both). */
function usage() {
  const lines = fs.readFileSync(__filename, 'utf8').split('\n');
  const about = lines.slice(0, lines.findIndex((l) => !l.startsWith('//'))).map((l) => l.replace(/^\/\/ ?/, ''));
  return help('Usage: scripts/test.sh [--no-setup] [--only NAME[,NAME...]] [--list]', '', OPTIONS, { aliases: ALIASES, notes: about.join('\n'), width: 100 });
}

function parseArgs(argv) {
  const opts = parse(argv, OPTIONS, { aliases: ALIASES });
  if (opts.only) {
    const unknown = opts.only.split(',').filter((n) => !SUITES.some(([name]) => name === n));
    if (unknown.length) throw new Error(`unknown suite: ${unknown.join(', ')} (see --list)`);
  }
  return opts;
}

function reservePorts() {
  try {
    fs.writeFileSync(RESERVED_FILE, PORTS.reserved);
    log(`reserved ports ${PORTS.reserved} (not handed out as ephemeral ports)`);
  } catch {
    log(`cannot reserve ports ${PORTS.reserved}: a fixed port may now and then be taken`);
  }
}

function runSuite(cmd) {
  return new Promise((resolve) => {
    const child = spawn('bash', ['-c', `set -euo pipefail; ${cmd}`], { cwd: ROOT, stdio: 'inherit' });
    child.once('error', () => resolve(false));
    child.once('close', (code) => resolve(code === 0));
  });
}

async function main(argv) {
  let opts;
  try {
    opts = parseArgs(argv);
  } catch (e) {
    log(e.message);
    return 1;
  }
  if (opts.help) { process.stdout.write(usage()); return 0; }
  if (opts.list) { process.stdout.write(`${SUITES.map(([name]) => name).join('\n')}\n`); return 0; }
  reservePorts();
  const pgPort = process.env.CFSCALE_TEST_PG_PORT || '55433';
  process.env.CFSCALE_TEST_PG_DIR = process.env.CFSCALE_TEST_PG_DIR || '/tmp/cfscale-test-pg';
  process.env.CFSCALE_TEST_PG_URL = execFileSync(PG_CLUSTER, ['start', '--dir', process.env.CFSCALE_TEST_PG_DIR, '--port', pgPort, '--tls'],
    { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] }).trim();
  log(`PostgreSQL test cluster on port ${pgPort} (${process.env.CFSCALE_TEST_PG_DIR})`);
  const stopPg = () => { try { execFileSync(PG_CLUSTER, ['stop', '--dir', process.env.CFSCALE_TEST_PG_DIR], { stdio: 'inherit' }); } catch { /* stopped */ } };
  for (const sig of ['SIGINT', 'SIGTERM']) process.once(sig, () => { stopPg(); process.exit(1); });
  const passed = [];
  const failed = [];
  try {
    for (const [name, cmd] of SUITES) {
      if (opts.only && !opts.only.split(',').includes(name)) continue;
      log(`=== ${name}: ${cmd}`);
      const t0 = Date.now();
      const ok = await runSuite(cmd);
      const took = `${Math.round((Date.now() - t0) / 1000)}s`;
      if (ok) passed.push(`${name} (${took})`);
      else { failed.push(name); log(`FAILED: ${name} (${took})`); }
    }
  } finally {
    stopPg();
  }
  log(`passed: ${passed.join(' ') || 'none'}`);
  if (failed.length) { log(`FAILED: ${failed.join(' ')}`); return 1; }
  log('all suites passed');
  return 0;
}

if (require.main === module) main(process.argv.slice(2)).then((code) => { process.exitCode = code; });

module.exports = { SUITES, parseArgs };
