// pg.js (test helper) — a fresh results database for a report test (lib/test-db.js: a database
// in scripts/test.sh's cluster, else in a cluster of our own in the `report` range of
// ports.json), with the report's own client on it: numbers read as the report reads them; with a
// scratch directory, for the whole of a test file (testDatabaseAndDir).
'use strict';
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { after, before } = require('node:test');
const pg = require('pg');
const { testDatabases } = require('../../../lib/test-db.js');
const { connect } = require('../../lib/report/results-db.js');

const testDbs = testDatabases(pg, 'report');

/** A new database with the schema: {url, client, drop()}. */
async function testDatabase(tag) {
  const url = await testDbs.create(`cfscale_report_${tag}`, { results: true });
  const client = await connect(url);
  await client.query('SET client_min_messages = warning');
  return {
    url, client,
    async drop() {
      await client.end();
      await testDbs.drop(url);
    },
  };
}

/**
 * A test file's results database and scratch directory (dirPrefix in os.tmpdir()), made before
 * its tests and removed after them: { db, dir }, filled in by the before hook, which then runs
 * setUp(fx) (the file's own before hooks would not wait for it).
 */
function testDatabaseAndDir(tag, dirPrefix, setUp = async () => {}) {
  const fx = { db: null, dir: null };
  before(async () => {
    fx.db = await testDatabase(tag);
    fx.dir = fs.mkdtempSync(path.join(os.tmpdir(), dirPrefix));
    await setUp(fx);
  });
  after(async () => {
    await fx.db.drop();
    testDbs.stopOwnCluster();
    fs.rmSync(fx.dir, { recursive: true, force: true });
  });
  return fx;
}

module.exports = { stopOwnCluster: testDbs.stopOwnCluster, testDatabase, testDatabaseAndDir };
