'use strict';
// results-schema.js — results-schema.sql into a results database, once per version of the
// file. The file is idempotent, so applying it brings any results database to the current
// schema: one a foundation's broker handed out empty, or one made before a view changed. The
// version (a hash of the file) is kept in cfscale_schema; a run finding it current applies
// nothing. Two runs at once take turns (an advisory lock), the second finding it done.
//
// ensureResultsSchema(query) → true when it applied the file, false when it was current.
// query(text, params): a node-postgres client's query, or the scripts' Connection's; its
// statements must run on one connection (a transaction spans them).
const crypto = require('node:crypto');
const fs = require('node:fs');
const path = require('node:path');

const SCHEMA_FILE = path.join(__dirname, '..', 'results-schema.sql');
const SQL = fs.readFileSync(SCHEMA_FILE, 'utf8');
const VERSION = crypto.createHash('sha256').update(SQL).digest('hex').slice(0, 16);
const VERSION_TABLE = 'CREATE TABLE IF NOT EXISTS cfscale_schema (version text NOT NULL)';

async function current(query) {
  const { rows } = await query("SELECT to_regclass('cfscale_schema') IS NOT NULL AS has");
  if (!rows[0].has) return false;
  return (await query('SELECT version FROM cfscale_schema')).rows.some((r) => r.version === VERSION);
}

async function ensureResultsSchema(query) {
  if (await current(query)) return false;
  await query('BEGIN');
  try {
    await query("SELECT pg_advisory_xact_lock(hashtext('cfscale_schema'))");
    if (await current(query)) {
      await query('COMMIT');
      return false;
    }
    await query(SQL);
    await query(VERSION_TABLE);
    await query('DELETE FROM cfscale_schema');
    await query('INSERT INTO cfscale_schema (version) VALUES ($1)', [VERSION]);
    await query('COMMIT');
    return true;
  } catch (e) {
    await query('ROLLBACK').catch(() => {});
    throw e;
  }
}

module.exports = { ensureResultsSchema, SCHEMA_VERSION: VERSION, SCHEMA_FILE };
