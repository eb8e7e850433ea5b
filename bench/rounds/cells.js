#!/usr/bin/env node
'use strict';
// cells.js — does giving the system under test CPUs of its own make rounds repeat? (bench/rounds/cells.sh;
// COMMAND is its help and its flags). The steady-state procedure (a settle round at one instance
// count, then R identical rounds right after the scale change), N runs per configuration, the
// configurations interleaved run by run, each a local platform of its own started with its
// settings: `off` (no cells: everything shares every CPU), `sut` (cells, the app's database
// beside the app), `harness` (cells, the app's database beside the results database).
// Prints each round (throughput, the per-second CV inside its window, how busy each cell's
// CPUs were) and per run the rounds' CV; then per configuration how many runs kept it <= --goal.
const fs = require('node:fs');
const path = require('node:path');
const { spawnSync } = require('node:child_process');

const ROOT = path.resolve(__dirname, '../..');
const { platformPortEnv } = require('../../lib/ports');
const { parseCommand, cliExitCode } = require('../../lib/arg-table');
const { smokeCheck } = require('./smoke');
const { mean, stddev } = require('../../lib/inference');

// A configuration: the settings of its platform's daemon.
const CONFIGS = {
  off: { CFSCALE_SUT_CPUS: 'off' },
  sut: { CFSCALE_SUT_CPUS: '', CFSCALE_APP_DB_CELL: 'sut' },
  harness: { CFSCALE_SUT_CPUS: '', CFSCALE_APP_DB_CELL: 'harness' },
};
const PORTS_PER_PLATFORM = 100;

const COMMAND = {
  usage: 'Usage: bench/rounds/cells.sh [--configs off,sut,harness] [--runs 3] [--rounds 4] [--instances 2] [--cpu 0.1]\n'
    + '         [--parallel 16] [--duration 10s] [--period-us N] [-- RUN-ROUND-FLAGS...]',
  about: 'The steady-state procedure (a settle round at --settle-instances, then --rounds identical rounds at --instances) '
    + 'on a platform per configuration, runs interleaved: how often the rounds\' throughput CV stays within --goal, '
    + 'with cells and without.',
  rows: [
    ['--configs C,..', 'configs', 'str', 'off,sut,harness', `configurations, each a platform of its own: ${Object.keys(CONFIGS).join(', ')}; `
      + 'C@US: that one with CFSCALE_CPU_PERIOD_US=US (sut@20000)'],
    ['--runs N', 'runs', 'int', 3, 'runs of the procedure per configuration', [1]],
    ['--rounds R', 'rounds', 'int', 4, 'counted rounds per run (a CV needs two)', [2]],
    ['--app A', 'app', 'str', 'node-app', 'the app'],
    ['--settle-instances K', 'settle', 'int', 1, 'the instance count of the settle round (the scale change)', [1]],
    ['--instances K', 'instances', 'int', 2, 'the instance count of the counted rounds', [1]],
    ['--cpu C', 'cpu', 'str', '0.1', "per-instance CPU quota, cores ('' = the platform's)"],
    ['--parallel N', 'parallel', 'str', '16', 'requests in flight of the one loadgen'],
    ['--duration D', 'duration', 'str', '10s', 'the measured window of every counted round'],
    ['--period-us N', 'periodUs', 'str', '', 'CFSCALE_CPU_PERIOD_US of every platform (\'\' = its default)'],
    ['--goal PCT', 'goal', 'num', 5, 'the CV a run must stay within, %', [0]],
    ['--smoke', 'smoke', 'bool', false, 'check that it can run here and say what it would measure; measure nothing (CI runs this)'],
  ],
  rest: 'extra',
  notes: `-- FLAGS: passed to every run-round.sh. A platform per configuration (CFSCALE_HOME
/tmp/cfscale-bench-cells-*, ports \`cells\` of ports.json, ${PORTS_PER_PLATFORM} each), torn down at the end.
Heavy: run it under the shared lock (flock /tmp/cfscale-heavy.lock ...). On demand only, not in CI.
Exit 0 ok, 1 usage, 2 a round failed.`,
  width: 100,
};

function parseArgs(argv) {
  const o = parseCommand('cells', argv, COMMAND);
  o.extra ||= [];
  o.configs = o.configs.split(',');
  const bad = o.configs.filter((c) => { const [name, us] = c.split('@'); return !CONFIGS[name] || (us !== undefined && !/^\d+$/.test(us)); });
  if (o.configs.length > 3) { process.stderr.write(`cells: at most 3 configurations (the ports of ports.json's range cells)\n`); process.exit(1); }
  if (bad.length) { process.stderr.write(`cells: --configs: ${bad.join(', ')} not one of ${Object.keys(CONFIGS).join(', ')}\n`); process.exit(1); }
  return o;
}

/** One round through run-round.sh: its figures parsed from the summary it prints. */
function round(o, k, parallel, duration, label, env) {
  const args = ['--app', o.app, '--instances', String(k), '--loadgens', '1', '--parallel', parallel,
    '--duration', duration, '--label', label, ...(o.cpu ? ['--cpu', o.cpu] : []), ...o.extra];
  const r = spawnSync(path.join(ROOT, 'scripts/run-round.sh'), args, { env, encoding: 'utf8', maxBuffer: 64 << 20 });
  const out = r.stdout || '';
  const num = (re) => { const m = re.exec(out); return m ? Number(m[1]) : null; };
  if (r.status !== 0) process.stderr.write(`${label}: run-round exit ${r.status}\n${(r.stderr || '').slice(-1500)}\n`);
  return {
    code: r.status, id: num(/^round_id=(\d+)$/m), rps: num(/^throughput: ([0-9.]+) req\/s$/m),
    p99: num(/^latency: .* p99 ([0-9.]+) ms/m), secondCv: num(/per second in it: CV ([0-9.]+) %/),
    sutBusy: num(/system under test's CPU \S+ (\d+) % busy/), harnessBusy: num(/harness's CPU \S+ (\d+) % busy/),
    hostBusy: num(/^host CPU over the round: ([0-9.]+) cores busy/m),
  };
}

const cv = (xs) => stddev(xs) / mean(xs);
const median = (xs) => { const s = [...xs].sort((a, b) => a - b); return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2; };
const f = (x, d = 1) => (x === null || x === undefined || !Number.isFinite(x) ? '-' : x.toFixed(d));

/** One run of the procedure on a configuration's platform: the counted rounds, and their CV. */
function run(o, config, n, env) {
  round(o, o.settle, '4', '2s', `cells:${config}:${n}:settle`, env);
  const rs = [];
  for (let i = 1; i <= o.rounds; i++) {
    const r = round(o, o.instances, o.parallel, o.duration, `cells:${config}:${n}:${i}`, env);
    rs.push(r);
    console.log(`${config.padEnd(8)} run ${n} round ${i}: ${f(r.rps).padStart(8)} req/s, p99 ${f(r.p99, 2)} ms, per-second CV ${f(r.secondCv)} %, `
      + `SUT CPUs ${f(r.sutBusy, 0)} % busy, harness CPUs ${f(r.harnessBusy, 0)} % busy, host ${f(r.hostBusy, 2)} cores (round ${r.id ?? '-'})`);
  }
  const xs = rs.filter((r) => r.code === 0 && r.rps !== null).map((r) => r.rps);
  const c = xs.length >= 2 ? 100 * cv(xs) : null;
  console.log(`${config.padEnd(8)} run ${n}: throughput CV ${f(c)} % ${c !== null && c <= o.goal ? 'pass' : 'FAIL'}`);
  return { config, cv: c, rounds: rs };
}

function main() {
  const o = parseArgs(process.argv.slice(2));
  if (o.smoke) process.exit(smokeCheck('cells', `${o.runs} run(s) of the steady-state procedure per configuration (${o.configs.join(', ')})`));
  const platforms = o.configs.map((config, i) => {
    const [name, periodUs = o.periodUs] = config.split('@');
    const home = fs.mkdtempSync(`/tmp/cfscale-bench-cells-${name}-`);
    fs.mkdirSync(path.join(home, 'tmp'));
    return { config, home, env: { ...process.env, PLATFORM: 'local', CFSCALE_HOME: home, TMPDIR: path.join(home, 'tmp'),
      ...platformPortEnv('cells', i * PORTS_PER_PLATFORM), ...CONFIGS[name], ...(periodUs ? { CFSCALE_CPU_PERIOD_US: periodUs } : {}) } };
  });
  const runs = [];
  try {
    for (let n = 1; n <= o.runs; n++) {
      const order = n % 2 ? platforms : [...platforms].reverse();
      for (const pf of order) runs.push(run(o, pf.config, n, pf.env));
    }
  } finally {
    for (const pf of platforms) {
      spawnSync(path.join(ROOT, 'scripts/teardown.sh'), [], { env: pf.env, stdio: 'ignore' });
      spawnSync(path.join(ROOT, 'scripts/cfl'), ['down'], { env: pf.env, stdio: 'ignore' });
      fs.rmSync(pf.home, { recursive: true, force: true });
    }
  }
  console.log(`\nconfig    runs  pass (CV <= ${o.goal} %)  median CV   req/s mean   per-second CV median   SUT busy   harness busy`);
  for (const config of o.configs) {
    const rs = runs.filter((r) => r.config === config);
    const cvs = rs.map((r) => r.cv).filter((x) => x !== null);
    const rounds = rs.flatMap((r) => r.rounds).filter((r) => r.code === 0);
    const pick = (k) => rounds.map((r) => r[k]).filter((x) => x !== null);
    console.log(`${config.padEnd(9)} ${String(rs.length).padStart(4)}  ${String(cvs.filter((c) => c <= o.goal).length).padStart(4)} of ${rs.length}`
      + `${`${f(cvs.length ? median(cvs) : null)} %`.padStart(18)} ${f(pick('rps').length ? mean(pick('rps')) : null).padStart(12)}`
      + `${`${f(pick('secondCv').length ? median(pick('secondCv')) : null)} %`.padStart(23)}`
      + `${`${f(pick('sutBusy').length ? median(pick('sutBusy')) : null, 0)} %`.padStart(11)}${`${f(pick('harnessBusy').length ? median(pick('harnessBusy')) : null, 0)} %`.padStart(15)}`);
  }
  if (runs.some((r) => r.rounds.some((x) => x.code !== 0))) process.exit(2);
}

try { main(); } catch (err) { process.exit(cliExitCode(err)); }
