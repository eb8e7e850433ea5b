'use strict';
// The loadgen's one results-database connection (lib/results-db.js) on a real PostgreSQL:
// work takes turns (a query asked for during a sink transaction runs after it, never in
// it), LISTEN and the advertised state survive a lost connection.
const test = require('node:test');
const assert = require('node:assert');
const { ResultsDb } = require('../lib/results-db');
const { testCluster, stopTestCluster, createDatabase, query, sleep, waitFor } = require('./helpers');

test.after(stopTestCluster);

test('results-db: a query asked for during a transaction runs after it, not inside it', async (t) => {
  const url = await createDatabase(await testCluster());
  const db = new ResultsDb(url, { index: 7 });
  t.after(() => db.close());
  const order = [];
  const tx = db.exclusive(async (c) => {
    await c.query('BEGIN');
    await c.query('CREATE TEMP TABLE t (x int)');
    order.push('tx open');
    await sleep(200);
    await c.query('ROLLBACK');
    order.push('tx closed');
  });
  const q = db.query('SELECT pg_current_xact_id_if_assigned() IS NULL AS outside').then((r) => { order.push('query'); return r.rows[0].outside; });
  assert.strictEqual(await q, true);
  await tx;
  assert.deepStrictEqual(order, ['tx open', 'tx closed', 'query']);
});

test('results-db: one connection; after it is killed the next turn reconnects with LISTEN and the state', async (t) => {
  const url = await createDatabase(await testCluster());
  const db = new ResultsDb(url, { index: 7 });
  t.after(() => db.close());
  const notes = [];
  db.onNotify = (payload) => notes.push(payload);
  await db.query('SELECT 1');
  await db.setState('busy');
  const mine = "SELECT pid, application_name FROM pg_stat_activity WHERE datname = current_database() AND application_name LIKE 'cfscale-loadgen:7:%'";
  const [before] = await query(url, mine);
  assert.strictEqual(before.application_name, 'cfscale-loadgen:7:busy');
  await query(url, 'SELECT pg_terminate_backend($1)', [before.pid]);
  await waitFor(() => db.client === null, 5000, 'the loss noticed');
  await db.query('SELECT 1');
  const after = await query(url, mine);
  assert.strictEqual(after.length, 1, 'one connection');
  assert.notStrictEqual(after[0].pid, before.pid);
  assert.strictEqual(after[0].application_name, 'cfscale-loadgen:7:busy');
  await query(url, "SELECT pg_notify('cfscale_rounds', '42')");
  await waitFor(() => notes.includes('42'), 5000, 'NOTIFY after reconnecting');
});
