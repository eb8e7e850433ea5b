#!/usr/bin/env node
'use strict';
// round-overhead.bench.js — how long run-round.sh takes beyond the round itself, on the
// local platform with everything already up, through the scripts' one path (the real cf
// CLI against the local Cloud Controller; the target: at most 8 s beyond the
// round's duration). Run on demand, not in tests:
//   node test/round-overhead.bench.js [--rounds 3] [--duration 10]
// Own CFSCALE_HOME (/tmp/cfscale-e2e-bench-*), ports 466xx; tears the platform down.
const fs = require('node:fs');
const path = require('node:path');
const { spawnSync } = require('node:child_process');
const { makeCli } = require('../scripts/ops/cli');
const { cliExitCode } = require('../lib/arg-table');
const { platformPortEnv } = require('../lib/ports');

const ROOT = path.resolve(__dirname, '..');
const COMMAND = {
  usage: 'Usage: node test/round-overhead.bench.js [--rounds N] [--duration SEC]',
  about: 'How long run-round.sh takes beyond the round itself, on the local platform with everything already up.',
  rows: [
    ['--rounds N', 'rounds', 'int', 3, 'measured rounds (after a first one that brings everything up)', [1]],
    ['--duration SEC', 'duration', 'int', 10, 'seconds per measured round', [1]],
    ['--smoke', 'smoke', 'bool', false, 'check that it can run here (its flags, its code, the tools it needs) and say what it would measure; measure nothing (CI runs this)'],
    ['--help', 'help', 'bool', '', 'this help'],
  ],
};
let args;
try {
  args = makeCli('round-overhead').parse(process.argv.slice(2), COMMAND);
} catch (err) {
  process.exit(cliExitCode(err));
}
if (args.smoke) {
  if (!fs.existsSync(path.join(ROOT, 'scripts/run-round.sh')) || !fs.existsSync(path.join(ROOT, '.tools/bin/cf'))) {
    console.error('round-overhead: scripts/run-round.sh or .tools/bin/cf missing: run scripts/setup.sh');
    process.exit(1);
  }
  console.log(`round-overhead: smoke: would time ${args.rounds} rounds of ${args.duration} s after a first one`);
  process.exit(0);
}
const home = fs.mkdtempSync('/tmp/cfscale-e2e-bench-');
fs.mkdirSync(path.join(home, 'tmp'));
const env = {
  ...process.env, PLATFORM: 'local', CFSCALE_HOME: home, TMPDIR: path.join(home, 'tmp'),
  ...platformPortEnv('round-overhead'),
};

function round(durationSec) {
  const t0 = process.hrtime.bigint();
  const r = spawnSync(path.join(ROOT, 'scripts/run-round.sh'), ['--app', 'node-app', '--instances', '2',
    '--loadgens', '2', '--parallel', '4', '--duration', `${durationSec}s`, '--warmup', '0s', '--seed-ads', '100'], { env, encoding: 'utf8' });
  const sec = Number(process.hrtime.bigint() - t0) / 1e9;
  if (r.status !== 0) process.stderr.write(`round-overhead: run-round exit ${r.status}\n${r.stdout}${r.stderr.slice(-2000)}\n`);
  return sec;
}

try {
  const first = round(2);
  console.log(`first round (platform up, pushes, seeding), 2 s round: ${first.toFixed(1)} s`);
  const walls = [];
  for (let i = 0; i < args.rounds; i++) walls.push(round(args.duration));
  for (const w of walls) {
    console.log(`${args.duration} s round: ${w.toFixed(1)} s from launch to exit, overhead ${(w - args.duration).toFixed(1)} s`);
  }
  const worst = Math.max(...walls);
  console.log(`worst overhead ${(worst - args.duration).toFixed(1)} s (target: <= 8 s beyond the duration); load average ${fs.readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ')}`);
} finally {
  spawnSync(path.join(ROOT, 'scripts/teardown.sh'), [], { env, stdio: 'ignore' });
  fs.rmSync(home, { recursive: true, force: true });
}
