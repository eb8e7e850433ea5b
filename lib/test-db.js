'use strict';
// test-db.js — throw-away PostgreSQL databases for the tests of every part. The cluster is the
// one scripts/test.sh shares with every suite (CFSCALE_TEST_PG_URL); a test file run alone gets
// one of its own (local-platform/lib/pg-cluster.js) on a free port of its part's range in
// ports.json, started with its first database and stopped by stopOwnCluster(). A part passes
// its own `pg` (each part has its own node_modules):
//
//   const dbs = testDatabases(require('pg'), 'report');
//   const db = await dbs.open('report');   // prefix_PID_xxxxxx, results-schema.sql applied
//   ... db.url ... await db.close();         // dropped, and the own cluster stopped
//
// testDatabases(pg, range) → { open(prefix, { results = true }) → { url, adminUrl, close() },
//   cluster() → the superuser URL, create(prefix, opts) → URL, fresh(name, opts) → URL (dropped
//   first when there), drop(url, opts), query(url, sql, params), applyResultsSchema(url),
//   stopOwnCluster() }; opts: results (apply results-schema.sql), adminUrl (another cluster's
//   superuser URL: a test's own, say one it stops to cause an outage).
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { portRange, randomFreePort } = require('./ports.js');
const pgCluster = require('../local-platform/lib/pg-cluster.js');

const SCHEMA = path.join(__dirname, '..', 'results-schema.sql');

let own = null; // { dir, url } of the cluster this process started

/** The test cluster's superuser URL: scripts/test.sh's, else this process's own in `range` of ports.json. */
async function testCluster(range) {
  if (process.env.CFSCALE_TEST_PG_URL) return process.env.CFSCALE_TEST_PG_URL;
  if (!own) {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), `cfscale-${range}-pg-`));
    own = { dir, url: pgCluster.start(dir, { port: await randomFreePort(...portRange(range)) }) };
  }
  return own.url;
}

/** Stop and remove the cluster this process started (nothing under scripts/test.sh). */
function stopOwnCluster() {
  if (!own) return;
  pgCluster.stop(own.dir);
  fs.rmSync(own.dir, { recursive: true, force: true });
  own = null;
}

/** The URL of database `name` in the cluster of `url`. */
function databaseUrl(url, name) {
  const u = new URL(url);
  u.pathname = `/${name}`;
  return u.toString();
}

function testDatabases(pg, range) {
  /** One statement on a connection of its own. */
  async function query(url, sql, params) {
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      return await client.query(sql, params);
    } finally {
      await client.end();
    }
  }
  const cluster = () => testCluster(range);
  const adminOf = new Map(); // a database's URL → its cluster's superuser URL
  const applyResultsSchema = (url) => query(url, fs.readFileSync(SCHEMA, 'utf8'));

  async function fresh(name, { results = false, adminUrl } = {}) {
    const admin = adminUrl ?? await cluster();
    await query(admin, `DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
    await query(admin, `CREATE DATABASE "${name}"`);
    const url = databaseUrl(admin, name);
    adminOf.set(url, admin);
    if (results) await applyResultsSchema(url);
    return url;
  }

  const create = (prefix, opts) => fresh(`${prefix}_${process.pid}_${Math.random().toString(36).slice(2, 8)}`, opts);
  async function drop(url, { adminUrl } = {}) {
    const name = new URL(url).pathname.slice(1);
    await query(adminUrl ?? adminOf.get(url) ?? await cluster(), `DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
    adminOf.delete(url);
  }

  return {
    /** A new database of its own for a test file: { url, adminUrl, close() } (dropped, the own cluster stopped). */
    async open(prefix, { results = true } = {}) {
      const url = await create(prefix, { results });
      return {
        url,
        adminUrl: adminOf.get(url),
        async close() {
          await drop(url);
          stopOwnCluster();
        },
      };
    },
    cluster,
    query,
    applyResultsSchema,
    fresh,
    create,
    drop,
    stopOwnCluster,
  };
}

module.exports = { testDatabases, testCluster, stopOwnCluster, databaseUrl };
