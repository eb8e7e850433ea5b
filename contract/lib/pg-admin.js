// pg-admin.js — databases and clusters for the lifecycle tests: fresh databases in a
// running cluster (superuser URL), the results schema, and a dedicated cluster that a
// test may stop and start (pg-cluster.js) to cause a real outage.
'use strict';

const fs = require('node:fs');
const path = require('node:path');
const { withClient } = require('./app-db');
const { ROOT } = require('./app-process');

const pgCluster = require('../../local-platform/lib/pg-cluster.js');
const SCHEMA = path.join(ROOT, 'results-schema.sql');

function urlFor(superUrl, dbName) {
  const u = new URL(superUrl);
  u.pathname = `/${dbName}`;
  return u.toString();
}

/** Drop and create database `name`; with `results`, apply results-schema.sql. Returns its URL. */
async function freshDatabase(superUrl, name, { results = false } = {}) {
  await withClient(superUrl, async (c) => {
    await c.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
    await c.query(`CREATE DATABASE "${name}"`);
  });
  const url = urlFor(superUrl, name);
  if (results) await withClient(url, (c) => c.query(fs.readFileSync(SCHEMA, 'utf8')));
  return url;
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

module.exports = { freshDatabase, startCluster, stopCluster, urlFor, urlParts };
