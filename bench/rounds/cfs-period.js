#!/usr/bin/env node
'use strict';
// cfs-period.js — which CFS period makes the local platform's latency closest to CF's CPU
// shares (bench/rounds/cfs-period.sh; COMMAND is its help and its flags). Same app, same work (an
// open-model rate, so every configuration serves the same requests and spends the same
// CPU), delivered two ways: CF's shares (CFSCALE_CPU_MODE=shares: no quota, a cell with
// spare CPU, as CF's work-conserving shares give it) and a hard quota of --cpu cores with
// each period. Prints p50/p90/p99 per configuration and rate, interleaved repetitions, and
// each quota period's distance to shares: the mean |log(quota / shares)| over p50, p90, p99.
const fs = require('node:fs');
const path = require('node:path');
const crypto = require('node:crypto');
const os = require('node:os');
const { spawn, spawnSync } = require('node:child_process');

const ROOT = path.resolve(__dirname, '../..');
const { platformPortEnv } = require('../../lib/ports');
const { parseCommand, CliError, cliExitCode } = require('../../lib/arg-table');
const { smokeCheck } = require('./smoke');

// The parser, the defaults and --help in one (arg-table.js).
const COMMAND = {
  usage: 'Usage: bench/rounds/cfs-period.sh [--cpu 0.1] [--periods 100000,50000,20000,10000] [--loads 0.2,0.35]\n'
    + '         [--duration 20] [--warmup 10] [--reps 2]',
  about: "Which CFS period makes the local platform's latency closest to CF's CPU shares: node-app x1 serving the "
    + 'same open-model rate (so the same work and CPU) under CFSCALE_CPU_MODE=shares (no quota: a cell with spare CPU) '
    + 'and under a hard quota of --cpu cores with each period; p50/p90/p99 per configuration and each period\'s '
    + "distance to shares (mean |ln(quota/shares)| over the three percentiles). Chooses CFSCALE_CPU_PERIOD_US's "
    + 'default (local-platform/README.md).',
  rows: [
    ['--cpu C', 'cpu', 'num', 0.1, 'the quota, cores; every period x C must be >= 1000 µs'],
    ['--periods P,..', 'periods', 'str', '100000,50000,20000,10000', 'CFS periods to compare, µs'],
    ['--loads L,..', 'loads', 'str', '0.2,0.35', 'rates as fractions of the capacity at the quota with a 100 ms period '
      + '(closed model, 16 in flight); the open model costs the app about twice the CPU per request, so 0.5 would '
      + 'saturate the quota'],
    ['--duration S', 'duration', 'int', 20, 'seconds measured per rate, after 5 s at that rate', [1]],
    ['--warmup S', 'warmup', 'int', 10, 'seconds the app is warmed up without a quota before each configuration', [0]],
    ['--reps N', 'reps', 'int', 2, 'interleaved repetitions; medians are compared', [1]],
    ['--smoke', 'smoke', 'bool', false, 'check that it can run here (its flags, its code, the tools it needs) and say what it would measure; measure nothing (CI runs this)'],
  ],
  notes: `A fresh local platform per configuration (the period is the daemon's; CFSCALE_HOME
/tmp/cfscale-bench-period-*, ports: range \`cfs-period\` of ports.json), torn down at the end. Heavy: run
it under the shared lock (flock /tmp/cfscale-heavy.lock ...). On demand only, not in CI.
Exit 0 ok, 1 usage, 2 a step failed.`,
  width: 100,
};

function parseArgs(argv) {
  const o = parseCommand('cfs-period', argv, COMMAND);
  o.periods = o.periods.split(',').map(Number);
  o.loads = o.loads.split(',').map(Number);
  if (!(o.cpu > 0)) die('--cpu must be a positive number of cores', 1);
  for (const p of o.periods) if (!(p * o.cpu >= 1000)) die(`--periods: ${p} µs x ${o.cpu} cores is below the kernel's 1000 µs quota`, 1);
  if (o.loads.some((l) => !(l > 0 && l < 1))) die('--loads are fractions of the capacity, between 0 and 1', 1);
  return o;
}

function die(msg, code = 2) {
  process.stderr.write(`cfs-period: ${msg}\n`);
  dropHome();
  process.exit(code);
}

// The platform's home, environment and cgroup name: a fresh one per configuration (a
// home keeps an app's CPU override across `cfl down`/`up`).
let HOME = null;
let ENV;
let HASH;

function makeHome() {
  dropHome();
  HOME = fs.mkdtempSync('/tmp/cfscale-bench-period-');
  fs.mkdirSync(path.join(HOME, 'tmp'));
  ENV = {
    ...process.env, PLATFORM: 'local', CFSCALE_HOME: HOME, TMPDIR: path.join(HOME, 'tmp'),
    ...platformPortEnv('cfs-period'),
  };
  HASH = crypto.createHash('sha1').update(HOME).digest('hex').slice(0, 8);
}

// Asynchronous, so that an interrupt is handled between steps (and tears the platform down).
function run(cmd, args, env = {}) {
  return new Promise((resolve) => {
    const child = spawn(cmd, args, { env: { ...ENV, ...env }, cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (d) => { out += d; });
    child.stderr.on('data', (d) => { err += d; });
    child.on('close', (code) => {
      if (code !== 0) die(`${path.basename(cmd)} ${args.join(' ')} failed (exit ${code}):\n${err.slice(-2000)}`);
      resolve(out);
    });
  });
}

const cfl = (args, env) => run(path.join(ROOT, 'scripts/cfl'), args, env);

function dropHome() {
  if (HOME === null) return;
  // Synchronous: also from an exit path.
  spawnSync(path.join(ROOT, 'scripts/cfl'), ['down'], { env: ENV, stdio: 'ignore' });
  fs.rmSync(HOME, { recursive: true, force: true });
  HOME = null;
}

/**
 * A fresh platform in a CPU mode (and period), node-app x1 warmed up without a quota (a
 * JIT warming under 0.1 core takes half a minute), then given its quota (applied live).
 */
async function platform(cfg, o) {
  makeHome();
  const env = { CFSCALE_CPU_MODE: cfg.mode, CFSCALE_CPU_PERIOD_US: String(cfg.periodUs ?? 100000) };
  await run(path.join(ROOT, 'scripts/push.sh'), ['node-app', '-i', '1'], env);
  if (cfg.mode === 'quota') await run(path.join(ROOT, 'scripts/scale.sh'), ['node-app', '-i', '1', '--cpu', 'none'], env);
  await loadgen(['--parallel', '16', '--duration', `${o.warmup}s`]);
  if (cfg.mode === 'quota') await run(path.join(ROOT, 'scripts/scale.sh'), ['node-app', '-i', '1', '--cpu', String(o.cpu)], env);
}

async function loadgen(args) {
  const url = (await cfl(['router-url'])).trim();
  return JSON.parse(await run('node', [path.join(ROOT, 'loadgen/bin/loadgen.js'), '--url', url, '--host', 'node-app.localhost',
    '--scenario', 'read', '--seed', '1000', '--json', '--no-progress', ...args]));
}

function cgroupRead(ctl, file) {
  return fs.readFileSync(`/sys/fs/cgroup/${ctl}/cfscale-${HASH}/node-app-0/${file}`, 'utf8');
}

/** One measured run at rate R after a few seconds at the same rate: latencies, app CPU, throttling. */
async function measure(rate, o) {
  await loadgen(['--rate', String(rate), '--parallel', '64', '--duration', '5s']);
  const cpu0 = Number(cgroupRead('cpuacct', 'cpuacct.usage'));
  const stat0 = cgroupRead('cpu', 'cpu.stat');
  const t0 = process.hrtime.bigint();
  const r = await loadgen(['--rate', String(rate), '--parallel', '64', '--duration', `${o.duration}s`]);
  const wallNs = Number(process.hrtime.bigint() - t0);
  const field = (text, k) => Number(new RegExp(`^${k} (\\d+)$`, 'm').exec(text)[1]);
  const stat1 = cgroupRead('cpu', 'cpu.stat');
  const periods = field(stat1, 'nr_periods') - field(stat0, 'nr_periods');
  return {
    p50: r.latency_us.p50 / 1000, p90: r.latency_us.p90 / 1000, p99: r.latency_us.p99 / 1000, rps: r.requests.per_sec,
    errors: r.requests.errors, late: r.late,
    cpu: (Number(cgroupRead('cpuacct', 'cpuacct.usage')) - cpu0) / wallNs,
    throttled: periods > 0 ? (field(stat1, 'nr_throttled') - field(stat0, 'nr_throttled')) / periods : null,
  };
}

const f = (x, d = 1) => (x === null ? '-' : x.toFixed(d));
const median = (xs) => { const s = [...xs].sort((a, b) => a - b); return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2; };

async function main() {
  const o = parseArgs(process.argv.slice(2));
  if (o.smoke) process.exit(smokeCheck('cfs-period', `shares against a ${o.cpu}-core quota with periods ${o.periods.join(', ')} µs at loads ${o.loads.join(', ')}`));
  const configs = [{ name: 'shares', mode: 'shares' }, ...o.periods.map((p) => ({ name: `quota ${p / 1000} ms`, mode: 'quota', periodUs: p }))];
  try {
    // The capacity at the quota with the kernel's default period sets the rates.
    await platform({ mode: 'quota', periodUs: 100000 }, o);
    const capacity = (await loadgen(['--parallel', '16', '--duration', `${o.duration}s`])).requests.per_sec;
    const rates = o.loads.map((l) => Math.round(l * capacity));
    process.stderr.write(`capacity at ${o.cpu} cores (100 ms period): ${capacity} req/s; rates ${rates.join(', ')} req/s; load average ${os.loadavg()[0].toFixed(2)}\n`);
    const results = []; // {config, rate, rep, ...}
    for (let rep = 1; rep <= o.reps; rep++) {
      const order = rep % 2 ? configs : [...configs].reverse();
      for (const cfg of order) {
        await platform(cfg, o);
        for (const rate of rates) {
          const m = { config: cfg.name, rate, rep, load: os.loadavg()[0], ...(await measure(rate, o)) };
          results.push(m);
          process.stderr.write(`rep ${rep} ${cfg.name} ${rate} req/s: p50 ${f(m.p50, 2)} p90 ${f(m.p90, 2)} p99 ${f(m.p99, 2)} ms, `
            + `cpu ${f(m.cpu, 3)}, throttled ${m.throttled === null ? '-' : `${f(100 * m.throttled)} %`}, errors ${m.errors}, late ${m.late}, load ${f(m.load, 2)}\n`);
        }
      }
    }
    report(configs, rates, results);
  } finally {
    dropHome();
  }
}

function report(configs, rates, results) {
  const med = (cfg, rate, k) => median(results.filter((r) => r.config === cfg && r.rate === rate).map((r) => r[k]));
  console.log('configuration     rate   p50 ms   p90 ms   p99 ms   app CPU  throttled  distance to shares');
  for (const rate of rates) {
    for (const c of configs) {
      const d = c.mode === 'shares' ? null
        : ['p50', 'p90', 'p99'].reduce((s, k) => s + Math.abs(Math.log(med(c.name, rate, k) / med('shares', rate, k))), 0) / 3;
      const th = results.filter((r) => r.config === c.name && r.rate === rate && r.throttled !== null).map((r) => r.throttled);
      console.log(`${c.name.padEnd(16)} ${String(rate).padStart(5)} ${f(med(c.name, rate, 'p50'), 2).padStart(8)} `
        + `${f(med(c.name, rate, 'p90'), 2).padStart(8)} ${f(med(c.name, rate, 'p99'), 2).padStart(8)} `
        + `${f(med(c.name, rate, 'cpu'), 3).padStart(9)} ${(th.length ? `${f(100 * median(th))} %` : '-').padStart(10)}  ${d === null ? '-' : f(d, 3)}`);
    }
  }
  console.log('(medians of the repetitions; distance = mean |ln(quota/shares)| over p50, p90, p99: 0 = the same latencies)');
}

// An interrupt still tears the platform down.
for (const sig of ['SIGINT', 'SIGTERM']) process.on(sig, () => { dropHome(); process.exit(130); });
main().catch((err) => (err instanceof CliError ? process.exit(cliExitCode(err)) : die(err.stack || err.message)));
