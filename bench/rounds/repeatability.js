#!/usr/bin/env node
'use strict';
// repeatability.js — does the instrument read the same twice? (bench/rounds/repeatability.sh;
// COMMAND is its help and its flags). R identical rounds back to back per instance count, in two ways
// interleaved round by round: `fixed` (a guessed --warmup and --prewarm, no steady-state
// gate) and `gate` (the gate decides where the window starts); or a prewarm under the CPU
// quota (`prewarm-quota`) against one without it (`prewarm-free`, run-round's own).
// Prints every round's throughput and p99 (with the load average), then per instance count
// and way the mean and the coefficient of variation (CV = sd / mean) of both. A settle round
// before each instance count is run and shown but not counted: it is the first after a
// change (scripts/round/README.md).
const fs = require('node:fs');
const path = require('node:path');
const os = require('node:os');
const { spawnSync } = require('node:child_process');

const ROOT = path.resolve(__dirname, '../..');
const { platformPortEnv } = require('../../lib/ports');
const { parseCommand, cliExitCode } = require('../../lib/arg-table');
const { smokeCheck } = require('./smoke');
const { mustRun: mustRunStep } = require('./must-run');
const { mean, stddev } = require('../../lib/inference');
// Each way's run-round flags; prewarm-quota also prewarms the app itself, under its quota, before the round.
const WAYS = {
  fixed: () => ['--warmup', '2s', '--prewarm', '200'],
  gate: () => [],
  'prewarm-quota': () => ['--prewarm', '0'],
  'prewarm-free': (o) => ['--prewarm', String(o.prewarm)],
};

function die(msg, code = 2) {
  process.stderr.write(`repeatability: ${msg}\n`);
  process.exit(code);
}

// The parser, the defaults and --help in one (arg-table.js); the load flags go to run-round.sh as given.
const COMMAND = {
  usage: 'Usage: bench/rounds/repeatability.sh [--app node-app] [--cpu 0.1] [--instances 1,2] [--rounds 5] [--loadgens 1]\n'
    + '         [--parallel 16] [--duration 10s] [--ways fixed,gate] [--prewarm 5000] [--restart] [-- RUN-ROUND-FLAGS...]',
  about: 'Identical local rounds back to back: their throughput and p99, with the coefficient of variation per '
    + 'instance count, with a guessed warm-up (`fixed`: --warmup 2s --prewarm 200) and with the steady-state gate '
    + '(`gate`), or with the prewarm under the quota and without it (`prewarm-quota`, `prewarm-free`), interleaved round by round.',
  rows: [
    ['--app A', 'app', 'str', 'node-app', 'the app'],
    ['--cpu C', 'cpu', 'str', '0.1', "per-instance CPU quota, cores ('' = the platform's)"],
    ['--instances K,..', 'instances', 'str', '1,2', 'instance counts, one block each'],
    ['--rounds R', 'rounds', 'int', 5, 'counted rounds per instance count and way (a CV needs two)', [2]],
    ['--loadgens N', 'loadgens', 'str', '1', 'the loadgens of every round'],
    ['--parallel N', 'parallel', 'str', '16', 'requests in flight per loadgen'],
    ['--duration D', 'duration', 'str', '10s', 'the length of every round'],
    ['--ways W,..', 'ways', 'str', 'fixed,gate', 'of fixed, gate, prewarm-quota (the bench sends --prewarm requests per '
      + 'instance through the route, under the quota, then the round) and prewarm-free (run-round --prewarm: locally '
      + 'without the quota, applied live after it)'],
    ['--prewarm N', 'prewarm', 'int', 5000, 'requests per instance of the prewarm ways', [1]],
    ['--restart', 'restart', 'bool', false, 'cf restart the app before every round (a plan\'s restart: round): a cold process each time'],
    ['--smoke', 'smoke', 'bool', false, 'check that it can run here (its flags, its code, the tools it needs) and say what it would measure; measure nothing (CI runs this)'],
  ],
  rest: 'extra',
  notes: `-- FLAGS: passed to every run-round.sh, e.g. -- --steady-window 5s.
Each instance count starts with a settle round (shown, not counted: the first round after a
change). A local platform of its own (CFSCALE_HOME /tmp/cfscale-bench-repeat-*, ports
\`repeatability\` of ports.json), torn down at the end. Heavy: run it under the shared lock (flock
/tmp/cfscale-heavy.lock ...). On demand only, not in CI. Read the CVs of one run side by
side, not absolute rates: the machine is shared. Exit 0 ok, 1 usage, 2 a round failed.`,
  width: 100,
};

function parseArgs(argv) {
  const o = parseCommand('repeatability', argv, COMMAND);
  o.extra ||= [];
  o.instances = o.instances.split(',').map(Number);
  o.ways = o.ways.split(',');
  if (o.instances.some((k) => !(k >= 1))) die('--instances must be counts >= 1', 1);
  for (const w of o.ways) if (!WAYS[w]) die(`--ways: ${w} is not one of ${Object.keys(WAYS).join(', ')}`, 1);
  return o;
}

const CF = path.join(ROOT, '.tools/bin/cf');

const mustRun = (what, cmd, args, env) => mustRunStep('repeatability', what, cmd, args, env);

/** Before a round: the restart (--restart), and way prewarm-quota's prewarm (round-robin over k instances, the quota in force). */
function beforeRound(o, k, way, env) {
  if (o.restart) mustRun(`cf restart ${o.app}`, CF, ['restart', o.app], env);
  if (way !== 'prewarm-quota') return;
  const url = mustRun('cfl router-url', path.join(ROOT, 'scripts/cfl'), ['router-url'], env).trim();
  mustRun('the prewarm', 'node', [path.join(ROOT, 'loadgen/bin/loadgen.js'), '--url', url, '--host', `${o.app}.localhost`,
    '--requests', String(o.prewarm * k), '--parallel', '8', '--no-progress', '--max-error-rate', '0', '--scenario', 'read', '--seed', '1000'], env);
}

/** One round through run-round.sh: its figures parsed from the summary it prints. */
function round(o, k, way, label, env) {
  if (way !== 'settle') beforeRound(o, k, way, env);
  const args = ['--app', o.app, '--instances', String(k), '--loadgens', o.loadgens, '--parallel', o.parallel,
    '--duration', o.duration, '--label', label, ...(o.cpu ? ['--cpu', o.cpu] : []), ...WAYS[way === 'settle' ? o.ways[0] : way](o), ...o.extra];
  const load = os.loadavg()[0];
  const r = spawnSync(path.join(ROOT, 'scripts/run-round.sh'), args, { env, encoding: 'utf8', maxBuffer: 64 << 20 });
  const out = r.stdout || '';
  const num = (re) => { const m = re.exec(out); return m ? Number(m[1]) : null; };
  const res = {
    k, way, label, load, code: r.status, id: num(/^round_id=(\d+)$/m),
    rps: num(/^throughput: ([0-9.]+) req\/s$/m), p99: num(/^latency: .* p99 ([0-9.]+) ms/m),
    from: num(/^measured window: from ([0-9.]+) s/m),
    steady: /steady after/.test(out) ? 'steady' : /NOT steady/.test(out) ? 'NOT steady' : '-',
  };
  if (r.status !== 0) process.stderr.write(`${label}: run-round exit ${r.status}\n${(r.stderr || '').slice(-1500)}\n`);
  return res;
}

const cv = (xs) => stddev(xs) / mean(xs);
const f = (x, d = 1) => (x === null || x === undefined || !Number.isFinite(x) ? '-' : x.toFixed(d));

function line(r, note = '') {
  return `${r.label.padEnd(30)} ${String(r.id ?? '-').padStart(5)} ${f(r.rps).padStart(9)} ${f(r.p99, 2).padStart(9)} `
    + `${(r.from === null ? '-' : `${f(r.from)} s`).padStart(9)} ${r.steady.padEnd(10)} ${f(r.load, 2).padStart(5)} ${note}`;
}

function main() {
  const o = parseArgs(process.argv.slice(2));
  if (o.smoke) process.exit(smokeCheck('repeatability', `${o.rounds} rounds per way (${o.ways.join(', ')}) at ${o.instances.join(', ')} instance(s) of ${o.app}`));
  const home = fs.mkdtempSync('/tmp/cfscale-bench-repeat-');
  fs.mkdirSync(path.join(home, 'tmp'));
  const env = { ...process.env, PLATFORM: 'local', CFSCALE_HOME: home, TMPDIR: path.join(home, 'tmp'),
    CF_HOME: path.join(home, 'cf-home'), ...platformPortEnv('repeatability') };
  const all = [];
  try {
    console.log(`${'round'.padEnd(30)} ${'id'.padStart(5)} ${'req/s'.padStart(9)} ${'p99 ms'.padStart(9)} ${'window'.padStart(9)} ${'gate'.padEnd(10)} ${'load'.padStart(5)}`);
    for (const k of o.instances) {
      // The first round after the change of instance count: run, shown, not counted.
      console.log(line(round(o, k, 'settle', `repeat:i${k}:settle`, env), '(settle: first after a change, not counted)'));
      for (let rep = 1; rep <= o.rounds; rep++) {
        const ways = rep % 2 ? o.ways : [...o.ways].reverse();
        for (const way of ways) {
          const r = round(o, k, way, `repeat:i${k}:${way}:${rep}`, env);
          all.push(r);
          console.log(line(r));
        }
      }
    }
  } finally {
    spawnSync(path.join(ROOT, 'scripts/teardown.sh'), [], { env, stdio: 'ignore' });
    fs.rmSync(home, { recursive: true, force: true });
  }
  console.log('\ninstances  way     n   req/s mean   CV       p99 ms mean   CV');
  for (const k of o.instances) {
    for (const way of o.ways) {
      const rs = all.filter((r) => r.k === k && r.way === way && r.code === 0 && r.rps !== null);
      if (rs.length < 2) { console.log(`${String(k).padEnd(10)} ${way.padEnd(6)} ${rs.length}   (too few rounds)`); continue; }
      const x = rs.map((r) => r.rps);
      const p = rs.map((r) => r.p99);
      console.log(`${String(k).padEnd(10)} ${way.padEnd(6)} ${String(rs.length).padStart(2)} ${f(mean(x)).padStart(12)} ${`${f(100 * cv(x))} %`.padStart(8)}`
        + ` ${f(mean(p), 2).padStart(13)} ${`${f(100 * cv(p))} %`.padStart(8)}`);
    }
  }
  console.log('(goal: CV <= 5 % for throughput, <= 10 % for p99; figures depend on the machine and what else runs on it)');
  if (all.some((r) => r.code !== 0)) process.exit(2);
}

try { main(); } catch (err) { process.exit(cliExitCode(err)); }
