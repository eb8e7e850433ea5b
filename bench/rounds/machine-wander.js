#!/usr/bin/env node
'use strict';
// machine-wander.js — how steady this machine is for the work an app does, with nothing else
// running and no network: fixed JavaScript loops pinned to one CPU, work done per second, its CV
// and the CV of 10 s block means (bench/rounds/machine-wander.sh; COMMAND is its help and its
// flags). Arithmetic alone measures the CPU; short-lived allocations measure V8's young
// generation, which every request of a Node.js app goes through. When the allocating loop wanders
// as the rounds do and the arithmetic one does not, a round's scatter is this machine's, not the
// harness's (bench/rounds/README.md, "Not the machine: the quota's scatter at 0.1 core").
const { spawnSync } = require('node:child_process');
const { parseCommand, CliError, cliExitCode } = require('../../lib/arg-table');
const { mean, stddev } = require('../../lib/inference');
const { blockCv, pct } = require('./block-cv');

const WARMUP_S = 2; // the JIT compiles the loop in its first second

const COMMAND = {
  usage: 'Usage: bench/rounds/machine-wander.sh [--cpu 1] [--seconds 40] [--loops arith,alloc,alloc16]',
  about: 'Work per second of fixed JavaScript loops pinned to one CPU (no I/O, no quota): per-second CV and the CV '
    + 'of 10 s block means, beside what independent seconds would give.',
  rows: [
    ['--cpu C', 'cpu', 'int', 1, 'the CPU the loops run on (taskset), one loop at a time', [0]],
    ['--seconds S', 'seconds', 'int', 40, `seconds measured per loop, after ${WARMUP_S} s`, [10]],
    ['--loops L,..', 'loops', 'str', 'arith,alloc,alloc16', 'arith: integer arithmetic; alloc: a short-lived object a '
      + "step, V8's default young generation; alloc16: the same with 16 MiB semi-spaces"],
    ['--series', 'series', 'bool', false, "after the table, each loop's work of every second over its mean: a step that holds for "
      + "seconds is a change of the machine's speed, not noise"],
    ['--smoke', 'smoke', 'bool', false, 'check that it can run here (flags, taskset) and say what it would measure; measure nothing (CI runs this)'],
  ],
  notes: 'Heavy for its CPU: run it under the shared lock (flock /tmp/cfscale-heavy.lock ...), on a quiet machine. On '
    + 'demand only, not in CI. Exit 0 ok, 1 usage, 2 a step failed.',
  width: 100,
};

// Each object escapes into a ring (one that never escapes is not allocated at all), and acc stays
// a small integer: an accumulator that outgrows V8's small integers deoptimises the loop some
// 12 s in, a step in speed that is the JIT's, not the machine's.
const ALLOC = "const a = { x: n, y: [n, n + 1], z: 'k' + (n & 7) }; ring[n & 1023] = a; acc = (acc + a.y.length) & 0xffff;";
const LOOPS = {
  arith: { flags: [], step: 'for (let j = 0; j < 200; j++) acc = (acc * 31 + j) | 0;' },
  alloc: { flags: [], step: ALLOC },
  alloc16: { flags: ['--min-semi-space-size=16', '--max-semi-space-size=16'], step: ALLOC },
};

/** The child: the step in a loop, the steps of each second, as one JSON line. */
const child = (step, seconds) => `const ring = new Array(1024).fill(null); let acc = 0, n = 0; const out = []; let end = Date.now() + 1000;
for (;;) { for (let i = 0; i < 100; i++) { ${step} n++; }
  if (Date.now() >= end) { out.push(n); n = 0; end += 1000; if (out.length >= ${WARMUP_S + seconds}) break; } }
console.log(JSON.stringify({ perSecond: out.slice(${WARMUP_S}), acc }));`;

function main() {
  let o;
  try { o = parseCommand('machine-wander', process.argv.slice(2), COMMAND); } catch (e) {
    if (e instanceof CliError) process.exit(cliExitCode(e));
    throw e;
  }
  const loops = o.loops.split(',');
  const unknown = loops.filter((l) => !LOOPS[l]);
  if (unknown.length) { process.stderr.write(`machine-wander: --loops: unknown ${unknown.join(', ')} (known: ${Object.keys(LOOPS).join(', ')})\n`); process.exit(1); }
  const what = `${loops.join(', ')} on CPU ${o.cpu}, ${o.seconds} s each`;
  if (o.smoke) {
    if (spawnSync('taskset', ['-V']).error) { process.stderr.write('machine-wander: taskset missing\n'); process.exit(2); }
    process.stdout.write(`machine-wander: smoke: would run ${what}\n`);
    return;
  }
  process.stdout.write(`machine-wander: ${what}\n\n| loop | steps/s | per second | 10 s blocks (independent) |\n|---|---|---|---|\n`);
  const series = [];
  for (const name of loops) {
    const { flags, step } = LOOPS[name];
    const r = spawnSync('taskset', ['-c', String(o.cpu), process.execPath, ...flags, '-e', child(step, o.seconds)], { encoding: 'utf8', timeout: (o.seconds + 30) * 1000 });
    if (r.status !== 0) { process.stderr.write(`machine-wander: ${name} failed (${r.status ?? r.signal}): ${(r.stderr || '').trim().split('\n').pop()}\n`); process.exit(2); }
    const { perSecond } = JSON.parse(r.stdout.trim().split('\n').pop());
    const m = mean(perSecond);
    const cv = stddev(perSecond) / m;
    process.stdout.write(`| ${name} | ${m.toFixed(0)} | ${pct(cv)} | ${pct(blockCv(perSecond, 10))} (${pct(cv / Math.sqrt(10))}) |\n`);
    series.push(`${name}: ${perSecond.map((v) => (v / m).toFixed(2)).join(' ')}`);
  }
  if (o.series) process.stdout.write(`\nper second / mean:\n${series.join('\n')}\n`);
}

main();
