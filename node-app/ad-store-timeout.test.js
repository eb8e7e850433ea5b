'use strict';
// ad-store-timeout.test.js — DB_STATEMENT_TIMEOUT_MS on real PostgreSQL, for both drivers
// (pg-native and the pure-JS fallback): a statement the server cancels (statement_timeout)
// and one whose backend is frozen with SIGSTOP (only the client-side query_timeout can end
// it) both fail as 503 within the timeout + 1 s; the pool serves the next statement, on the
// same connection after a cancel and on a new one after the freeze. And a server that
// accepts but never answers: 503 within DB_POOL_TIMEOUT_MS + 1 s.

const net = require('node:net');
const test = require('node:test');
const assert = require('node:assert/strict');
const t = require('./test-support');
const { openAdStore } = require('./ad-store');
const { connectionFromUrl } = require('./bindings');

const STATEMENT_TIMEOUT_MS = 300;
const DEADLINE_MS = STATEMENT_TIMEOUT_MS + 1000; // contract "Database trouble"
// Without the bounds a statement would hang for ever: fail the test instead.
const TEST_TIMEOUT_MS = 15000;
const DRIVERS = [
  { name: 'native', native: true },
  { name: 'javascript', native: false },
];

let appDb;
// Backends this file has SIGSTOPped and not yet resumed: after() resumes them even when a
// test timed out midway (a stopped backend would also block DROP DATABASE).
const frozen = new Set();

function thaw(pid) {
  frozen.delete(pid);
  try {
    process.kill(pid, 'SIGCONT');
  } catch {
    // already gone
  }
}

test.before(async () => {
  appDb = await t.db.create('nodeapp_timeout');
});

test.after(async () => {
  for (const pid of frozen) thaw(pid);
  if (appDb) await t.db.drop(appDb);
  t.db.stopOwnCluster();
});

function openDb(native, { connectionString = appDb, dbPoolTimeoutMs = 2000, db = connectionFromUrl(connectionString, 'test') } = {}) {
  const config = { db, dbPoolSize: 1, dbPoolTimeoutMs, dbStatementTimeoutMs: STATEMENT_TIMEOUT_MS };
  return openAdStore(config, { logDriver: false, native });
}

/** A TCP server that accepts connections and never answers (a frozen postmaster, a black hole). */
async function blackHole() {
  const sockets = new Set();
  const server = net.createServer((s) => {
    sockets.add(s);
    s.on('error', () => {});
    s.on('close', () => sockets.delete(s));
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `postgres://app:pw@127.0.0.1:${server.address().port}/app`,
    close() {
      for (const s of sockets) s.destroy();
      return new Promise((resolve) => server.close(resolve));
    },
  };
}

const newCtx = () => ({ poolWaitUs: 0, dbUs: 0 });

async function backendPid(db) {
  const { rows } = await db.query(newCtx(), { text: 'SELECT pg_backend_pid() AS pid' });
  return rows[0].pid;
}

/** Run statement and expect a 503 within deadlineMs; returns the elapsed ms. */
async function expectUnavailable(db, text, deadlineMs = DEADLINE_MS) {
  const t0 = Date.now();
  await assert.rejects(db.query(newCtx(), { text }), (err) => {
    assert.equal(err.status, 503, `status of ${err.message}`);
    assert.equal(err.reason, 'database unavailable');
    assert.deepEqual(err.headers, { 'Retry-After': '1' });
    return true;
  });
  const ms = Date.now() - t0;
  assert.ok(ms <= deadlineMs, `answered after ${ms} ms, want <= ${deadlineMs}`);
  return ms;
}

for (const { name, native } of DRIVERS) {
  test(`${name}: a statement over DB_STATEMENT_TIMEOUT_MS is cancelled by the server, 503, and the connection stays`, { timeout: TEST_TIMEOUT_MS }, async () => {
    const db = openDb(native);
    try {
      const pid = await backendPid(db);
      await expectUnavailable(db, 'SELECT pg_sleep(30)');
      assert.equal(await backendPid(db), pid, 'the cancelled connection should stay in the pool');
    } finally {
      await db.end();
    }
  });

  test(`${name}: a frozen backend (SIGSTOP) answers 503 by the client-side timeout, the pool recovers`, { timeout: TEST_TIMEOUT_MS }, async () => {
    const db = openDb(native);
    const pid = await backendPid(db);
    try {
      frozen.add(pid);
      process.kill(pid, 'SIGSTOP');
      await expectUnavailable(db, 'SELECT 1');
      thaw(pid);
      const { rows } = await db.query(newCtx(), { text: 'SELECT 1 AS one' });
      assert.equal(rows[0].one, 1);
    } finally {
      thaw(pid);
      await db.end();
    }
  });

  // Regression: pg-native ended a connect attempt to a server that never answers only at
  // libpq's connect_timeout (at least 2 s), past a shorter DB_POOL_TIMEOUT_MS.
  test(`${name}: a server that accepts but never answers: 503 within DB_POOL_TIMEOUT_MS + 1 s`, { timeout: TEST_TIMEOUT_MS }, async () => {
    const hole = await blackHole();
    const poolTimeoutMs = 300;
    const db = openDb(native, { connectionString: hole.url, dbPoolTimeoutMs: poolTimeoutMs });
    try {
      await expectUnavailable(db, 'SELECT 1', poolTimeoutMs + 1000);
      await expectUnavailable(db, 'SELECT 1', poolTimeoutMs + 1000);
    } finally {
      await hole.close();
      await db.end();
    }
  });

  // Regression: the driver's Client got pg-pool's options by spread, which drops the
  // non-enumerable password: with credentials as parts (VCAP_SERVICES) login failed.
  test(`${name}: connection settings as parts (VCAP_SERVICES credentials) keep the password`, { timeout: TEST_TIMEOUT_MS }, async () => {
    const u = new URL(appDb);
    const parts = { host: u.hostname, port: Number(u.port), database: u.pathname.slice(1), user: decodeURIComponent(u.username), password: decodeURIComponent(u.password), sslmode: 'disable', ca: null };
    const db = openDb(native, { db: parts });
    try {
      const { rows } = await db.query(newCtx(), { text: 'SELECT 1 AS one' });
      assert.equal(rows[0].one, 1);
    } finally {
      await db.end();
    }
  });
}
