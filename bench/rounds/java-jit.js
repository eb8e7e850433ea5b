#!/usr/bin/env node
'use strict';
// java-jit.js — what a JVM under a small CPU quota spends besides requests (bench/rounds/java-jit.sh;
// COMMAND is its help and its flags). java-app ×1 is restarted S times; each start is prewarmed
// without the quota (as run-round's --prewarm), given the quota live, settled under it, then
// measured: its throughput, and from jstat the JIT's work (methods compiled, compile time) and
// the collector's (young and full collections, their time) inside the measured window.
const fs = require('node:fs');
const path = require('node:path');
const { spawnSync } = require('node:child_process');

const ROOT = path.resolve(__dirname, '../..');
const { platformPortEnv } = require('../../lib/ports');
const { parseCommand, cliExitCode } = require('../../lib/arg-table');
const { smokeCheck } = require('./smoke');
const { mustRun } = require('./must-run');
const { mean, stddev: sd } = require('../../lib/inference');

const COMMAND = {
  usage: 'Usage: bench/rounds/java-jit.sh [--cpu 0.2] [--starts 5] [--prewarm 20000] [--settle 15] [--window 30] [--parallel 16]',
  about: 'java-app x1 restarted S times, each start prewarmed without the quota, then measured under it: throughput, '
    + 'and the JIT\'s and the collector\'s work inside the window (jstat), side by side per start.',
  rows: [
    ['--cpu C', 'cpu', 'str', '0.2', 'the quota, cores, applied live after the prewarm'],
    ['--starts S', 'starts', 'int', 5, 'JVM starts (cf restart), one measurement each', [2]],
    ['--prewarm N', 'prewarm', 'int', 20000, 'requests without the quota after each start', [0]],
    ['--settle S', 'settle', 'int', 15, 'seconds of load under the quota before the window', [0]],
    ['--window S', 'window', 'int', 30, 'seconds measured', [1]],
    ['--parallel N', 'parallel', 'int', 16, 'requests in flight (one loadgen)', [1]],
    ['--smoke', 'smoke', 'bool', false, 'check that it can run here and say what it would measure; measure nothing (CI runs this)'],
  ],
  notes: `A local platform of its own (CFSCALE_HOME /tmp/cfscale-bench-jit-*, ports \`repeatability\` of
ports.json), torn down at the end. jstat's compile time is the compiler threads' wall time: under a
quota it includes their throttled waits. Heavy: run it under the shared lock (flock
/tmp/cfscale-heavy.lock ...). On demand only. Exit 0 ok, 1 usage, 2 a step failed.`,
  width: 100,
};

const sh = (env, cmd, args, what) => mustRun('java-jit', what, cmd, args, env);

/** jstat's last line as { column: number } (-gc or -compiler). */
function jstat(env, option, pid) {
  const [head, row] = sh(env, 'jstat', [option, String(pid)], `jstat ${option}`).trim().split('\n').slice(-2).map((l) => l.trim().split(/\s+/));
  return Object.fromEntries(head.map((h, i) => [h, Number(row[i])]));
}

function pearson(xs, ys) {
  const mx = mean(xs);
  const my = mean(ys);
  const cov = xs.reduce((a, x, i) => a + (x - mx) * (ys[i] - my), 0) / (xs.length - 1);
  return cov / (sd(xs) * sd(ys));
}

function main() {
  const o = parseCommand('java-jit', process.argv.slice(2), COMMAND);
  if (o.smoke) process.exit(smokeCheck('java-jit', `${o.starts} starts of java-app at ${o.cpu} core, ${o.window} s measured each`));
  const home = fs.mkdtempSync('/tmp/cfscale-bench-jit-');
  const env = { ...process.env, PLATFORM: 'local', CFSCALE_HOME: home, CF_HOME: path.join(home, 'cf-home'), ...platformPortEnv('repeatability') };
  const script = (name, ...args) => sh(env, path.join(ROOT, 'scripts', name), args, `scripts/${name} ${args.join(' ')}`);
  const rows = [];
  try {
    script('push.sh', 'java-app', '-i', '1');
    const url = script('cfl', 'router-url').trim();
    const loadgen = (...args) => sh(env, 'node', [path.join(ROOT, 'loadgen/bin/loadgen.js'), '--url', url, '--host', 'java-app.localhost',
      '--scenario', 'read', '--seed', '1000', '--no-progress', '--max-error-rate', '0', ...args], 'the loadgen');
    loadgen('--seed-only');
    console.log('start   req/s   compiled  compile s   young GCs  full GCs   GC ms');
    for (let s = 1; s <= o.starts; s++) {
      sh(env, path.join(ROOT, '.tools/bin/cf'), ['restart', 'java-app'], 'cf restart java-app');
      script('scale.sh', 'java-app', '-i', '1', '--cpu', 'none');
      if (o.prewarm > 0) loadgen('--requests', String(o.prewarm), '--parallel', '8');
      script('scale.sh', 'java-app', '-i', '1', '--cpu', o.cpu);
      const pid = Number(sh(env, 'pgrep', ['-n', '-f', 'java-app.jar'], 'pgrep java-app.jar').trim());
      if (o.settle > 0) loadgen('--parallel', String(o.parallel), '--duration', `${o.settle}s`);
      const [gc0, jit0] = [jstat(env, '-gc', pid), jstat(env, '-compiler', pid)];
      const res = JSON.parse(loadgen('--parallel', String(o.parallel), '--duration', `${o.window}s`, '--json'));
      const [gc1, jit1] = [jstat(env, '-gc', pid), jstat(env, '-compiler', pid)];
      const r = { rps: res.requests.ok_per_sec, compiled: jit1.Compiled - jit0.Compiled, compileS: jit1.Time - jit0.Time,
        ygc: gc1.YGC - gc0.YGC, fgc: gc1.FGC - gc0.FGC, gcMs: 1000 * (gc1.GCT - gc0.GCT) };
      rows.push(r);
      console.log(`${String(s).padStart(5)} ${r.rps.toFixed(0).padStart(7)} ${String(r.compiled).padStart(10)} ${r.compileS.toFixed(1).padStart(10)}`
        + ` ${String(r.ygc).padStart(11)} ${String(r.fgc).padStart(9)} ${r.gcMs.toFixed(0).padStart(7)}`);
    }
  } finally {
    spawnSync(path.join(ROOT, 'scripts/cfl'), ['down'], { env, stdio: 'ignore' });
    fs.rmSync(home, { recursive: true, force: true });
  }
  const rps = rows.map((r) => r.rps);
  console.log(`\nreq/s mean ${mean(rps).toFixed(0)}, CV ${(100 * sd(rps) / mean(rps)).toFixed(1)} %; `
    + `correlation of req/s with compile time in the window ${pearson(rps, rows.map((r) => r.compileS)).toFixed(2)}, `
    + `with GC time ${pearson(rps, rows.map((r) => r.gcMs)).toFixed(2)}`);
}

try { main(); } catch (err) { process.exit(cliExitCode(err)); }
