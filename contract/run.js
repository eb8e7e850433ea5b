// run.js — the contract suite against every app variant, on real PostgreSQL (contract/run.sh).
//
// Uses the cluster of CFSCALE_TEST_PG_URL/CFSCALE_TEST_PG_DIR when set (scripts/test.sh), else
// starts its own in its temp dir /tmp/cfscale-contract-XXXXXX (a port of range `contract` in
// ports.json; every run has its own dirs, so two runs at once do not collide). Per variant: an
// app and a results database, the app on a free port with CF_INSTANCE_INDEX=3 and a small
// TIMINGS_CAPACITY, contract.test.js against it; then identity.js (each node variant and java
// must answer byte-identically); then, per variant, no-token.test.js (started without
// CONTROL_TOKEN, as a plain `cf push` starts it), lifecycle.test.js and settings.test.js (they
// start their own app processes and, for the outage, their own cluster). Everything started
// is stopped on exit. Exit 0 when every part passed, 2 when one failed, 1 on usage or setup
// errors.
'use strict';

const fs = require('node:fs');
const path = require('node:path');
const { spawn, spawnSync } = require('node:child_process');
const { ALL_VARIANTS, variant, envList } = require('./lib/variants');
const { firstFailure } = require('./lib/first-failure');
const { healthOk, freePort } = require('./lib/app-process');
const { parse, help, UsageError } = require('../lib/arg-table');

const ROOT = path.resolve(__dirname, '..');
const CONTRACT = __dirname;
const INSTANCE_INDEX = 3;
const TIMINGS_CAPACITY = 64;
const HEALTH_TIMEOUT_MS = 60000;
// Short slow-client times, so the framing cases wait seconds, not the defaults' 10 s and 95 s.
const HEADER_TIMEOUT_MS = 1000;
const IDLE_TIMEOUT_MS = 2000;
const PG_START_TRIES = 3;

// The parser, the defaults and --help in one (arg-table.js).
const OPTIONS = [
  ['--only VARIANT[,VARIANT...]', 'only', 'str', ALL_VARIANTS.join(','), 'run only these variants'],
  ['--no-lifecycle', 'noLifecycle', 'bool', false, 'skip lifecycle.test.js (outage, SIGTERM) and settings.test.js (the ranges of settings.json on every variant; bad settings, VCAP_SERVICES)'],
  ['--keep', 'keep', 'bool', false, 'keep the temp dir (app logs, test logs) and print its path'],
  ['--help', 'help', 'bool', '', 'this text'],
];
const ALIASES = { '-h': '--help' };

/** The flags from OPTIONS, then the header comment's description (the one source of both). */
function usage() {
  const lines = fs.readFileSync(__filename, 'utf8').split('\n');
  const about = lines.slice(0, lines.findIndex((l) => !l.startsWith('//'))).map((l) => l.replace(/^\/\/ ?/, ''));
  return help('Usage: contract/run.sh [--only VARIANT[,VARIANT...]] [--no-lifecycle] [--keep]', '', OPTIONS,
    { aliases: ALIASES, notes: [...about, 'DEBUG=1 traces the wrapper.'].join('\n'), width: 100 });
}

function parseArgs(argv) {
  const opts = parse(argv, OPTIONS, { aliases: ALIASES });
  if (opts.help) return opts;
  opts.variants = opts.only.split(',').filter(Boolean);
  for (const v of opts.variants) {
    try { variant(v); } catch (e) { throw new UsageError(e.message); }
  }
  return opts;
}

const log = (msg) => process.stderr.write(`contract: ${msg}\n`);

/** The variant's environment here: java with a smaller thread pool than its default 200. */
function contractEnv(v) {
  return v === 'java' ? { JETTY_THREADS_MAX: '50' } : variant(v).env;
}

function checkPrerequisites(variants) {
  if (!fs.existsSync(path.join(CONTRACT, 'node_modules', 'pg'))) throw new Error('contract deps missing: run scripts/setup.sh (npm ci in contract)');
  if (variants.some((v) => v.startsWith('node-'))
    && !(fs.existsSync(path.join(ROOT, 'node-app', 'server.js')) && fs.existsSync(path.join(ROOT, 'node-app', 'node_modules')))) {
    throw new Error('node-app missing or not installed (node-app/server.js, npm ci)');
  }
  if (variants.includes('java') && !fs.existsSync(path.join(ROOT, 'java-app', 'target', 'java-app.jar'))) {
    log('building java-app (mvn package)');
    const r = spawnSync('mvn', ['-q', '-B', '-DskipTests', 'package'], { cwd: path.join(ROOT, 'java-app'), stdio: ['ignore', 'ignore', 'inherit'] });
    if (r.status !== 0) throw new Error('java-app build failed');
  }
}

/** A run's started things, and their teardown. */
class Run {
  constructor(keep) {
    this.keep = keep;
    this.work = fs.mkdtempSync('/tmp/cfscale-contract-');
    fs.chmodSync(this.work, 0o755); // the clusters in it run as postgres when we are root
    this.apps = new Map(); // variant → { child, url, appDb, resultsDb, exited }
    this.ownPg = false;
    // One credential for every app of the run: identity.js sends the same bytes to each.
    this.controlToken = require('./lib/control').newControlToken();
  }

  async startPg() {
    const { startCluster } = pgTools();
    if (process.env.CFSCALE_TEST_PG_URL && process.env.CFSCALE_TEST_PG_DIR) {
      this.pgUrl = process.env.CFSCALE_TEST_PG_URL;
      return;
    }
    this.ownPg = true;
    // A port free a moment ago may be taken meanwhile (client sockets use this range too): retry.
    for (let tries = 1; ; tries++) {
      const port = await freePort();
      try {
        this.pgUrl = startCluster(path.join(this.work, 'pg'), port);
        log(`PostgreSQL on port ${port} (${path.join(this.work, 'pg')})`);
        return;
      } catch (e) {
        if (tries >= PG_START_TRIES) throw new Error(`could not start PostgreSQL: ${e.stderr || e.message}`);
      }
    }
  }

  async startVariant(v) {
    const { freshDatabase } = pgTools();
    const name = v.replace(/-/g, '_');
    const appDb = await freshDatabase(this.pgUrl, `contract_${name}_app`);
    const resultsDb = await freshDatabase(this.pgUrl, `contract_${name}_results`, { results: true });
    const port = await freePort();
    const env = { ...process.env };
    for (const k of ['VCAP_SERVICES', 'VCAP_APPLICATION', 'DB_SERVICE_NAME']) delete env[k];
    Object.assign(env, {
      PORT: String(port), DATABASE_URL: appDb, RESULTS_DATABASE_URL: resultsDb, CF_INSTANCE_INDEX: String(INSTANCE_INDEX),
      APP_NAME: `contract-${v}`, TIMINGS_CAPACITY: String(TIMINGS_CAPACITY), HTTP_HEADER_TIMEOUT_MS: String(HEADER_TIMEOUT_MS),
      HTTP_IDLE_TIMEOUT_MS: String(IDLE_TIMEOUT_MS), CONTROL_TOKEN: this.controlToken, ...contractEnv(v),
    });
    const out = fs.openSync(this.logOf(v), 'w');
    const [cmd, ...args] = variant(v).cmd;
    const child = spawn(cmd, args, { cwd: ROOT, env, stdio: ['ignore', out, out], detached: true });
    fs.closeSync(out);
    const app = { child, url: `http://127.0.0.1:${port}`, appDb, resultsDb, done: false };
    app.exited = new Promise((resolve) => child.once('close', () => { app.done = true; resolve(); }));
    this.apps.set(v, app);
  }

  logOf(v) { return path.join(this.work, `${v}.app.log`); }

  async waitHealthy(v) {
    const app = this.apps.get(v);
    const deadline = Date.now() + HEALTH_TIMEOUT_MS;
    while (Date.now() < deadline && !app.done) {
      if (await healthOk(app.url)) return true;
      await new Promise((r) => setTimeout(r, 200));
    }
    log(`${v} did not become healthy; its log:`);
    process.stderr.write(fs.readFileSync(this.logOf(v), 'utf8').split('\n').slice(-21).join('\n'));
    return false;
  }

  async stopVariant(v) {
    const app = this.apps.get(v);
    if (!app) return;
    if (!app.done) {
      try { process.kill(-app.child.pid, 'SIGTERM'); } catch { /* already gone */ }
    }
    await app.exited;
    this.apps.delete(v);
  }

  /**
   * Node's test runner on contract/`file` for variant `v`; a summary (and failures) to stderr.
   * Resolves null when it passed, else its first failure in one line.
   */
  async runTests(v, file, env) {
    const out = path.join(this.work, `${v}.${file.replace(/\.js$/, '').replaceAll('/', '-')}.log`);
    const fd = fs.openSync(out, 'w');
    const child = spawn(process.execPath, ['--test', '--test-reporter=spec', `contract/${file}`],
      { cwd: ROOT, env: { ...process.env, CONTRACT_CONTROL_TOKEN: this.controlToken, ...env }, stdio: ['ignore', fd, fd] });
    fs.closeSync(fd);
    const code = await new Promise((resolve) => child.once('close', resolve));
    const text = fs.readFileSync(out, 'utf8');
    if (code === 0) {
      log(`PASS ${v} ${file} (${text.split('\n').filter((l) => /^ℹ (pass|fail|skipped) /.test(l)).join(' ')})`);
      return null;
    }
    log(`FAIL ${v} ${file}:`);
    const at = text.indexOf('failing tests:');
    process.stderr.write(at >= 0 ? `${text.slice(at)}\n` : `${text.split('\n').slice(-41).join('\n')}\n`);
    return firstFailure(text) || `exit ${code}`;
  }

  /** The apps' logs (settings are logged at start, errors later) never show the database password or the control token. */
  logsWithSecrets(variants) {
    const secrets = [decodeURIComponent(new URL(this.pgUrl).password), this.controlToken];
    return variants.filter((v) => fs.existsSync(this.logOf(v)) && secrets.some((s) => fs.readFileSync(this.logOf(v), 'utf8').includes(s)));
  }

  async cleanup() {
    for (const v of [...this.apps.keys()]) await this.stopVariant(v);
    const { stopCluster } = pgTools();
    const stop = (dir) => { try { stopCluster(dir); } catch { /* not started */ } };
    if (fs.existsSync(path.join(this.work, 'outage-pg'))) stop(path.join(this.work, 'outage-pg'));
    if (this.ownPg) stop(path.join(this.work, 'pg'));
    if (this.keep) log(`logs kept in ${this.work}`);
    else fs.rmSync(this.work, { recursive: true, force: true });
  }
}

/** contract's PostgreSQL helpers, loaded once its dependencies are known to be installed. */
function pgTools() {
  return { ...require('./lib/pg-admin'), ...require('./lib/app-process') };
}

async function runAll(run, opts) {
  const failed = [];
  // A failure is named by its first failing test, so that the one FAILED line a CI summary
  // keeps says what broke.
  const check = async (what, v, file, env) => {
    const why = await run.runTests(v, file, env);
    if (why) failed.push(`${what} (${why})`);
  };
  const { variants } = opts;
  await run.startPg();
  await check('settings spec', 'spec', 'readme-tables.test.js', {});
  await check('first-failure', 'spec', 'lib/first-failure.test.js', {});
  for (const v of variants) await run.startVariant(v);
  for (const v of variants) {
    if (!(await run.waitHealthy(v))) { failed.push(`${v}: start`); await run.stopVariant(v); continue; }
    const app = run.apps.get(v);
    await check(`${v}: contract`, v, 'contract.test.js', {
      CONTRACT_BASE_URL: app.url, CONTRACT_INSTANCE_INDEX: String(INSTANCE_INDEX), CONTRACT_APP_NAME: `contract-${v}`,
      CONTRACT_DB_URL: app.appDb, CONTRACT_RESULTS_DB_URL: app.resultsDb,
      CONTRACT_TIMINGS_CAPACITY: String(TIMINGS_CAPACITY * variant(v).workers),
      CONTRACT_HEADER_TIMEOUT_MS: String(HEADER_TIMEOUT_MS), CONTRACT_IDLE_TIMEOUT_MS: String(IDLE_TIMEOUT_MS),
    });
  }
  const java = run.apps.get('java');
  for (const v of ['node-raw', 'node-express', 'node-cluster']) {
    const app = run.apps.get(v);
    if (!app || !java) continue;
    const r = spawnSync(process.execPath, ['contract/identity.js', app.url, java.url], {
      cwd: ROOT, stdio: 'inherit',
      env: { ...process.env, CONTRACT_CONTROL_TOKEN: run.controlToken, CONTRACT_DB_URL_A: app.appDb, CONTRACT_DB_URL_B: java.appDb },
    });
    if (r.status === 0) log(`PASS identity ${v} = java`);
    else failed.push(`identity ${v}/java`);
  }
  for (const v of [...run.apps.keys()]) await run.stopVariant(v);
  for (const v of run.logsWithSecrets(variants)) {
    log(`FAIL ${v}: its log contains the database password or the control token`);
    failed.push('logs');
  }
  const processEnv = (v) => ({ CONTRACT_VARIANT: v, CONTRACT_APP_CMD: variant(v).cmd.join(' '), CONTRACT_APP_ENV: envList(contractEnv(v)), CONTRACT_PG_URL: run.pgUrl });
  for (const v of variants) {
    await check(`${v}: no token`, v, 'no-token.test.js', processEnv(v));
  }
  if (!opts.noLifecycle) {
    for (const v of variants) {
      const env = processEnv(v);
      await check(`${v}: lifecycle`, v, 'lifecycle.test.js', { ...env, CONTRACT_OUTAGE_DIR: path.join(run.work, 'outage-pg') });
      await check(`${v}: settings`, v, 'settings.test.js', env);
    }
  }
  return failed;
}

async function main(argv) {
  let opts;
  try {
    opts = parseArgs(argv);
  } catch (e) {
    if (!(e instanceof UsageError)) throw e;
    process.stderr.write(`contract: ${e.message} (see --help)\n`);
    return 1;
  }
  if (opts.help) { process.stdout.write(usage()); return 0; }
  let run;
  try {
    checkPrerequisites(opts.variants);
    run = new Run(opts.keep);
    const stopOn = (sig) => process.once(sig, () => run.cleanup().finally(() => process.exit(1)));
    stopOn('SIGINT');
    stopOn('SIGTERM');
    const failed = await runAll(run, opts);
    if (failed.length) { log(`FAILED: ${failed.join(' ')}`); return 2; }
    log('all variants passed');
    return 0;
  } catch (e) {
    log(e.message);
    return 1;
  } finally {
    if (run) await run.cleanup();
  }
}

if (require.main === module) main(process.argv.slice(2)).then((code) => { process.exitCode = code; });

module.exports = { parseArgs, usage, UsageError };
