// pg.js (test helper) — a fresh results database for a report test (lib/test-db.js: a database
// in scripts/test.sh's cluster, else in a cluster of our own in the `report` range of
// ports.json), with the report's own client on it: numbers read as the report reads them.
'use strict';
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

module.exports = { stopOwnCluster: testDbs.stopOwnCluster, testDatabase };
