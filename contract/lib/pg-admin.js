// pg-admin.js — databases and clusters for the lifecycle tests: fresh databases in a
// running cluster (superuser URL; lib/test-db.js makes them), the results schema, and a
// dedicated cluster that a test may stop and start (pg-cluster.js) to cause a real outage.
'use strict';

const pg = require('pg');
const { testDatabases, databaseUrl } = require('../../lib/test-db');

const pgCluster = require('../../local-platform/lib/pg-cluster.js');
const testDbs = testDatabases(pg, 'contract');

/** Drop and create database `name`; with `results`, apply results-schema.sql. Returns its URL. */
function freshDatabase(superUrl, name, { results = false } = {}) {
  return testDbs.fresh(name, { results, adminUrl: superUrl });
}

/** Start (initialising when needed) the cluster in `dir`; returns its superuser URL. */
function startCluster(dir, port) {
  return pgCluster.start(dir, { port });
}

function stopCluster(dir) {
  pgCluster.stop(dir);
}

/** The parts of a postgres URL (for building VCAP_SERVICES credentials). */
function urlParts(url) {
  const u = new URL(url);
  return { host: u.hostname, port: u.port, user: decodeURIComponent(u.username), password: decodeURIComponent(u.password), db: u.pathname.slice(1) };
}

module.exports = { freshDatabase, startCluster, stopCluster, urlFor: databaseUrl, urlParts };
