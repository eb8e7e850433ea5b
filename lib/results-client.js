// results-client.js — one connected node-postgres client on the results database, for every
// part that reads or writes it. The caller passes its own `pg` (each part has its own
// node_modules); the URL means what it means to libpq (lib/bindings.js) and is never logged.
'use strict';
const { connectionFromUrl, pgConfig } = require('./bindings.js');

const CONNECT_TIMEOUT_MS = 10_000;
const NUMERIC_OIDS = new Set([20, 1700]); // int8, numeric

/**
 * A connected client on `url` as application cfscale-NAME. numbers: bigint and numeric columns
 * read as JS numbers (counts and microseconds fit in 2^53), for this client only.
 */
async function connectResults(pg, url, name, { numbers = false } = {}) {
  const types = numbers
    ? { getTypeParser: (oid, format) => (NUMERIC_OIDS.has(oid) && format !== 'binary' ? Number : pg.types.getTypeParser(oid, format)) }
    : undefined;
  const client = new pg.Client({
    ...pgConfig(connectionFromUrl(url, 'the results database URL')),
    application_name: `cfscale-${name}`,
    connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
    ...(types && { types }),
  });
  // A connection that breaks while idle emits 'error'; unhandled it would end the process.
  client.on('error', () => {});
  try {
    await client.connect();
  } catch (err) {
    client.end().catch(() => {});
    throw err;
  }
  return client;
}

module.exports = { connectResults };
