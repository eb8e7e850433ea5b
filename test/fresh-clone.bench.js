#!/usr/bin/env node
'use strict';
// fresh-clone.bench.js — from a fresh clone to the README's first local round: `git clone`
// of this repository's HEAD into a temp dir, then the README's command as it stands
// (scripts/run-round.sh --app node-app --instances 2 --loadgens 2 --parallel 8 --duration
// 10s), which installs what the clone lacks (scripts/setup.sh: npm packages, the java-app
// jar, the cf CLI the local platform is driven with), starts the platform, logs the cf CLI
// in, creates the services, pushes and runs the round. The target: at most 5 minutes.
// Package caches (npm, Maven, Go modules) are the machine's, warm after any earlier setup:
// the figure is a clone's own work, not downloads. Run on demand, under the heavy lock:
//   node test/fresh-clone.bench.js
// Own CFSCALE_HOME and ports 466xx; the clone and its platform are removed afterwards.
const fs = require('node:fs');
const path = require('node:path');
const { spawnSync } = require('node:child_process');
const { platformPortEnv } = require('../lib/ports');

const ROOT = path.resolve(__dirname, '..');
const dir = fs.mkdtempSync('/tmp/cfscale-fresh-clone-');
fs.chmodSync(dir, 0o755); // PostgreSQL runs as postgres when we are root
const clone = path.join(dir, 'cfscale');
const env = {
  ...process.env, PLATFORM: 'local', CFSCALE_HOME: path.join(dir, 'platform'),
  ...platformPortEnv('fresh-clone'),
};
const ROUND = ['--app', 'node-app', '--instances', '2', '--loadgens', '2', '--parallel', '8', '--duration', '10s'];

function timed(what, cmd, args, opts) {
  const t0 = process.hrtime.bigint();
  const r = spawnSync(cmd, args, { encoding: 'utf8', env, ...opts });
  const sec = Number(process.hrtime.bigint() - t0) / 1e9;
  if (r.status !== 0) {
    process.stderr.write(`fresh-clone: ${what} exit ${r.status}\n${(r.stdout || '').slice(-2000)}${(r.stderr || '').slice(-3000)}\n`);
    process.exitCode = 2;
  }
  console.log(`${what}: ${sec.toFixed(1)} s`);
  return sec;
}

try {
  const cloneSec = timed('git clone', 'git', ['clone', '-q', '--no-hardlinks', ROOT, clone]);
  const roundSec = timed('first round (README: setup, platform, cf login, services, pushes, the 10 s round)',
    path.join(clone, 'scripts/run-round.sh'), ROUND, { cwd: clone });
  const total = cloneSec + roundSec;
  console.log(`fresh clone to the first round's end: ${total.toFixed(1)} s (target <= 300 s); load average ${fs.readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ')}`);
} finally {
  spawnSync(path.join(clone, 'scripts/teardown.sh'), ['--platform', 'local'], { env, stdio: 'ignore' });
  fs.rmSync(dir, { recursive: true, force: true });
}
