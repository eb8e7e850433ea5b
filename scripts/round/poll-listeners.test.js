'use strict';
// poll-listeners.test.js — the round helpers' poll loops leave no abort listener per
// iteration on the round's one AbortSignal (a leak made Node print
// MaxListenersExceededWarning during every round). Real PostgreSQL, the real loops.
const test = require('node:test');
const assert = require('node:assert/strict');
const { getEventListeners } = require('node:events');
const { Client } = require('pg');
const { testDatabases } = require('../../lib/test-db');
const { sleep } = require('../ops/sleep');
const { createRound, NotReadyError } = require('./create-round');
const { waitRound } = require('./wait-round');
const testDbs = testDatabases(require('pg'), 'cf');

let testDb;
let db;
const warnings = [];
const onWarning = (w) => warnings.push(w);

test.before(async () => {
  testDb = await testDbs.open('cfscale_poll');
  db = new Client({ connectionString: testDb.url });
  await db.connect();
  process.on('warning', onWarning);
});

test.after(async () => {
  process.off('warning', onWarning);
  await db.end();
  await testDb.close();
});

test('sleep leaves no listener after its timer, and ends early on abort', async () => {
  const abort = new AbortController();
  for (let i = 0; i < 30; i++) await sleep(1, abort.signal);
  assert.equal(getEventListeners(abort.signal, 'abort').length, 0);
  const t0 = Date.now();
  const pending = sleep(60000, abort.signal);
  abort.abort();
  await pending;
  assert.ok(Date.now() - t0 < 1000);
  await sleep(60000, abort.signal); // already aborted: at once
});

test('create-round waiting for absent loadgens polls without piling up abort listeners', async () => {
  warnings.length = 0;
  const abort = new AbortController();
  // READY_POLL_MS is 100: about 15 polls.
  await assert.rejects(createRound(db, { platform: 'local' }, { startLeadMs: 0, waitLoadgens: 1, readyTimeoutMs: 1500, signal: abort.signal }),
    NotReadyError);
  assert.equal(getEventListeners(abort.signal, 'abort').length, 0);
  assert.deepEqual(warnings.map(String), []);
});

test('wait-round polling until its deadline leaves no abort listeners behind', async () => {
  warnings.length = 0;
  const { rows } = await db.query(
    'INSERT INTO rounds (platform, app, target_url, app_instances, loadgens, model, parallel, duration_ms, start_at) '
    + "VALUES ('local', 'node-app', 'http://x', 1, 1, 'closed', 1, 60000, now()) RETURNING id");
  const abort = new AbortController();
  const code = await waitRound(db, { round: Number(rows[0].id), deadlineMs: 800, pollMs: 20, progressMs: 100000, signal: abort.signal });
  assert.equal(code, 2);
  assert.equal(getEventListeners(abort.signal, 'abort').length, 0);
  assert.deepEqual(warnings.map(String), []);
});
