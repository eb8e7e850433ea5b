// lifecycle.test.js — what an app does over its life, per variant: a real database outage
// and recovery, a frozen database (SIGSTOP) and a statement held by a lock (statement
// timeout), and SIGTERM with requests in flight. It starts its own app processes (and, for
// the outage and the freeze, its own PostgreSQL cluster in CONTRACT_OUTAGE_DIR).
//   CONTRACT_VARIANT   e.g. node-raw | java (names databases and the app)
//   CONTRACT_APP_CMD   e.g. "node node-app/server.js", run in the repo root
//   CONTRACT_APP_ENV   the variant's settings, e.g. "APP_FRAMEWORK=express"
//   CONTRACT_PG_URL    superuser URL of a running cluster (databases for the SIGTERM test)
//   CONTRACT_OUTAGE_DIR  dir of the cluster this test starts and stops (run.sh: in its temp dir)
//   CONTRACT_CONTROL_TOKEN  the CONTROL_TOKEN the apps are started with
// Run by contract/run.sh.
'use strict';

const fs = require('node:fs');
const path = require('node:path');
const { describe, test, after } = require('node:test');
const { send, RawConnection, probeConnect } = require('./lib/raw-http');
const { checkResponse, show } = require('./lib/check');
const { report } = require('./lib/runner');
const { withClient } = require('./lib/app-db');
const { AppProcess, freePort, parseEnvList } = require('./lib/app-process');
const { freshDatabase, startCluster, stopCluster, urlParts } = require('./lib/pg-admin');
const { controlToken, controlHeaders, isControlPath, insertRound } = require('./lib/control');
const { waitDatabaseReady } = require('./lib/wait-ready');

const VARIANT = process.env.CONTRACT_VARIANT || 'node-raw';
const CMD = (process.env.CONTRACT_APP_CMD || 'node node-app/server.js').split(/\s+/);
const VARIANT_ENV = parseEnvList(process.env.CONTRACT_APP_ENV);
const PG_URL = process.env.CONTRACT_PG_URL;
const DB_PREFIX = `contract_${VARIANT.replace(/-/g, '_')}`;
const APP_NAME = `lifecycle-${VARIANT}`;
const TOKEN = controlToken();
const OUTAGE_DIR = process.env.CONTRACT_OUTAGE_DIR || `/tmp/cfscale-contract-outage-${process.pid}`;
// The app's processes: a cluster variant's workers (WEB_CONCURRENCY), else one.
const PROCESSES = Number(VARIANT_ENV.WEB_CONCURRENCY || 1);
const POOL_TIMEOUT_MS = 1000;
const DB_DEADLINE_MS = POOL_TIMEOUT_MS + 1000; // contract: within DB_POOL_TIMEOUT_MS + 1 s
const RECOVERY_MS = 10000;
const STATEMENT_TIMEOUT_MS = 1000;
const STATEMENT_DEADLINE_MS = STATEMENT_TIMEOUT_MS + 1000; // contract: within DB_STATEMENT_TIMEOUT_MS + 1 s
const EXIT_DEADLINE_MS = 10000; // CF kills after 10 s (docs/cf-platform.md §4)
const IN_FLIGHT = 6;
const STUCK_SHUTDOWN_MS = 2000;
const SHORT_POOL_TIMEOUT_MS = 500;
const LOCK_WAIT_MS = 5000;
const EXIT_SLACK_MS = 1500;
const FORM = 'application/x-www-form-urlencoded';
const STOP_WAIT_MS = 2000; // a SIGSTOPped process shows state T in /proc well within this
const SLEEP = new Int32Array(new SharedArrayBuffer(4)); // Atomics.wait on it: a synchronous 1 ms pause

const started = [];
// Lock-holding clients: ended after the tests even when one fails midway, or their open
// connections would keep this file's process (and node --test) alive for ever.
const lockers = [];
after(async () => {
  await Promise.all(lockers.map((c) => c.end().catch(() => {})));
  await Promise.all(started.map((a) => a.stop()));
});

/** A connected client of db, remembered for the after() hook. */
async function lockerFor(db) {
  const { Client } = require('pg');
  const c = new Client({ connectionString: db });
  lockers.push(c);
  await c.connect();
  return c;
}

/** A client of db holding the ads table in ACCESS EXCLUSIVE mode (its transaction open). */
async function lockAds(db) {
  const locker = await lockerFor(db);
  await locker.query('BEGIN');
  await locker.query('LOCK TABLE ads IN ACCESS EXCLUSIVE MODE');
  return locker;
}

/** Wait until GET /ads/1 answers 200 again, at most RECOVERY_MS after `after` happened. */
async function waitRecovered(problems, url, after) {
  const t0 = Date.now();
  let status = 0;
  while (Date.now() - t0 < RECOVERY_MS && status !== 200) {
    status = (await send(url, { path: '/ads/1' })).status;
    if (status !== 200) await new Promise((r) => setTimeout(r, 200));
  }
  if (status !== 200) problems.push(`GET /ads/1 not 200 within ${RECOVERY_MS} ms after ${after} (last: ${status})`);
}

async function startApp(env) {
  const port = await freePort();
  const app = new AppProcess(CMD, { PORT: String(port), CF_INSTANCE_INDEX: '1', APP_NAME, CONTROL_TOKEN: TOKEN, ...VARIANT_ENV, ...env });
  started.push(app);
  const url = `http://127.0.0.1:${port}`;
  await app.waitHealthy(url);
  return { app, url };
}

/** Send, check status/body (+headers), push problems; returns { res, ms }. */
async function expectAnswer(problems, url, req, want, label = `${req.method || 'GET'} ${req.path}`) {
  const cid = `lifecycle-${Date.now()}-${Math.random().toString(36).slice(2, 8)}`;
  const t0 = Date.now();
  const auth = isControlPath(req.path) ? controlHeaders(TOKEN) : {};
  const res = await send(url, { ...req, headers: { ...(req.headers || {}), ...auth, 'X-Correlation-ID': cid } }, { timeoutMs: 15000 });
  const ms = Date.now() - t0;
  problems.push(...checkResponse(res, want, { cid, wantEcho: true }).map((p) => `${label}: ${p}`));
  return { res, ms };
}

function checkNoPassword(problems, app, password) {
  if (password && app.output.includes(password)) problems.push('the app output contains the database password');
}

async function databaseOutage() {
  const problems = [];
  const { port, superUrl } = await startOutageCluster();
  try {
    const appDb = await freshDatabase(superUrl, `${DB_PREFIX}_outage_app`);
    const resultsDb = await freshDatabase(superUrl, `${DB_PREFIX}_outage_results`, { results: true });
    const { app, url } = await startApp({ DATABASE_URL: appDb, RESULTS_DATABASE_URL: resultsDb, DB_POOL_TIMEOUT_MS: String(POOL_TIMEOUT_MS) });
    await waitDatabaseReady(problems, url, PROCESSES);
    await expectAnswer(problems, url, { method: 'POST', path: '/ads', headers: { 'Content-Type': FORM }, body: 'title=before' }, { status: 201, body: '1\n' });
    await expectAnswer(problems, url, { path: '/ads/1' }, { status: 200 });
    const countBefore = await timingsCount(url);

    stopCluster(OUTAGE_DIR);
    const down = { status: 503, body: 'database unavailable\n', headers: { 'Retry-After': '1' } };
    for (const req of [{ path: '/ads/1' }, { path: '/ads' }, { method: 'POST', path: '/ads', headers: { 'Content-Type': FORM }, body: 'title=during' }, { path: '/ads/1' }]) {
      const { ms } = await expectAnswer(problems, url, req, down, `during the outage ${req.method || 'GET'} ${req.path}`);
      if (ms > DB_DEADLINE_MS) problems.push(`during the outage ${req.method || 'GET'} ${req.path}: answered after ${ms} ms (want <= ${DB_DEADLINE_MS})`);
    }
    await expectAnswer(problems, url, { path: '/health' }, { status: 200, body: 'ok\n' }, 'GET /health during the outage');
    await expectAnswer(problems, url, { path: '/hello' }, { status: 200, body: 'Hello World\n' }, 'GET /hello during the outage');
    const kept = await timingsCount(url);
    await expectAnswer(problems, url, { method: 'POST', path: '/timings/flush?round=1' }, { status: 503, body: 'results database unavailable\n' }, 'flush with the results database down');
    const afterFailedFlush = await timingsCount(url);
    if (afterFailedFlush !== kept || kept <= countBefore) problems.push(`timings buffer: ${countBefore} before the outage, ${kept} during, ${afterFailedFlush} after the failed flush (want kept)`);
    if (!app.alive) problems.push(`the app exited during the outage: ${JSON.stringify(app.exitInfo)}`);

    startCluster(OUTAGE_DIR, port);
    await waitRecovered(problems, url, 'the database came back');
    await expectAnswer(problems, url, { path: '/ads?limit=1' }, { status: 200, body: '1\t0.00\tbefore\n', headers: { 'X-Total-Count': '1' } }, 'GET /ads after recovery');
    const beforeFlush = await timingsCount(url);
    if (!(beforeFlush > afterFailedFlush)) problems.push(`timings buffer after recovery: ${beforeFlush} (want more than the ${afterFailedFlush} kept)`);
    const round = await insertRound(resultsDb, APP_NAME);
    await expectAnswer(problems, url, { method: 'POST', path: `/timings/flush?round=${round}` }, { status: 200, body: `flushed ${beforeFlush}\n` }, 'flush after recovery (the kept buffer)');
    if (!app.alive) problems.push(`the app exited: ${JSON.stringify(app.exitInfo)}`);
    checkNoPassword(problems, app, urlParts(superUrl).password);
  } finally {
    stopCluster(OUTAGE_DIR);
  }
  report(problems);
}

async function frozenDatabase() {
  const problems = [];
  const { superUrl } = await startOutageCluster();
  const frozen = [];
  try {
    const appDb = await freshDatabase(superUrl, `${DB_PREFIX}_frozen_app`);
    const { app, url } = await startApp({
      DATABASE_URL: appDb, DB_POOL_TIMEOUT_MS: String(POOL_TIMEOUT_MS), DB_STATEMENT_TIMEOUT_MS: String(STATEMENT_TIMEOUT_MS),
    });
    await waitDatabaseReady(problems, url, PROCESSES);
    await expectAnswer(problems, url, { method: 'POST', path: '/ads', headers: { 'Content-Type': FORM }, body: 'title=before' }, { status: 201, body: '1\n' });
    // One connection per request: a cluster's workers all get to open a pool connection.
    for (let i = 0; i < 4; i += 1) await expectAnswer(problems, url, { path: '/ads/1' }, { status: 200 }, 'GET /ads/1 before the freeze');

    const appBackends = await withClient(superUrl, (c) => c.query(
      "SELECT pid FROM pg_stat_activity WHERE datname = $1 AND backend_type = 'client backend'", [urlParts(appDb).db]));
    if (appBackends.rows.length === 0) problems.push('no backend of the app database in pg_stat_activity to freeze');
    // The whole cluster: the postmaster first (no new connection gets past the startup
    // packet, so none slips through while we look), then every process it started — the
    // app's pool connections among them, also one still logging in (HikariCP fills its
    // pool in the background, and such a backend may not show in pg_stat_activity yet).
    const postmaster = postmasterPid(OUTAGE_DIR);
    freeze(frozen, postmaster);
    for (const pid of childPids(postmaster)) freeze(frozen, pid);
    const missed = appBackends.rows.filter((r) => !frozen.includes(r.pid));
    if (missed.length) problems.push(`app backends not among the postmaster's children: ${missed.map((r) => r.pid).join(' ')}`);

    for (const req of [{ path: '/ads/1' }, { path: '/ads?limit=5' }, { path: '/ads/1' }]) {
      const label = `database frozen: GET ${req.path}`;
      const { ms } = await expectAnswer(problems, url, req, { status: 503, body: 'database unavailable\n', headers: { 'Retry-After': '1' } }, label);
      if (ms > STATEMENT_DEADLINE_MS) problems.push(`${label}: answered after ${ms} ms (want <= ${STATEMENT_DEADLINE_MS}: DB_STATEMENT_TIMEOUT_MS ${STATEMENT_TIMEOUT_MS} + 1000)`);
    }
    await expectAnswer(problems, url, { path: '/health' }, { status: 200, body: 'ok\n' }, 'GET /health with the database frozen');
    if (!app.alive) problems.push(`the app exited with the database frozen: ${JSON.stringify(app.exitInfo)}`);

    thaw(frozen);
    await waitRecovered(problems, url, 'SIGCONT');
    await expectAnswer(problems, url, { path: '/ads?limit=1' }, { status: 200, body: '1\t0.00\tbefore\n', headers: { 'X-Total-Count': '1' } }, 'GET /ads after SIGCONT');
    if (!app.alive) problems.push(`the app exited: ${JSON.stringify(app.exitInfo)}; output:\n${app.output.slice(-1500)}`);
  } finally {
    thaw(frozen);
    stopCluster(OUTAGE_DIR);
  }
  report(problems);
}

async function lockedStatement() {
  const problems = [];
  const appDb = await freshDatabase(PG_URL, `${DB_PREFIX}_locked_app`);
  const { url } = await startApp({ DATABASE_URL: appDb, DB_STATEMENT_TIMEOUT_MS: String(STATEMENT_TIMEOUT_MS) });
  await waitDatabaseReady(problems, url, PROCESSES);
  await expectAnswer(problems, url, { method: 'POST', path: '/ads', headers: { 'Content-Type': FORM }, body: 'title=locked' }, { status: 201, body: '1\n' });
  const locker = await lockAds(appDb);
  for (const req of [{ path: '/ads/1' }, { path: '/ads' }]) {
    const label = `table locked: GET ${req.path}`;
    const { ms } = await expectAnswer(problems, url, req, { status: 503, body: 'database unavailable\n', headers: { 'Retry-After': '1' } }, label);
    if (ms > STATEMENT_DEADLINE_MS) problems.push(`${label}: answered after ${ms} ms (want <= ${STATEMENT_DEADLINE_MS})`);
  }
  await locker.query('COMMIT');
  await locker.end();
  await expectAnswer(problems, url, { path: '/ads/1' }, { status: 200 }, 'GET /ads/1 after the lock is released');
  report(problems);
}

async function sigtermInFlight() {
  const problems = [];
  const appDb = await freshDatabase(PG_URL, `${DB_PREFIX}_sigterm_app`);
  const resultsDb = await freshDatabase(PG_URL, `${DB_PREFIX}_sigterm_results`, { results: true });
  const { app, url } = await startApp({ DATABASE_URL: appDb, RESULTS_DATABASE_URL: resultsDb, TIMINGS_FLUSH_ON_EXIT: 'true' });
  await waitDatabaseReady(problems, url, PROCESSES);
  const { res: posted } = await expectAnswer(problems, url, { method: 'POST', path: '/ads', headers: { 'Content-Type': FORM }, body: 'title=in+flight' }, { status: 201, body: '1\n' });
  await expectAnswer(problems, url, { method: 'POST', path: '/timings/clear' }, { status: 200 });
  const adBody = posted.status === 201 ? (await send(url, { path: '/ads/1' })).body?.toString() : undefined;

  // Hold the ads table so the reads below are in flight (waiting in the database) when SIGTERM comes.
  const locker = await lockAds(appDb);
  const cids = Array.from({ length: IN_FLIGHT }, (_, i) => `sigterm-${VARIANT}-${Date.now()}-${i}`);
  const conns = cids.map(() => new RawConnection(url, { timeoutMs: EXIT_DEADLINE_MS }));
  const pending = conns.map((c, i) => c.request({ path: '/ads/1', close: false, headers: { 'X-Correlation-ID': cids[i] } }));
  await waitForLockWaiters(problems, locker, IN_FLIGHT);

  app.signal('SIGTERM');
  const t0 = Date.now();
  await new Promise((r) => setTimeout(r, 500));
  const probe = await probeConnect(url);
  if (probe !== 'refused') problems.push(`a new connection 500 ms after SIGTERM: want refused, got ${probe}`);
  if (!app.alive) problems.push(`the app exited with requests still in flight: ${JSON.stringify(app.exitInfo)}`);
  await locker.query('COMMIT');
  await locker.end();

  const answers = await Promise.all(pending);
  answers.forEach((res, i) => {
    const found = checkResponse(res, { status: 200, body: adBody }, { cid: cids[i], wantEcho: true });
    problems.push(...found.map((p) => `in-flight request ${i}: ${p}`));
  });
  conns.forEach((c) => c.close());
  const exit = await app.waitExit(Math.max(0, EXIT_DEADLINE_MS - (Date.now() - t0)));
  if (!exit) problems.push(`still running ${EXIT_DEADLINE_MS} ms after SIGTERM`);
  else if (exit.code !== 0) problems.push(`exit: want code 0, got ${JSON.stringify(exit)}; output:\n${app.output.slice(-1500)}`);
  const rows = await withClient(resultsDb, (c) => c.query('SELECT correlation_id, status FROM server_timings WHERE correlation_id = ANY($1)', [cids])).then((r) => r.rows);
  const flushed = new Set(rows.filter((r) => r.status === 200).map((r) => r.correlation_id));
  const missing = cids.filter((c) => !flushed.has(c));
  if (missing.length) problems.push(`TIMINGS_FLUSH_ON_EXIT=true: ${missing.length} of ${cids.length} in-flight requests not in server_timings (${show(missing.join(' '))})`);
  checkNoPassword(problems, app, urlParts(PG_URL).password);
  report(problems);
}

async function poolTimeout() {
  const problems = [];
  const appDb = await freshDatabase(PG_URL, `${DB_PREFIX}_pool_app`);
  const { url } = await startApp({ DATABASE_URL: appDb, DB_POOL_SIZE: '1', DB_POOL_TIMEOUT_MS: String(SHORT_POOL_TIMEOUT_MS) });
  await waitDatabaseReady(problems, url, PROCESSES);
  await expectAnswer(problems, url, { method: 'POST', path: '/ads', headers: { 'Content-Type': FORM }, body: 'title=pooled' }, { status: 201, body: '1\n' });
  const locker = await lockAds(appDb);
  const holder = send(url, { path: '/ads/1' }, { timeoutMs: 15000 });
  await waitForLockWaiters(problems, locker, 1);
  const { ms } = await expectAnswer(problems, url, { path: '/ads/1' }, { status: 503, body: 'database unavailable\n', headers: { 'Retry-After': '1' } }, 'GET /ads/1 while the pool is busy');
  if (ms > SHORT_POOL_TIMEOUT_MS + 1000) problems.push(`503 after ${ms} ms (want <= DB_POOL_TIMEOUT_MS ${SHORT_POOL_TIMEOUT_MS} + 1000)`);
  await expectAnswer(problems, url, { path: '/health' }, { status: 200, body: 'ok\n' }, 'GET /health while the pool is busy');
  await locker.query('COMMIT');
  await locker.end();
  const held = await holder;
  if (held.status !== 200) problems.push(`the request holding the connection: want 200, got ${held.status ?? held.error}`);
  await expectAnswer(problems, url, { path: '/ads/1' }, { status: 200 }, 'GET /ads/1 after the pool is free');
  report(problems);
}

async function stuckShutdown() {
  const problems = [];
  const appDb = await freshDatabase(PG_URL, `${DB_PREFIX}_stuck_app`);
  const { app, url } = await startApp({ DATABASE_URL: appDb, SHUTDOWN_TIMEOUT_MS: String(STUCK_SHUTDOWN_MS) });
  await waitDatabaseReady(problems, url, PROCESSES);
  await expectAnswer(problems, url, { method: 'POST', path: '/ads', headers: { 'Content-Type': FORM }, body: 'title=stuck' }, { status: 201, body: '1\n' });
  const locker = await lockAds(appDb);
  const conn = new RawConnection(url, { timeoutMs: STUCK_SHUTDOWN_MS + EXIT_SLACK_MS });
  const pending = conn.request({ path: '/ads/1', close: false });
  await waitForLockWaiters(problems, locker, 1);
  app.signal('SIGTERM');
  const t0 = Date.now();
  const exit = await app.waitExit(STUCK_SHUTDOWN_MS + EXIT_SLACK_MS);
  const ms = Date.now() - t0;
  await locker.query('ROLLBACK').catch(() => {});
  await locker.end();
  await pending;
  conn.close();
  if (!exit) problems.push(`still running ${ms} ms after SIGTERM with SHUTDOWN_TIMEOUT_MS=${STUCK_SHUTDOWN_MS}`);
  else if (ms < STUCK_SHUTDOWN_MS - EXIT_SLACK_MS) problems.push(`exited ${ms} ms after SIGTERM: it did not wait for the in-flight request (SHUTDOWN_TIMEOUT_MS=${STUCK_SHUTDOWN_MS})`);
  // A shutdown cut short lost a request: the process says so, as a crash would (CF logs the code).
  else if (exit.code !== 1) problems.push(`exit after the forced shutdown: want code 1, got ${JSON.stringify(exit)}`);
  report(problems);
}

describe(`lifecycle of ${VARIANT}`, () => {
  test('database outage: 503 database unavailable with Retry-After, the process lives, recovery by itself', databaseOutage);
  test('frozen database (SIGSTOP of the postmaster and all its processes): 503 within DB_STATEMENT_TIMEOUT_MS + 1 s, 200 again after SIGCONT', frozenDatabase);
  test('a statement held by a lock: the server cancels it, 503 within DB_STATEMENT_TIMEOUT_MS + 1 s, then 200', { skip: PG_URL ? false : 'needs CONTRACT_PG_URL' }, lockedStatement);
  test('SIGTERM: in-flight requests complete, new connections are refused, exit 0, timings flushed', { skip: PG_URL ? false : 'needs CONTRACT_PG_URL' }, sigtermInFlight);
  test('pool timeout: with the only connection busy, the next request gets 503 in time', { skip: PG_URL && PROCESSES === 1 ? false : 'needs CONTRACT_PG_URL and one process' }, poolTimeout);
  test('SIGTERM with a request that never finishes: exit 1 within SHUTDOWN_TIMEOUT_MS', { skip: PG_URL ? false : 'needs CONTRACT_PG_URL' }, stuckShutdown);
});

/** Wait until `n` statements of the app wait for the lock `locker` holds (so they are in flight). */
async function waitForLockWaiters(problems, locker, n) {
  const deadline = Date.now() + LOCK_WAIT_MS;
  let waiting = 0;
  while (Date.now() < deadline) {
    // The locker is inside a transaction: without this, pg_stat_activity stays its first snapshot.
    await locker.query('SELECT pg_stat_clear_snapshot()');
    const r = await locker.query("SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'");
    waiting = r.rows[0].n;
    if (waiting >= n) return;
    await new Promise((res) => setTimeout(res, 50));
  }
  problems.push(`only ${waiting} of ${n} requests reached the database within ${LOCK_WAIT_MS} ms`);
}

/**
 * SIGSTOP pid, remember it in `frozen` (thaw() sends SIGCONT even when a test fails midway),
 * and wait until it has stopped: kill() returns before the signal takes effect, and a
 * postmaster still running for that moment can fork one more backend (java-app's pool fills
 * itself in the background) after its children were listed — a backend never frozen.
 */
function freeze(frozen, pid) {
  process.kill(pid, 'SIGSTOP');
  frozen.push(pid);
  const deadline = Date.now() + STOP_WAIT_MS;
  for (let state = procState(pid); !['T', 't', 'Z', null].includes(state); state = procState(pid)) {
    if (Date.now() > deadline) throw new Error(`pid ${pid} not stopped ${STOP_WAIT_MS} ms after SIGSTOP (state ${state})`);
    Atomics.wait(SLEEP, 0, 0, 1);
  }
}

/** The state letter of /proc/PID/stat (R, S, T, …), or null when the process is gone. */
function procState(pid) {
  let stat;
  try { stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8'); } catch { return null; }
  return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[0];
}

function thaw(frozen) {
  for (const pid of frozen.splice(0)) {
    try { process.kill(pid, 'SIGCONT'); } catch { /* gone */ }
  }
}

/** The pids whose parent is `ppid` (from /proc/PID/stat: the field after the command name). */
function childPids(ppid) {
  const pids = [];
  for (const name of fs.readdirSync('/proc')) {
    if (!/^[0-9]+$/.test(name)) continue;
    let stat;
    try { stat = fs.readFileSync(`/proc/${name}/stat`, 'utf8'); } catch { continue; }
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    if (Number(fields[1]) === ppid) pids.push(Number(name));
  }
  return pids;
}

/** The postmaster's pid: the first line of DIR/data/postmaster.pid. */
function postmasterPid(dir) {
  return Number(fs.readFileSync(path.join(dir, 'data', 'postmaster.pid'), 'utf8').split('\n')[0]);
}

/** Start the outage cluster on a free port of our range, retrying when the port is taken meanwhile. */
async function startOutageCluster() {
  for (let attempt = 1; ; attempt += 1) {
    const port = await freePort();
    try {
      return { port, superUrl: startCluster(OUTAGE_DIR, port) };
    } catch (e) {
      if (attempt >= 3) throw e;
    }
  }
}

async function timingsCount(url) {
  const res = await send(url, { path: '/timings', headers: controlHeaders(TOKEN) });
  const m = /\ncount (\d+)\n/.exec(res.body?.toString() ?? '');
  return m ? Number(m[1]) : NaN;
}
