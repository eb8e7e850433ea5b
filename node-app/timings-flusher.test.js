'use strict';
// timings-flusher.test.js — flush against a real results database: batches of COPY, the
// buffer emptied by what was written, kept when the results database is unavailable, and
// kept through an outage until a flush has worked.

const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const t = require('./test-support');
const { TimingBuffer, ROUTE_LIST_ADS } = require('./timing-buffer');
const { createTimingsService, FLUSH_BATCH_ROWS } = require('./timings-flusher');
const { connectionFromUrl } = require('./bindings');
const { startLostAckProxy } = require('../scripts/test-support/lost-ack-proxy');

const pgCluster = require('../local-platform/lib/pg-cluster.js');

let resultsDb;

test.before(async () => {
  resultsDb = await t.db.create('nodeapp_flush', { results: true });
});

test.after(async () => {
  if (resultsDb) await t.db.drop(resultsDb);
  t.db.stopOwnCluster();
});

function filledBuffer(n, capacity = n) {
  const b = new TimingBuffer(capacity, true);
  const t0 = Date.UTC(2026, 10, 21, 13, 0, 0) * 1000;
  for (let i = 0; i < n; i++) b.record(`corr-${i}`, ROUTE_LIST_ADS, 200, t0 + i, 100 + i, 5, 50);
  return b;
}

function service(buffer, results) {
  return createTimingsService({ buffer, results, appName: 'flush-test', instanceIndex: 4, connectTimeoutMs: 1000 });
}

test('flush writes every record in batches, empties the buffer and resets dropped', async () => {
  const n = 2 * FLUSH_BATCH_ROWS + 17;
  const buffer = filledBuffer(n, n);
  buffer.record('over', ROUTE_LIST_ADS, 200, 0, 0, 0, 0); // dropped: the buffer is full
  const s = service(buffer, connectionFromUrl(resultsDb, 'test'));
  try {
    const round = await t.insertRound(resultsDb, 'flush-test');
    assert.deepEqual(await s.run('flush', round), { flushed: n });
    assert.deepEqual(await s.run('state'), { recording: true, count: 0, dropped: 0, capacity: n });
    const { rows } = await t.db.query(
      resultsDb,
      'SELECT count(*)::int AS n, min(handler_us)::int AS lo, max(handler_us)::int AS hi, ' +
        'count(DISTINCT correlation_id)::int AS ids, min(started_at) AS first FROM server_timings ' +
        `WHERE round_id = ${round} AND app = 'flush-test' AND instance_index = 4 AND route = 'GET /ads'`,
    );
    assert.deepEqual({ ...rows[0], first: rows[0].first.toISOString() }, { n, lo: 100, hi: 100 + n - 1, ids: n, first: '2026-11-21T13:00:00.000Z' });
  } finally {
    await s.end();
  }
});

// The round a flush files its rows under: running or just finished for this app, else refused
// with nothing written and the buffer kept (round_takes_timings in results-schema.sql).
test('flush files rows only under a round running or just finished for this app', async () => {
  const cases = [
    ['pending, heartbeat fresh', 'flush-test', {}, true],
    ['running', 'flush-test', { status: 'running' }, true],
    ['done a minute ago', 'flush-test', { status: 'done', finishedSecAgo: 60 }, true],
    ['failed a minute ago', 'flush-test', { status: 'failed', finishedSecAgo: 60 }, true],
    ['done 11 minutes ago', 'flush-test', { status: 'done', finishedSecAgo: 660 }, false],
    ['cancelled an hour ago', 'flush-test', { status: 'cancelled', finishedSecAgo: 3600 }, false],
    ['pending, its control process gone (heartbeat 5 minutes old)', 'flush-test', { heartbeatSecAgo: 300 }, false],
    ["another app's running round", 'other-app', {}, false],
  ];
  for (const [name, app, round, takes] of cases) {
    const id = await t.insertRound(resultsDb, app, round);
    const buffer = filledBuffer(5);
    const s = service(buffer, connectionFromUrl(resultsDb, 'test'));
    try {
      assert.deepEqual(await s.run('flush', id), takes ? { flushed: 5 } : { error: 'round-refused' }, name);
      assert.equal(buffer.count, takes ? 0 : 5, `${name}: buffer`);
      const { rows } = await t.db.query(resultsDb, `SELECT count(*)::int AS n FROM server_timings WHERE round_id = ${id}`);
      assert.equal(rows[0].n, takes ? 5 : 0, `${name}: rows`);
    } finally {
      await s.end();
    }
  }
  const s = service(filledBuffer(2), connectionFromUrl(resultsDb, 'test'));
  try {
    assert.deepEqual(await s.run('flush', '9223372036854775807'), { error: 'round-refused' }, 'a round that does not exist');
  } finally {
    await s.end();
  }
});

test('flush with the results database unreachable keeps the buffer', async () => {
  const buffer = filledBuffer(10);
  const port = await t.freePort();
  const s = service(buffer, connectionFromUrl(`postgres://nobody:x@127.0.0.1:${port}/none`, 'test'));
  try {
    assert.deepEqual(await s.run('flush', null), { error: 'results-unavailable' });
    assert.equal(buffer.count, 10);
  } finally {
    await s.end();
  }
});

test('flush without a results database configured keeps the buffer', async () => {
  const buffer = filledBuffer(3);
  const s = service(buffer, null);
  assert.deepEqual(await s.run('flush', null), { error: 'results-unavailable' });
  assert.equal(buffer.count, 3);
  assert.deepEqual(await s.run('clear'), { cleared: 3 });
  assert.equal(buffer.count, 0);
});

// A results database that goes away and comes back (nothing lost): a cluster of our own
// (local-platform/lib/pg-cluster.js), stopped with a fast shutdown and started again.
test('flushes while the results database is stopped keep every record; the first after it is back writes them all, once', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cfscale-node-flush-outage-'));
  const port = await t.freePortInRange();
  pgCluster.start(dir, { port });
  const url = pgCluster.createdb(dir, 'results');
  await t.db.applyResultsSchema(url);
  const round = await t.insertRound(url, 'flush-test');
  const buffer = filledBuffer(300, 1000);
  const s = service(buffer, connectionFromUrl(url, 'test'));
  try {
    pgCluster.stop(dir);
    try {
      assert.deepEqual(await s.run('flush', round), { error: 'results-unavailable' });
      assert.equal(buffer.count, 300);
      for (let i = 0; i < 20; i++) buffer.record(`during-${i}`, ROUTE_LIST_ADS, 200, 1, 2, 3, 4);
      assert.deepEqual(await s.run('flush', round), { error: 'results-unavailable' });
      assert.equal(buffer.count, 320);
    } finally {
      pgCluster.start(dir, { port });
    }
    assert.deepEqual(await s.run('flush', round), { flushed: 320 });
    assert.equal(buffer.count, 0);
    assert.deepEqual(await s.run('flush', round), { flushed: 0 });
    const { rows } = await t.db.query(url, `SELECT count(*)::int AS n, count(DISTINCT correlation_id)::int AS d FROM server_timings WHERE round_id = ${round}`);
    assert.deepEqual(rows[0], { n: 320, d: 320 });
  } finally {
    await s.end();
    pgCluster.stop(dir);
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

// A batch whose commit was not answered (nothing doubled): the proxy drops the
// connection after the server committed the second batch, before its answer reaches the app.
test('a batch committed whose answer was lost is not written again by the next flush', async () => {
  const u = new URL(resultsDb);
  const proxy = await startLostAckProxy({ host: u.hostname, port: Number(u.port), tag: /^COMMIT/ });
  const n = 2 * FLUSH_BATCH_ROWS + 5;
  const buffer = filledBuffer(n, 2 * n);
  const viaProxy = new URL(resultsDb);
  viaProxy.port = String(proxy.port);
  const s = service(buffer, connectionFromUrl(viaProxy.toString(), 'test'));
  const round = await t.insertRound(resultsDb, 'flush-test');
  const count = async () => (await t.db.query(resultsDb,
    `SELECT count(*)::int AS n, count(DISTINCT correlation_id)::int AS d FROM server_timings WHERE round_id = ${round}`)).rows[0];
  try {
    assert.deepEqual(await s.run('flush', round), { error: 'results-unavailable' });
    assert.equal(proxy.losses(), 1);
    assert.deepEqual(await count(), { n: FLUSH_BATCH_ROWS, d: FLUSH_BATCH_ROWS }, 'the first batch is in, its answer lost');
    assert.equal(buffer.count, n, 'the buffer keeps the records whose write is not known');
    for (let i = 0; i < 3; i++) buffer.record(`after-${i}`, ROUTE_LIST_ADS, 200, 1, 2, 3, 4);
    assert.deepEqual(await s.run('flush', round), { flushed: n + 3 });
    assert.equal(buffer.count, 0);
    assert.deepEqual(await count(), { n: n + 3, d: n + 3 });
  } finally {
    await s.end();
    await proxy.close();
  }
});
