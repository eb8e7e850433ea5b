// run-suites.js — every suite of the repository (scripts/test.sh, which first installs what
// is missing with scripts/setup.sh unless --no-setup), a few side by side: each of --lanes
// lanes takes the next suite not yet started, the longest first, so that the last to end
// ends soon after the others. Most of a suite's time is spent waiting (platforms starting,
// rounds of a fixed length, the cf CLI polling), so lanes share the cores well; a suite's
// output is shown whole when it ends, and every suite's time at the end.
//
// Suites run against one shared PostgreSQL cluster started here (superuser URL in
// CFSCALE_TEST_PG_URL, cluster dir in CFSCALE_TEST_PG_DIR; it serves TLS too, its CA in
// CFSCALE_TEST_PG_DIR/tls/ca.crt); each suite creates its own databases in it. Tests that need
// a database outage start a cluster of their own with pg-cluster.js. The fixed port
// ranges of ports.json are reserved first (not handed out as ephemeral ports). Exit 0 only
// when every suite passed, 1 when one failed or on a usage error.
'use strict';

const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { spawn } = require('node:child_process');
const { parse, help, note } = require('../lib/arg-table');

const ROOT = path.resolve(__dirname, '..');
const PORTS = require('../ports.json');
const RESERVED_FILE = '/proc/sys/net/ipv4/ip_local_reserved_ports';
const pgCluster = require('../local-platform/lib/pg-cluster.js');

// [name, command, seconds it took in CI on the 2-core machine, nice]: the seconds only order the
// suites (longest first); not vendored code. Every suite has its own port range (ports.json),
// so any of them may run beside any other. Four lanes by default: with three, the two cores
// of that machine were busy only half of the run. The loadgen suite checks the instrument's
// own timing (open-model lateness, what a kill -9 loses): it runs at a higher CPU priority
// (LOADGEN_NICE), so that the rounds of the suites beside it do not starve it on two cores.
const LOADGEN_NICE = -5; // not root: nice says it cannot, and runs it at 0
const SUITES = [
  ['e2e', 'npm run test:e2e', 350],
  ['local-platform', 'cd local-platform && npm test', 350],
  ['system', 'npm run test:system', 320],
  ['contract', 'contract/run.sh', 250],
  ['loadgen', 'cd loadgen && npm test', 220, LOADGEN_NICE],
  ['experiment', 'node --test test/experiment.e2e.test.js', 210],
  ['scripts', 'cd scripts && npm test', 160],
  ['journey', 'npm run test:journey', 105],
  ['report', 'cd report && npm test', 100],
  ['bench', 'node --test test/benchmarks.smoke.js', 50],
  ['node-app', 'cd node-app && npm test', 45],
  ['chisel', 'chisel/test.sh', 40],
  ['java-app', 'cd java-app && mvn -q -B test', 38],
  ['lint', 'npm run lint && node --test test/static.lint.test.js', 26],
  ['plans', 'cd plans && npm test', 5],
  ['shellcheck', "git ls-files -z -- '*.sh' '.ci/run' ':(exclude)*/vendor/*' | xargs -0 shellcheck -S warning", 3],
];

// The parser, the defaults and --help in one (arg-table.js).
const OPTIONS = [
  ['--no-setup', 'noSetup', 'bool', false, 'do not run scripts/setup.sh first (scripts/test.sh reads it)'],
  ['--only NAME[,NAME...]', 'only', 'str', note('all'), 'run only these suites (see --list)'],
  ['--lanes N', 'lanes', 'int', 4, 'suites run side by side (each of them starts platforms, PostgreSQL and apps of its own)', [1, 16]],
  ['--list', 'list', 'bool', false, 'print the suites in order and exit'],
  ['--help', 'help', 'bool', '', 'this text'],
];
const ALIASES = { '-h': '--help' };

const log = (msg) => process.stderr.write(`test: ${msg}\n`);

/** The flags from OPTIONS, then the header comment's description (the one source of both). */
function usage() {
  const lines = fs.readFileSync(__filename, 'utf8').split('\n');
  const about = lines.slice(0, lines.findIndex((l) => !l.startsWith('//'))).map((l) => l.replace(/^\/\/ ?/, ''));
  return help('Usage: scripts/test.sh [--no-setup] [--only NAME[,NAME...]] [--lanes N] [--list]', '', OPTIONS, { aliases: ALIASES, notes: about.join('\n'), width: 100 });
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

// The suites running now, each the leader of its own process group.
const running = new Set();

/** Run one suite at that nice, its output into logFile; resolves whether it passed. */
function runSuite(cmd, logFile, nice = 0) {
  return new Promise((resolve) => {
    const out = fs.openSync(logFile, 'w');
    const child = spawn('nice', ['-n', String(nice), 'bash', '-c', `set -euo pipefail; ${cmd}`],
      { cwd: ROOT, stdio: ['ignore', out, out], detached: true });
    fs.closeSync(out);
    running.add(child);
    child.once('error', () => { running.delete(child); resolve(false); });
    child.once('close', (code) => { running.delete(child); resolve(code === 0); });
  });
}

/**
 * SIGTERM to every running suite's process group, so that a runner told to stop (Ctrl-C, a CI
 * timeout) leaves no suite running on: each suite is a group of its own, which a terminal's
 * SIGINT does not reach, and a SIGTERM to the runner alone would orphan them.
 */
function stopSuites() {
  for (const child of running) {
    try { process.kill(-child.pid, 'SIGTERM'); } catch { /* already gone */ }
  }
}

/** `lanes` at a time, each taking the next suite in the list when its last one ends; each suite's output whole on stdout when it ends. */
async function runLanes(suites, lanes, logDir) {
  const passed = [];
  const failed = [];
  const todo = [...suites];
  await Promise.all(Array.from({ length: Math.min(lanes, todo.length) }, async (_, lane) => {
    for (let s = todo.shift(); s !== undefined; s = todo.shift()) {
      const [name, cmd, , nice] = s;
      log(`=== ${name} (lane ${lane + 1}) started: ${cmd}`);
      const t0 = Date.now();
      const logFile = path.join(logDir, `${name}.log`);
      const ok = await runSuite(cmd, logFile, nice);
      const took = `${Math.round((Date.now() - t0) / 1000)}s`;
      process.stdout.write(`\n===== ${name} (${took}, ${ok ? 'passed' : 'FAILED'}) =====\n`);
      process.stdout.write(fs.readFileSync(logFile));
      if (ok) passed.push(`${name} (${took})`);
      else { failed.push(name); log(`FAILED: ${name} (${took})`); }
    }
  }));
  return { passed, failed };
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
  // A local platform a test starts must pin every port (local-platform/lib/config.js): the
  // user's own platform may be up on the defaults.
  process.env.CFSCALE_PIN_PORTS = '1';
  // The suites run side by side: a round's shield (cells.js) would move every other lane onto
  // the harness's CPUs while it measures. The cells test raises one on a group of its own.
  process.env.CFSCALE_SHIELD = 'off';
  const pgPort = process.env.CFSCALE_TEST_PG_PORT || '55433';
  process.env.CFSCALE_TEST_PG_DIR = process.env.CFSCALE_TEST_PG_DIR || '/tmp/cfscale-test-pg';
  process.env.CFSCALE_TEST_PG_URL = pgCluster.start(process.env.CFSCALE_TEST_PG_DIR, { port: pgPort, tls: true });
  log(`PostgreSQL test cluster on port ${pgPort} (${process.env.CFSCALE_TEST_PG_DIR})`);
  const stopPg = () => { try { pgCluster.stop(process.env.CFSCALE_TEST_PG_DIR); } catch { /* stopped */ } };
  for (const sig of ['SIGINT', 'SIGTERM']) process.once(sig, () => { stopSuites(); stopPg(); process.exit(1); });
  const t0 = Date.now();
  const logDir = fs.mkdtempSync(path.join(os.tmpdir(), 'cfscale-suites-'));
  let res;
  try {
    res = await runLanes(SUITES.filter(([name]) => !opts.only || opts.only.split(',').includes(name)), opts.lanes, logDir);
  } finally {
    stopPg();
    fs.rmSync(logDir, { recursive: true, force: true });
  }
  log(`passed: ${res.passed.join(' ') || 'none'}`);
  log(`wall time: ${Math.round((Date.now() - t0) / 1000)}s`);
  if (res.failed.length) { log(`FAILED: ${res.failed.join(' ')}`); return 1; }
  log('all suites passed');
  return 0;
}

if (require.main === module) main(process.argv.slice(2)).then((code) => { process.exitCode = code; });

module.exports = { SUITES, parseArgs, runSuite, stopSuites };
