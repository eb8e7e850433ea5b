'use strict';
// test-db.js — a throw-away results database for the scripts' tests (ingest, rounds, tunnel).
//
// Under scripts/test.sh: a uniquely named database in the shared cluster
// (CFSCALE_TEST_PG_URL). Standalone: a cluster of our own (pg-cluster.js) on a
// free port in the CF side's range (`cf` in ports.json), stopped and removed afterwards.
// Either way results-schema.sql is applied.

const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { randomFreePort } = require('../../lib/ports');
const { Client } = require('pg');

const ROOT = path.resolve(__dirname, '..', '..');
const pgCluster = require('../../local-platform/lib/pg-cluster.js');
const SCHEMA = path.join(ROOT, 'results-schema.sql');
const [PORT_MIN, PORT_MAX] = require('../../lib/ports').portRange('cf');

const freePort = () => randomFreePort(PORT_MIN, PORT_MAX);

function withDb(url, name) {
  const u = new URL(url);
  u.pathname = `/${name}`;
  return u.toString();
}

/**
 * A fresh database with results-schema.sql; adminUrl is the cluster's superuser URL (its
 * default database), for tests that need a second database.
 * @returns {Promise<{url: string, adminUrl: string, close: () => Promise<void>}>}
 */
async function createTestDb(prefix) {
  const name = `${prefix}_${process.pid}_${Date.now() % 100000}`;
  let adminUrl = process.env.CFSCALE_TEST_PG_URL;
  let clusterDir = null;
  if (!adminUrl) {
    clusterDir = fs.mkdtempSync(path.join(os.tmpdir(), 'cfscale-cf-pg-'));
    const port = await freePort();
    adminUrl = pgCluster.start(clusterDir, { port });
  }
  const admin = new Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`CREATE DATABASE "${name}"`);
  await admin.end();
  const url = withDb(adminUrl, name);
  const db = new Client({ connectionString: url });
  await db.connect();
  await db.query(fs.readFileSync(SCHEMA, 'utf8'));
  await db.end();
  return {
    url,
    adminUrl,
    async close() {
      if (clusterDir) {
        pgCluster.stop(clusterDir);
        fs.rmSync(clusterDir, { recursive: true, force: true });
        return;
      }
      const a = new Client({ connectionString: adminUrl });
      await a.connect();
      await a.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
      await a.end();
    },
  };
}

module.exports = { createTestDb, freePort };
