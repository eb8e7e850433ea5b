'use strict';
// db.js — one connection to the results database for a round helper. The URL comes from
// the caller (scripts pass the local results-db's service key or RESULTS_DATABASE_URL) and is
// never logged. Its sslmode (and sslrootcert) mean what they mean to libpq and psql
// (cf/bindings.js): require encrypts without verifying the certificate.
//
// `pg` is required when the first connection is made, not when this module loads:
// run-round loads it before its first step, and on a fresh clone that step is the one
// that installs the npm packages (ops/apps.js localPlatformUp runs scripts/setup.sh).

const CONNECT_TIMEOUT_MS = 10000;

async function connect(url, name) {
  const { Client } = require('pg');
  const { connectionFromUrl, pgConfig } = require('../cf/bindings');
  const client = new Client({
    ...pgConfig(connectionFromUrl(url, 'the results database URL')),
    application_name: `cfscale-${name}`,
    connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
  });
  await client.connect();
  return client;
}

/**
 * fn(client) on a fresh connection, closed afterwards: { ok: true, value } or, when the
 * connection or fn failed, { ok: false, error } after `NAME: results database: MESSAGE` on
 * stderr (quiet: no message).
 */
async function tryWithClient(url, name, fn, { quiet = false } = {}) {
  let client;
  try {
    client = await connect(url, name);
    return { ok: true, value: await fn(client) };
  } catch (error) {
    if (!quiet) process.stderr.write(`${name}: results database: ${error.message}\n`);
    return { ok: false, error };
  } finally {
    if (client) await client.end().catch(() => {});
  }
}

/** Run fn(client) with a fresh connection; a failure is one line on stderr and exit 1. */
async function withClient(url, name, fn) {
  const res = await tryWithClient(url, name, fn);
  if (!res.ok) process.exit(1);
  return res.value;
}

module.exports = { connect, tryWithClient, withClient };
