'use strict';
// round-outage.test.js — what keeps a round whole through a results-database outage and
// keeps no round pending for ever, against a real PostgreSQL with the real schema: the results-db.js
// Connection rides out its backend being terminated (57P01, what a fast shutdown sends) and
// counts the time away; connection errors are told from statement errors; the heartbeat;
// reap-rounds (and `rounds.sh --reap`'s helper) marks failed, with the reason, exactly the
// rounds whose control process is gone; finish-round records the outage and the reason.
const test = require('node:test');
const assert = require('node:assert/strict');
const { Client } = require('pg');
const { testDatabases } = require('../../lib/test-db');
const { BACKOFF_MIN_MS, Connection, isConnectionError } = require('../ops/results-db');
const { startHeartbeat } = require('./heartbeat');
const { reapRounds, printReaped } = require('./reap-rounds');
const { captureStdout } = require('../test-support/capture-stdout');
const { finishRound } = require('./finish-round');
const testDbs = testDatabases(require('pg'), 'cf');

let testDb;
let db;

test.before(async () => {
  testDb = await testDbs.open('cfscale_outage');
  db = new Client({ connectionString: testDb.url });
  await db.connect();
});

test.after(async () => {
  await db.end();
  await testDb.close();
});

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

async function insertRound(fields = {}) {
  const f = { status: 'pending', created: '0 s', heartbeat: null, ...fields };
  const { rows } = await db.query(`INSERT INTO rounds (platform, app, target_url, app_instances, loadgens, model, parallel,
      duration_ms, status, created_at, start_at, heartbeat_at)
    VALUES ('local', 'node-app', 'http://127.0.0.1:1', 1, 1, 'closed', 1, 1000, $1,
      now() - $2::interval, now() - $2::interval, now() - $3::interval) RETURNING id`, [f.status, f.created, f.heartbeat]);
  return Number(rows[0].id);
}

test('isConnectionError: lost or refused connections yes, statement errors no', () => {
  const cases = [
    [{ code: '57P01', message: 'terminating connection due to administrator command' }, true],
    [{ code: '57P03', message: 'the database system is starting up' }, true],
    [{ code: '08006', message: 'connection failure' }, true],
    [{ code: '53300', message: 'too many connections' }, true],
    [{ code: 'ECONNREFUSED', message: 'connect ECONNREFUSED 127.0.0.1:5432' }, true],
    [new Error('Connection terminated unexpectedly'), true],
    [new Error('Client was closed and is not queryable'), true],
    [{ code: '42601', message: 'syntax error at or near "SELEC"' }, false],
    [{ code: '28P01', message: 'password authentication failed' }, false],
    [{ code: '3D000', message: 'database "x" does not exist' }, false],
    [new TypeError('x is not a function'), false],
  ];
  for (const [err, want] of cases) assert.equal(isConnectionError(err), want, JSON.stringify(err.message));
});

test('Connection: a terminated backend (57P01) is reconnected and the statement retried; the time away is counted', async () => {
  const lines = [];
  const conn = new Connection(testDb.url, 'outage-test', { retryForMs: 10000, log: (l) => lines.push(l) });
  try {
    const pid = (await conn.query('SELECT pg_backend_pid() AS pid')).rows[0].pid;
    await db.query('SELECT pg_terminate_backend($1)', [pid]);
    await sleep(100); // the idle connection gets its 57P01 'error' event: must not crash the process
    const again = (await conn.query('SELECT pg_backend_pid() AS pid')).rows[0].pid;
    assert.notEqual(again, pid);
    // Terminated while a statement runs: that statement is run again on a new connection.
    const slow = conn.query('SELECT pg_sleep(0.5), pg_backend_pid() AS pid');
    await sleep(150);
    await db.query('SELECT pg_terminate_backend($1)', [again]);
    const third = (await slow).rows[0].pid;
    assert.ok(third !== again && third !== pid);
    // The killed statement waited a backoff before its retry, and that time away is counted
    // (half of it: a timer may fire a millisecond before Date.now() says it is due).
    assert.ok(conn.downMs >= BACKOFF_MIN_MS / 2, `downMs ${conn.downMs}`);
    assert.match(lines.join('\n'), /results database unreachable \(.*\): retrying for up to 10 s/);
    assert.match(lines.join('\n'), /results database back after \d+\.\d s/);
    // A statement error is not retried.
    await assert.rejects(conn.query('SELEC 1'), /syntax error/);
  } finally {
    await conn.end();
  }
});

test('Connection: gives up after retryForMs when the database stays away', async () => {
  const conn = new Connection('postgres://u:p@127.0.0.1:1/none', 'outage-test', { retryForMs: 600 });
  const t0 = Date.now();
  await assert.rejects(conn.query('SELECT 1'), /ECONNREFUSED/);
  const ms = Date.now() - t0;
  assert.ok(ms >= 250 && ms < 3000, `${ms} ms`);
  await conn.end();
});

test('heartbeat: heartbeat_at is written at once and then every interval', async () => {
  const id = await insertRound({ heartbeat: '1 hour' });
  const beat = async () => (await db.query('SELECT extract(epoch FROM now() - heartbeat_at) AS age_s FROM rounds WHERE id = $1', [id])).rows[0].age_s;
  const hb = startHeartbeat(db, id, { intervalMs: 100 });
  await sleep(50);
  assert.ok(Number(await beat()) < 1);
  const first = (await db.query('SELECT heartbeat_at FROM rounds WHERE id = $1', [id])).rows[0].heartbeat_at;
  await sleep(300);
  hb.stop();
  const later = (await db.query('SELECT heartbeat_at FROM rounds WHERE id = $1', [id])).rows[0].heartbeat_at;
  assert.ok(later > first);
});

test('reap-rounds: only rounds not final whose heartbeat (or, without one, creation) is older than the timeout', async () => {
  const stale = await insertRound({ heartbeat: '10 minutes' });
  const staleRunning = await insertRound({ status: 'running', heartbeat: '3 minutes' });
  const neverBeat = await insertRound({ created: '1 day' });
  const alive = await insertRound({ heartbeat: '5 s' });
  const fresh = await insertRound({});
  const done = await insertRound({ status: 'done', heartbeat: '1 day' });
  const reaped = await reapRounds(db);
  assert.deepEqual(reaped.map((r) => r.id), [stale, staleRunning, neverBeat]);
  assert.match(reaped[0].status_reason, /^control process gone: no heartbeat since \d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ \(run-round stopped before the round was final\)$/);
  const { rows } = await db.query('SELECT id, status, finished_at IS NOT NULL AS finished FROM rounds WHERE id = ANY($1) ORDER BY id',
    [[stale, staleRunning, neverBeat, alive, fresh, done]]);
  assert.deepEqual(rows.map((r) => [Number(r.id), r.status, r.finished]), [
    [stale, 'failed', true], [staleRunning, 'failed', true], [neverBeat, 'failed', true],
    [alive, 'pending', false], [fresh, 'pending', false], [done, 'done', false]]);
  assert.deepEqual(await reapRounds(db), []);
});

test('printReaped (rounds.sh --reap): one line per round reaped', async () => {
  const id = await insertRound({ heartbeat: '1 hour' });
  const out = await captureStdout(() => printReaped(testDb.url));
  assert.equal(out.split('\n')[0].startsWith(`round ${id}: failed: control process gone: no heartbeat since `), true, out);
  assert.match(out, /^reap-rounds: 1 round\(s\) reaped$/m);
});

test('finish-round: the outage is recorded and shown, the reasons stored with the status', async () => {
  const id = await insertRound({ heartbeat: '1 s' });
  const res = await finishRound(db, { round: id, dbOutageMs: 20400 });
  assert.equal(res.code, 2);
  assert.match(res.text, /^results database: unreachable for 20\.4 s during the round \(writes held and made once it was back\)$/m);
  const { rows } = await db.query('SELECT status, status_reason, db_outage_ms FROM rounds WHERE id = $1', [id]);
  assert.deepEqual(rows[0], { status: 'failed', status_reason: 'loadgen 0 never started; no samples', db_outage_ms: '20400' });
  const v = await db.query('SELECT db_outage_ms FROM report_round_overview WHERE round_id = $1', [id]);
  assert.equal(v.rows[0].db_outage_ms, '20400');
});
