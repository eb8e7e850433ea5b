'use strict';
// create-round-lost-ack.test.js — the round INSERT's acknowledgement is lost after the
// commit (a real PostgreSQL behind scripts/test-support/lost-ack-proxy.js): the reconnecting
// connection (db.js) runs it again, and there is still one round, the one answered.

const test = require('node:test');
const assert = require('node:assert/strict');
const { Client } = require('pg');
const { testDatabases } = require('../../lib/test-db');
const { startLostAckProxy } = require('../test-support/lost-ack-proxy');
const { Connection } = require('../ops/results-db');
const { createRound } = require('./create-round');
const testDbs = testDatabases(require('pg'), 'cf');

const ROUND = {
  platform: 'local', app: 'node-app', target_url: 'http://127.0.0.1:1/', app_instances: 1, loadgens: 1,
  model: 'closed', parallel: 1, duration_ms: 1000, warmup_ms: 0, timeout_ms: 1000, label: 'lost-ack',
};

test('a round INSERT retried after its lost acknowledgement makes one round', async () => {
  const testDb = await testDbs.open('cfscale_lostack');
  const u = new URL(testDb.url);
  const proxy = await startLostAckProxy({ host: u.hostname, port: Number(u.port), tag: /^(SELECT|INSERT)/ });
  const viaProxy = new URL(testDb.url);
  viaProxy.port = String(proxy.port);
  const conn = new Connection(viaProxy.toString(), 'lost-ack-test', { retryForMs: 10000 });
  const db = new Client({ connectionString: testDb.url });
  await db.connect();
  try {
    const created = await createRound(conn, ROUND, { startLeadMs: 1000 });
    assert.equal(proxy.losses(), 1, 'the first acknowledgement was lost');
    const { rows } = await db.query("SELECT id FROM rounds WHERE label = 'lost-ack'");
    assert.deepEqual(rows.map((r) => Number(r.id)), [created.id]);
  } finally {
    await conn.end();
    await db.end();
    await proxy.close();
    await testDb.close();
  }
});
