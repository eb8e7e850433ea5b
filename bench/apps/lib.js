// lib.js — what the app benchmarks share (settings.js, throughput.js): a PostgreSQL cluster
// of their own (a port of range `bench-apps` in ports.json), one app variant
// (contract/lib/variants.js) started pinned to a CPU on fresh databases with seeded ads, the
// CPU time of its processes, the header comment as help text, and the cleanup.
'use strict';

const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { spawn, spawnSync } = require('node:child_process');

const { variant, portRange } = require('../../contract/lib/variants');
const { healthOk, freePortInRange } = require('../../contract/lib/app-process');
const pgAdmin = require('../../contract/lib/pg-admin');
const { withClient } = require('../../contract/lib/app-db');
const { CliError, cliExitCode } = require('../../lib/arg-table');

const ROOT = path.resolve(__dirname, '..', '..');

const APP_CPU = 0;
const LOAD_CPU = 1;
const SEED_ADS = 1000;
const START_TIMEOUT_MS = 60000;
const PG_START_TRIES = 3;

class UsageError extends Error {}

/** The header comment of `file` (a bench's description for its --help), comment marks stripped. */
function headerOf(file) {
  const lines = fs.readFileSync(file, 'utf8').split('\n');
  return lines.slice(0, lines.findIndex((l) => !l.startsWith('//'))).map((l) => l.replace(/^\/\/ ?/, '')).join('\n');
}

/** Run `main(argv)` → exit code; --help and a bad flag as arg-table.js says, a UsageError or setup Error one line and exit 1. */
function runMain(name, main) {
  main(process.argv.slice(2)).then((code) => { process.exitCode = code; }, (e) => {
    if (e instanceof CliError) {
      process.exitCode = cliExitCode(e);
      return;
    }
    process.stderr.write(`${name}: ${process.env.DEBUG === '1' ? e.stack : e.message}\n`);
    process.exitCode = e.exitCode || 1;
  });
}

class Bench {
  constructor(name) {
    this.name = name;
    this.app = null;
  }

  log(msg) { process.stderr.write(`${this.name}: ${msg}\n`); }

  /** --smoke: the machine and each variant's build are here; say what would be measured. Exit code. */
  smoke(what, variants) {
    if (spawnSync('taskset', ['--version']).error) throw new Error('taskset not found (util-linux)');
    for (const v of new Set(variants)) {
      const need = v === 'java' ? path.join(ROOT, 'java-app', 'target', 'java-app.jar') : path.join(ROOT, 'node-app', 'node_modules');
      if (!fs.existsSync(need)) throw new Error(`${v}: ${path.relative(ROOT, need)} missing: run scripts/setup.sh`);
    }
    process.stdout.write(`${this.name}: smoke: would measure ${what}\n`);
    return 0;
  }

  /** The machine checks, temp dir, cleanup on signals and the PostgreSQL cluster. */
  async setup() {
    if (spawnSync('taskset', ['--version']).error) throw new Error('taskset not found (util-linux)');
    if (os.cpus().length < 2) throw new Error('needs 2 CPUs (app and generator on different cores)');
    this.pg = pgAdmin;
    this.work = fs.mkdtempSync('/tmp/cfscale-contract-bench-');
    fs.chmodSync(this.work, 0o755);
    for (const sig of ['SIGINT', 'SIGTERM']) process.once(sig, () => this.cleanup().finally(() => process.exit(1)));
    for (let tries = 1; ; tries++) {
      try {
        this.pgUrl = this.pg.startCluster(path.join(this.work, 'pg'), await freePortInRange(...portRange('bench-apps')));
        return;
      } catch (e) {
        if (tries >= PG_START_TRIES) throw new Error(`could not start PostgreSQL: ${e.stderr || e.message}`);
      }
    }
  }

  /** Variant `v` pinned to APP_CPU with `extraEnv` on top of its own settings, SEED_ADS ads in. */
  async startApp(v, extraEnv = {}) {
    const appDb = await this.pg.freshDatabase(this.pgUrl, 'bench_app', { results: true }); // the same file holds ads
    const resultsDb = await this.pg.freshDatabase(this.pgUrl, 'bench_results', { results: true });
    const port = await freePortInRange(...portRange('bench-apps'));
    const env = { ...process.env };
    delete env.VCAP_SERVICES;
    delete env.VCAP_APPLICATION;
    // A fresh control credential per start: measure.js gets it as CONTROL_TOKEN too.
    const controlToken = require('node:crypto').randomBytes(32).toString('base64url');
    Object.assign(env, { PORT: String(port), DATABASE_URL: appDb, RESULTS_DATABASE_URL: resultsDb, TIMINGS_CAPACITY: '2000000',
      APP_NAME: `bench-${v}`, CONTROL_TOKEN: controlToken, ...variant(v).env, ...extraEnv });
    const logFile = path.join(this.work, `${v}.log`);
    const out = fs.openSync(logFile, 'w');
    const child = spawn('taskset', ['-c', String(APP_CPU), ...variant(v).cmd], { cwd: ROOT, env, stdio: ['ignore', out, out], detached: true });
    fs.closeSync(out);
    this.app = { child, pid: child.pid, url: `http://127.0.0.1:${port}`, controlToken, done: false };
    this.app.exited = new Promise((resolve) => child.once('close', () => { this.app.done = true; resolve(); }));
    const deadline = Date.now() + START_TIMEOUT_MS;
    while (!(await healthOk(this.app.url))) {
      if (this.app.done || Date.now() > deadline) {
        process.stderr.write(fs.readFileSync(logFile, 'utf8').split('\n').slice(-21).join('\n'));
        throw new Error(`${v} did not start`);
      }
      await new Promise((r) => setTimeout(r, 200));
    }
    await withClient(appDb, (c) => c.query(`INSERT INTO ads (title, body, price, contact)
      SELECT 'Ad ' || g, 'Body of ad ' || g, g % 1000, 'seller' || g || '@example.com' FROM generate_series(1, ${SEED_ADS}) g`));
    return this.app;
  }

  async stopApp() {
    if (!this.app) return;
    if (!this.app.done) {
      try { process.kill(-this.app.pid, 'SIGTERM'); } catch { /* already gone */ }
    }
    await this.app.exited;
    this.app = null;
  }

  async cleanup() {
    await this.stopApp();
    if (this.work) {
      try { this.pg.stopCluster(path.join(this.work, 'pg')); } catch { /* not started */ }
      fs.rmSync(this.work, { recursive: true, force: true });
      this.work = null;
    }
  }
}

/** CPU ticks (user + system) used so far by process `pid` and its children (cluster workers). */
function cpuTicks(pid) {
  const children = spawnSync('pgrep', ['-P', String(pid)], { encoding: 'utf8' }).stdout.split('\n').filter(Boolean);
  let total = 0;
  for (const p of [pid, ...children]) {
    try {
      const fields = fs.readFileSync(`/proc/${p}/stat`, 'utf8').replace(/^.*\) /, '').split(' ');
      total += Number(fields[11]) + Number(fields[12]); // utime, stime (fields 14, 15 of stat)
    } catch { /* exited meanwhile */ }
  }
  return total;
}

const CLK_TCK = Number(spawnSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).stdout.trim()) || 100;

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor((xs.length - 1) / 2)];

module.exports = { Bench, UsageError, headerOf, runMain, cpuTicks, median, variant, ROOT, APP_CPU, LOAD_CPU, SEED_ADS, CLK_TCK };
