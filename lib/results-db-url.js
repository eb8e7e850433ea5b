// results-db-url.js — where the results database is, for the report, compare and the
// experiment runner: --db, else CFSCALE_RESULTS_URL, else RESULTS_DATABASE_URL (what
// run-round.sh reads on cf), else on local the credentials of the report's service key on
// results-db, through the cf CLI (scripts/cfl). No npm dependencies; the URL is never logged.
'use strict';
const { execFile } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');

const REPO_ROOT = path.resolve(__dirname, '..');
const CFL = path.join(REPO_ROOT, 'scripts/cfl');
// The report's own service key on the local results-db (the scripts keep theirs).
const RESULTS_KEY = 'cfscale-report';

// The longest one cf or cfl command may take (`cfl up` starts the platform).
const COMMAND_TIMEOUT_MS = 120_000;

/** A command's stdout, trimmed; rejects when it fails. */
function run(cmd, args, env = process.env) {
  return new Promise((resolve, reject) => {
    execFile(cmd, args, { encoding: 'utf8', timeout: COMMAND_TIMEOUT_MS, env }, (err, stdout) => (err ? reject(err) : resolve(stdout.trim())));
  });
}

/**
 * The environment in which `cf` talks to the local platform: the report's own CF_HOME beside
 * the platform's state (`scripts/cfl home`), logged in by `scripts/cfl login` as the scripts
 * are (once; the CLI refreshes its token itself). Rejects when it cannot.
 */
async function localCfEnv() {
  const env = { ...process.env, CF_HOME: path.join(await run(CFL, ['home']), 'report-cf-home'),
    PATH: `${process.env.PATH}:${path.join(REPO_ROOT, '.tools/bin')}` };
  fs.mkdirSync(env.CF_HOME, { recursive: true });
  await run(CFL, ['login'], env);
  return env;
}

/** The credentials' uri of the report's service key on the local results-db (made when missing). */
async function localResultsUrl({ ensureLocal }) {
  if (ensureLocal) await run(CFL, ['up']);
  const env = await localCfEnv();
  const cf = (...args) => run('cf', args, env);
  if (ensureLocal) await cf('create-service', 'postgres', 'local', 'results-db');
  const keyGuid = () => cf('service-key', 'results-db', RESULTS_KEY, '--guid').catch(() => '');
  let guid = await keyGuid();
  if (!/^[0-9a-f-]{36}$/.test(guid)) {
    await cf('create-service-key', 'results-db', RESULTS_KEY);
    guid = await keyGuid();
  }
  return JSON.parse(await cf('curl', `/v3/service_credential_bindings/${guid}/details`)).credentials?.uri;
}

/**
 * Resolve the results database URL: db (a command's CFSCALE_RESULTS_URL row), else CFSCALE_RESULTS_URL, else
 * RESULTS_DATABASE_URL, else on local the credentials of the report's service key on
 * results-db, through the cf CLI; with `ensureLocal` the local platform is started and the
 * service created first (both idempotent), and a failure throws with its reason. Resolves null when none is known.
 */
async function resultsUrl({ db, platform = 'local', ensureLocal = false } = {}) {
  if (db) return db;
  if (process.env.CFSCALE_RESULTS_URL) return process.env.CFSCALE_RESULTS_URL;
  if (process.env.RESULTS_DATABASE_URL) return process.env.RESULTS_DATABASE_URL;
  if (platform !== 'local') return null;
  try {
    const out = await localResultsUrl({ ensureLocal });
    return /^postgres(ql)?:\/\//.test(out || '') ? out : null;
  } catch (err) {
    // Asked to start the platform: what failed is the answer, not "no database".
    if (!ensureLocal) return null;
    const why = String(err.stderr || '').trim().split('\n').pop() || err.message;
    throw new Error(`the local platform's results database: ${why}`);
  }
}

module.exports = { resultsUrl, localCfEnv, REPO_ROOT };
