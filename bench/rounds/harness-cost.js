#!/usr/bin/env node
'use strict';
// harness-cost.js — what the harness spends per request in a round's measured window, this
// checkout against another (bench/rounds/harness-cost.sh; COMMAND is its help and its flags).
// The same open-model round (a fixed rate, so both do the same work) on a local platform of each
// checkout's own, interleaved round by round; from each round's host CPU line (host-cpu.js):
// the platform daemon, run-round with its collectors, the loadgens, the results database and the
// router, in µs of CPU per request. Prints each round, then per part the medians and their ratio.
const fs = require('node:fs');
const path = require('node:path');
const { spawnSync } = require('node:child_process');

const ROOT = path.resolve(__dirname, '../..');
const { platformPortEnv } = require('../../lib/ports');
const { parseCommand, REQUIRED, CliError, cliExitCode } = require('../../lib/arg-table');
const { smokeCheck } = require('./smoke');

const PARTS = [['daemon', /platform daemon ([0-9.]+)/], ['control', /run-round and collectors ([0-9.]+)/],
  ['loadgens', /loadgens ([0-9.]+)/], ['results_db', /results database ([0-9.]+)/], ['router', /\brouter ([0-9.]+)/]];
const PORTS_PER_PLATFORM = 100;

const COMMAND = {
  usage: 'Usage: bench/rounds/harness-cost.sh --other DIR [--rate 1500] [--rounds 3] [--duration 20s]',
  about: 'The harness\'s CPU per request in the measured window of the same open-model round, this checkout against '
    + 'another one (DIR: a clone or worktree with its own setup done), interleaved.',
  rows: [
    ['--other DIR', 'other', 'str', REQUIRED, 'the other checkout (e.g. git worktree add /tmp/base REV && /tmp/base/scripts/setup.sh)'],
    ['--rate R', 'rate', 'int', 1500, 'requests per second of the one loadgen (open model)', [1]],
    ['--rounds N', 'rounds', 'int', 3, 'rounds per checkout', [1]],
    ['--duration D', 'duration', 'str', '20s', 'the measured window of every round'],
    ['--smoke', 'smoke', 'bool', false, 'check that it can run here and say what it would measure; measure nothing (CI runs this)'],
  ],
  notes: `Each checkout gets a platform of its own (CFSCALE_HOME /tmp/cfscale-bench-harness-*, ports \`cells\` of
ports.json), with no cells (CFSCALE_SUT_CPUS=off: both measure the same placement), torn down at the end.
Heavy: run it under the shared lock (flock /tmp/cfscale-heavy.lock ...). On demand only, not in CI.`,
  width: 100,
};

/** One round of a checkout: µs of CPU per request of each part, from its summary. */
function round(dir, o, env) {
  const args = ['--app', 'node-app', '--instances', '2', '--loadgens', '1', '--rate', String(o.rate), '--parallel', '32',
    '--duration', o.duration, '--warmup', '5s', '--cpu', '0.3'];
  const r = spawnSync(path.join(dir, 'scripts/run-round.sh'), args, { env, encoding: 'utf8', maxBuffer: 64 << 20 });
  const out = r.stdout || '';
  const line = (/^host CPU over the round: .*$/m.exec(out) || [''])[0];
  const rps = Number((/^throughput: ([0-9.]+) req\/s$/m.exec(out) || [])[1]);
  if (r.status !== 0 || !line || !(rps > 0)) {
    process.stderr.write(`${dir}: run-round exit ${r.status}\n${(r.stderr || '').slice(-800)}\n`);
    return null;
  }
  return Object.fromEntries(PARTS.map(([name, re]) => [name, (1e6 * Number((re.exec(line) || [])[1])) / rps]));
}

const median = (xs) => { const s = [...xs].sort((a, b) => a - b); return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2; };

function main() {
  const o = parseCommand('harness-cost', process.argv.slice(2), COMMAND);
  if (o.smoke) process.exit(smokeCheck('harness-cost', `${o.rounds} open-model round(s) at ${o.rate} req/s per checkout, this one and ${o.other}`));
  const sides = [ROOT, path.resolve(o.other)].map((dir, i) => {
    const home = fs.mkdtempSync('/tmp/cfscale-bench-harness-');
    return { dir, home, runs: [], env: { ...process.env, PLATFORM: 'local', CFSCALE_HOME: home, CFSCALE_SUT_CPUS: 'off', ...platformPortEnv('cells', i * PORTS_PER_PLATFORM) } };
  });
  try {
    for (let n = 1; n <= o.rounds; n++) {
      for (const s of n % 2 ? sides : [...sides].reverse()) {
        const r = round(s.dir, o, s.env);
        if (r) s.runs.push(r);
        console.log(`${path.basename(s.dir).padEnd(12)} round ${n}: ${r ? PARTS.map(([p]) => `${p} ${r[p].toFixed(1)}`).join(', ') : 'failed'} µs/request`);
      }
    }
  } finally {
    for (const s of sides) {
      spawnSync(path.join(s.dir, 'scripts/cfl'), ['down'], { env: s.env, stdio: 'ignore' });
      fs.rmSync(s.home, { recursive: true, force: true });
    }
  }
  console.log(`\npart        ${path.basename(sides[0].dir).padStart(12)} ${path.basename(sides[1].dir).padStart(12)}   ratio (µs of CPU per request, medians)`);
  for (const [p] of PARTS) {
    const [a, b] = sides.map((s) => (s.runs.length ? median(s.runs.map((r) => r[p])) : NaN));
    console.log(`${p.padEnd(11)} ${a.toFixed(1).padStart(12)} ${b.toFixed(1).padStart(12)}   ${(a / b).toFixed(2)}`);
  }
  if (sides.some((s) => s.runs.length < o.rounds)) process.exit(2);
}

try {
  main();
} catch (e) {
  if (!(e instanceof CliError)) throw e;
  process.exit(cliExitCode(e));
}
