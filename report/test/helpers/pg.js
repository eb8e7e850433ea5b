// pg.js (test helper) — a fresh database with results-schema.sql applied. Under
// scripts/test.sh: a uniquely named database in the shared cluster (CFSCALE_TEST_PG_URL);
// standalone: our own throw-away cluster (pg-cluster.js, a port of range `report` in ports.json).
'use strict';
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const pg = require('pg');
const { REPO_ROOT } = require('../../../lib/results-db-url.js');
const { connect } = require('../../lib/report/results-db.js');
const { portRange, randomFreePort } = require('../../../lib/ports');

const pgCluster = require('../../../local-platform/lib/pg-cluster.js');

function withDb(url, db) {
  const u = new URL(url);
  u.pathname = `/${db}`;
  return u.toString();
}

let ownCluster = null;

async function adminUrl() {
  if (process.env.CFSCALE_TEST_PG_URL) return process.env.CFSCALE_TEST_PG_URL;
  if (!ownCluster) {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cfscale-report-pg-'));
    const port = await randomFreePort(...portRange('report'));
    const url = pgCluster.start(dir, { port });
    ownCluster = { dir, url };
  }
  return ownCluster.url;
}

/** Stop the cluster this process started (no-op under scripts/test.sh). */
function stopOwnCluster() {
  if (!ownCluster) return;
  pgCluster.stop(ownCluster.dir);
  fs.rmSync(ownCluster.dir, { recursive: true, force: true });
  ownCluster = null;
}

/** A new empty database with the schema: {url, client, drop()}. */
async function testDatabase(tag) {
  const admin = await adminUrl();
  const name = `cfscale_report_${tag}_${process.pid}`;
  const a = new pg.Client({ connectionString: admin });
  await a.connect();
  await a.query(`DROP DATABASE IF EXISTS ${name}`);
  await a.query(`CREATE DATABASE ${name}`);
  await a.end();
  const url = withDb(admin, name);
  // The report's own connection (lib/report/results-db.js): numbers read as the report reads them.
  const client = await connect(url);
  await client.query('SET client_min_messages = warning');
  await client.query(fs.readFileSync(path.join(REPO_ROOT, 'results-schema.sql'), 'utf8'));
  return {
    url, client,
    async drop() {
      await client.end();
      const b = new pg.Client({ connectionString: admin });
      await b.connect();
      await b.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await b.end();
    },
  };
}

module.exports = { stopOwnCluster, testDatabase };
