// results-db.js — the results database for the report and the experiment runner (resultsUrl says
// where it is looked for).
'use strict';
const { execFileSync } = require('node:child_process');
const path = require('node:path');
const pg = require('pg');

const REPO_ROOT = path.resolve(__dirname, '../..');

// Numeric columns (bigint, numeric) as JS numbers: counts and microseconds fit in 2^53.
pg.types.setTypeParser(20, (v) => Number(v));
pg.types.setTypeParser(1700, (v) => Number(v));

function cfl(args) {
  return execFileSync(path.join(REPO_ROOT, 'scripts/cfl'), args, {
    encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], timeout: 120_000,
  }).trim();
}

/**
 * Resolve the results database URL: --db, else CFSCALE_RESULTS_URL, else
 * RESULTS_DATABASE_URL (what run-round.sh reads on cf), else on local `scripts/cfl
 * service-url results-db`; with `ensureLocal` the local platform is started and the
 * service created first (both idempotent). null when none is known.
 */
function resultsUrl({ db, platform = 'local', ensureLocal = false } = {}) {
  if (db) return db;
  if (process.env.CFSCALE_RESULTS_URL) return process.env.CFSCALE_RESULTS_URL;
  if (process.env.RESULTS_DATABASE_URL) return process.env.RESULTS_DATABASE_URL;
  if (platform !== 'local') return null;
  try {
    if (ensureLocal) {
      cfl(['up']);
      cfl(['create-service', 'postgres', 'local', 'results-db']);
    }
    const out = cfl(['service-url', 'results-db']);
    return /^postgres(ql)?:\/\//.test(out) ? out : null;
  } catch {
    return null;
  }
}

// sslmode and sslrootcert mean what they mean to libpq and psql, as in every other part that
// reads a results-database URL (scripts/cf/bindings.js): require encrypts without verifying.
const { connectionFromUrl, pgConfig } = require('../../scripts/cf/bindings.js');

async function connect(url) {
  const client = new pg.Client({ ...pgConfig(connectionFromUrl(url, 'the results database URL')), application_name: 'cfscale-report' });
  await client.connect();
  return client;
}

module.exports = { resultsUrl, connect, REPO_ROOT };
