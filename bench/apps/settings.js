// settings.js — one app under several settings, side by side in one run: req/s of
// GET /ads/{id} and the app's CPU time per request (all its processes; steadier than req/s
// on a busy machine), each as a ratio to the first setting (bench/apps/settings.sh).
//
// Like throughput.js: a PostgreSQL cluster of its own, fresh databases with 1000 ads for
// each start, the app pinned to CPU 0, the project's loadgen CLI (--scenario read) pinned to
// CPU 1. Each repetition starts every setting anew, in turn. On demand only (not in CI).
// Exit 0 ok, 1 usage/setup error, 2 a measurement failed (errors, or the app died).
'use strict';

const path = require('node:path');
const { execFile } = require('node:child_process');
const { parseCommand, note } = require('../../lib/arg-table');
const { Bench, UsageError, headerOf, runMain, cpuTicks, median, variant, ROOT, LOAD_CPU, SEED_ADS, CLK_TCK } = require('./lib');

const LOADGEN = path.join(ROOT, 'loadgen', 'bin', 'loadgen.js');
const DEFAULT_SETTINGS = {
  'node-app': ['raw|node-raw|', 'raw, timings off|node-raw|TIMINGS_ENABLED=false', 'express|node-express|', 'raw, 2 workers|node-cluster|'],
  'java-app': ['200 threads|java|JETTY_THREADS_MAX=200', '200 threads, timings off|java|JETTY_THREADS_MAX=200 TIMINGS_ENABLED=false',
    '10 threads|java|JETTY_THREADS_MIN=8 JETTY_THREADS_MAX=10'],
};
// The parser, the defaults and --help in one (arg-table.js); durations go to the loadgen as given.
const OPTIONS = [
  ['--smoke', 'smoke', 'bool', false, 'check that it can run here (its flags, its code, the tools it needs) and say what it would measure; measure nothing (CI runs this)'],
  ['--app APP', 'app', 'str', 'node-app', 'node-app: raw; raw, timings off; express; raw, 2 workers. java-app: 200 Jetty threads; the same, timings off; 10 threads, the study\'s smallest pool', ['node-app', 'java-app']],
  ['--setting \'NAME|VARIANT|ENV...\'', 'settings', 'list', note('those of --app'), 'instead of the defaults, repeatable: a name, a variant of contract/lib/variants.js (node-raw node-express node-cluster java) and NAME=value settings, e.g. \'pool 20|node-raw|DB_POOL_SIZE=20\''],
  ['--duration DUR', 'duration', 'str', '10s', 'each measured run'],
  ['--warmup DUR', 'warmup', 'str', '5s', 'a run before it, not counted (the JIT, pool connections)'],
  ['--parallel N', 'parallel', 'int', 32, 'requests in flight', [1]],
  ['--reps N', 'reps', 'int', 3, 'interleaved repetitions, medians compared', [1]],
];
const USAGE_LINE = 'Usage: bench/apps/settings.sh [--app node-app|java-app] [--setting \'NAME|VARIANT|ENV...\']...\n'
  + '                              [--duration 10s] [--warmup 5s] [--parallel 32] [--reps 3]';

class MeasureError extends Error {
  constructor(msg) { super(msg); this.exitCode = 2; }
}

/** 'NAME|VARIANT|A=1 B=2' → { name, variant, env }. */
function parseSetting(text) {
  const parts = text.split('|');
  if (parts.length !== 3) throw new UsageError(`a setting is NAME|VARIANT|ENV..., got "${text}"`);
  try { variant(parts[1]); } catch (e) { throw new UsageError(e.message); }
  const env = Object.fromEntries(parts[2].split(/\s+/).filter(Boolean).map((kv) => [kv.slice(0, kv.indexOf('=')), kv.slice(kv.indexOf('=') + 1)]));
  return { name: parts[0], variant: parts[1], env };
}

function validate(opts) {
  const settings = opts.settings.length ? opts.settings : DEFAULT_SETTINGS[opts.app];
  return { ...opts, settings: settings.map(parseSetting), parallel: String(opts.parallel) };
}

/** One loadgen run of `duration` on the started app: { requests, perSec }; errors fail it. */
function load(url, duration, parallel) {
  const args = ['-c', String(LOAD_CPU), process.execPath, LOADGEN, '--url', url, '--scenario', 'read', '--ids', `1-${SEED_ADS}`,
    '--parallel', parallel, '--duration', duration, '--json', '--no-progress', '--max-error-rate', '0'];
  return new Promise((resolve, reject) => execFile('taskset', args, { maxBuffer: 1 << 24 }, (err, stdout, stderr) => {
    if (err) return reject(new MeasureError(`loadgen failed: ${stderr.trim().split('\n').pop() || err.message}`));
    const r = JSON.parse(stdout);
    resolve({ requests: r.requests.total, perSec: Math.round(r.requests.per_sec) });
  }));
}

/** Setting `s` started, warmed up and measured: { rps, cpuUs } (CPU µs per request). */
async function runSetting(bench, s, opts) {
  const app = await bench.startApp(s.variant, s.env);
  await load(app.url, opts.warmup, opts.parallel);
  const ticks0 = cpuTicks(app.pid);
  const out = await load(app.url, opts.duration, opts.parallel);
  const ticks1 = cpuTicks(app.pid);
  await bench.stopApp();
  if (!(out.requests > 0)) throw new MeasureError(`${s.name}: no requests`);
  return { rps: out.perSec, cpuUs: Math.floor(((ticks1 - ticks0) * 1e6) / CLK_TCK / out.requests) };
}

function table(settings, runs) {
  const ratio = (a, b) => (b > 0 ? a / b : 0).toFixed(2);
  const row = (cells) => `${cells[0].padEnd(26)} ${cells[1].padStart(8)} ${cells[2].padStart(6)} ${cells[3].padStart(12)} ${cells[4].padStart(6)}  ${cells[5]}`;
  const lines = [row(['setting', 'req/s', 'ratio', 'CPU us/req', 'ratio', 'runs (req/s)'])];
  const base = { rps: median(runs[0].map((r) => r.rps)), cpu: median(runs[0].map((r) => r.cpuUs)) };
  settings.forEach((s, i) => {
    const rps = median(runs[i].map((r) => r.rps));
    const cpu = median(runs[i].map((r) => r.cpuUs));
    lines.push(row([s.name, String(rps), ratio(rps, base.rps), String(cpu), ratio(cpu, base.cpu), runs[i].map((r) => r.rps).join(' ')]));
  });
  return lines.join('\n');
}

async function main(argv) {
  const parsed = parseCommand('settings', argv, { usage: USAGE_LINE, about: headerOf(__filename), rows: OPTIONS });
  const opts = validate(parsed);
  if (opts.settings.some((s) => s.variant === 'java') && !require('node:fs').existsSync(path.join(ROOT, 'java-app', 'target', 'java-app.jar'))) {
    throw new Error('no java-app/target/java-app.jar: run scripts/setup.sh (or mvn -q package in java-app)');
  }
  const bench = new Bench('settings');
  if (opts.smoke) return bench.smoke(opts.settings.map((s) => s.name).join(', '), opts.settings.map((s) => s.variant));
  try {
    await bench.setup();
    const runs = opts.settings.map(() => []);
    for (let rep = 1; rep <= opts.reps; rep++) {
      for (const [i, s] of opts.settings.entries()) {
        const r = await runSetting(bench, s, opts);
        runs[i].push(r);
        bench.log(`rep ${rep} ${s.name}: ${r.rps} req/s, ${r.cpuUs} CPU us/request`);
      }
    }
    process.stdout.write(`${table(opts.settings, runs)}\n`);
    return 0;
  } finally {
    await bench.cleanup();
  }
}

if (require.main === module) runMain('settings', main);

module.exports = { parseSetting, validate };
