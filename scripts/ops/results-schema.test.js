'use strict';
// results-schema.test.js — lib/results-schema.js on real PostgreSQL: an empty database (what a
// foundation's broker hands out) gets results-schema.sql; a current one is left alone; one
// made from an older file (a view that changed since) gets the current views again; two
// callers at once apply it once.
const test = require('node:test');
const assert = require('node:assert/strict');
const { Client } = require('pg');
const { testDatabases } = require('../../lib/test-db');
const { ensureResultsSchema, SCHEMA_VERSION } = require('../../lib/results-schema');
const testDbs = testDatabases(require('pg'), 'cf');

let db;
const clients = [];
async function client() {
  const c = new Client({ connectionString: db.url });
  await c.connect();
  clients.push(c);
  return c;
}
const q = (c) => (text, params) => c.query(text, params);

test.before(async () => { db = await testDbs.open('schema'); });
test.after(async () => {
  for (const c of clients) await c.end().catch(() => {});
  await db.close();
});

test('an empty database gets the schema; a current one nothing; an older one the current views', async () => {
  const c = await client();
  // The test database came with the file applied; an empty database is one without it.
  await c.query('DROP SCHEMA public CASCADE; CREATE SCHEMA public');
  assert.equal(await ensureResultsSchema(q(c)), true);
  assert.equal((await c.query("SELECT to_regclass('rounds') IS NOT NULL AS t")).rows[0].t, true);
  assert.deepEqual((await c.query('SELECT version FROM cfscale_schema')).rows, [{ version: SCHEMA_VERSION }]);
  assert.equal(await ensureResultsSchema(q(c)), false, 'current: nothing applied');
  // A database from an older file: a view without its newest column, another version.
  await c.query('DROP VIEW report_round_overview CASCADE; CREATE VIEW report_round_overview AS SELECT id AS round_id FROM rounds');
  await c.query("UPDATE cfscale_schema SET version = 'older'");
  assert.equal(await ensureResultsSchema(q(c)), true);
  const cols = (await c.query("SELECT count(*)::int AS n FROM information_schema.columns WHERE table_name = 'report_round_overview'")).rows[0].n;
  assert.ok(cols > 10, `report_round_overview has ${cols} columns`);
});

test('two callers at once: one applies, the other finds it current', async () => {
  const [a, b] = [await client(), await client()];
  await a.query("UPDATE cfscale_schema SET version = 'older'");
  const applied = await Promise.all([ensureResultsSchema(q(a)), ensureResultsSchema(q(b))]);
  assert.deepEqual(applied.sort(), [false, true]);
  assert.deepEqual((await a.query('SELECT version FROM cfscale_schema')).rows, [{ version: SCHEMA_VERSION }]);
});
