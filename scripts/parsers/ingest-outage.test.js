'use strict';
// ingest-outage.test.js — a collector through a results-database outage (nothing lost, nothing doubled): the
// real ingest-rtr binary against a PostgreSQL cluster of its own (pg-cluster.js on
// a free port), stopped (a fast shutdown: connected clients get 57P01) while lines keep
// coming, started again. More lines than ingest-cli's MEMORY_ROWS arrive meanwhile, so
// some are held on disk. Every record read must be written, once, and exit 0.

const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { spawn } = require('node:child_process');
const { Client } = require('pg');
const { portRange, randomFreePort } = require('../../lib/ports');
const { MEMORY_ROWS } = require('./ingest-cli');

const ROOT = path.resolve(__dirname, '..', '..');
const pgCluster = require('../../local-platform/lib/pg-cluster.js');
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cfscale-outage-pg-'));
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'cfscale-outage-tmp-'));
let port;
let url;

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const RTR = (id) => `   2026-03-01T12:00:05.00+0000 [RTR/0] OUT node-app.localhost - [2026-03-01T12:00:05.123456789Z] "GET /ads/1 HTTP/1.1" 200 0 99 "-" "lg" "127.0.0.1:5000" "127.0.0.1:61000" x_forwarded_for:"-" x_forwarded_proto:"http" vcap_request_id:"${id}" response_time:0.002500 gorouter_time:0.000100 app_id:"g" app_index:"1" instance_id:"i"`;
const lines = (from, n) => Array.from({ length: n }, (_, i) => RTR(`r-${from + i}`)).join('\n') + '\n';

async function query(sql) {
  const c = new Client({ connectionString: url });
  await c.connect();
  try {
    return (await c.query(sql)).rows;
  } finally {
    await c.end();
  }
}

// ingest-rtr for round ROUND, its stderr so far (stderr()) and its exit (closed); a failed
// assertion must not leave it waiting on an open stdin for ever.
function ingestRtr(t, round) {
  const child = spawn(process.execPath, [path.join(__dirname, 'ingest-rtr.js'), '--round', String(round), '--app', 'node-app'],
    { env: { ...process.env, TMPDIR: tmp, RESULTS_DATABASE_URL: url } });
  let stderr = '';
  child.stderr.on('data', (d) => { stderr += d; });
  const closed = new Promise((resolve) => child.on('close', resolve));
  t.after(() => { if (child.exitCode === null) child.kill('SIGKILL'); });
  return { child, closed, stderr: () => stderr };
}

test.before(async () => {
  port = await randomFreePort(...portRange('cf'));
  const admin = pgCluster.start(dir, { port });
  url = pgCluster.createdb(dir, 'results');
  assert.ok(admin);
  const c = new Client({ connectionString: url });
  await c.connect();
  await c.query(fs.readFileSync(path.join(ROOT, 'results-schema.sql'), 'utf8'));
  await c.end();
});

test.after(() => {
  try { pgCluster.stop(dir); } catch { /* already stopped */ }
  fs.rmSync(dir, { recursive: true, force: true });
  fs.rmSync(tmp, { recursive: true, force: true });
});

test('ingest-rtr through a database stop and start: every record written once, some held on disk, exit 0', { timeout: 120000 }, async (t) => {
  const { child, closed, stderr } = ingestRtr(t, 7);
  const before = 1000;
  const during = MEMORY_ROWS + 5000;
  child.stdin.write(lines(0, before));
  for (let i = 0; i < 100; i++) {
    if ((await query('SELECT count(*)::int AS n FROM router_timings'))[0].n === before) break;
    await sleep(100);
  }
  pgCluster.stop(dir);
  child.stdin.write(lines(before, during));
  for (let i = 0; i < 100 && !/holding rows on disk in (\S+)/.test(stderr()); i++) await sleep(100);
  const spool = /holding rows on disk in (\S+) /.exec(stderr());
  assert.ok(spool, stderr());
  assert.ok(spool[1].startsWith(tmp), spool[1]);
  // The child names the directory, then writes its first file: another process, so wait for it.
  for (let i = 0; i < 100 && fs.readdirSync(spool[1]).length === 0; i++) await sleep(50);
  assert.ok(fs.readdirSync(spool[1]).length > 0, 'no spool file');
  await sleep(2000); // a few failed flushes, with backoff
  pgCluster.start(dir, { port });
  child.stdin.write(lines(before + during, 10));
  child.stdin.end();
  const code = await closed;
  assert.equal(code, 0, stderr());
  const total = before + during + 10;
  assert.match(stderr(), new RegExp(`${total} router records, 0 instance stops, 0 other lines ignored; inserted ${total}, already in db 0$`, 'm'));
  assert.doesNotMatch(stderr(), /NOT WRITTEN/);
  assert.match(stderr(), /insert into router_timings failed, holding \d+ rows: /);
  assert.match(stderr(), /database writes work again/);
  assert.equal(fs.existsSync(spool[1]), false, 'spool directory left behind');
  const rows = await query('SELECT count(*)::int AS n, count(DISTINCT vcap_request_id)::int AS d FROM router_timings WHERE round_id = 7');
  assert.deepEqual(rows[0], { n: total, d: total });
});

// The database up but slow (the table locked, as a database catching up after a restart):
// more than MEMORY_ROWS lines arrive while the first batch is in flight, so memory spills to
// a file meanwhile. The batch in flight is neither lost nor written twice, and the file
// written meanwhile is written too before the spool directory goes.
test('ingest-rtr while a batch is in flight and memory spills: every record written once, exit 0', { timeout: 120000 }, async (t) => {
  const { child, closed, stderr } = ingestRtr(t, 8);
  const locker = new Client({ connectionString: url });
  await locker.connect();
  t.after(() => locker.end().catch(() => {}));
  await locker.query('BEGIN');
  await locker.query('LOCK TABLE router_timings IN EXCLUSIVE MODE');
  const total = MEMORY_ROWS + 5000;
  child.stdin.write(lines(100000, total));
  for (let i = 0; i < 100 && !/holding rows on disk in (\S+)/.test(stderr()); i++) await sleep(100);
  const spool = /holding rows on disk in (\S+) /.exec(stderr());
  assert.ok(spool, stderr());
  await locker.query('COMMIT');
  child.stdin.end();
  const code = await closed;
  assert.equal(code, 0, stderr());
  assert.match(stderr(), new RegExp(`${total} router records, 0 instance stops, 0 other lines ignored; inserted ${total}, already in db 0$`, 'm'));
  assert.equal(fs.existsSync(spool[1]), false, 'spool directory left behind');
  const rows = await query('SELECT count(*)::int AS n, count(DISTINCT vcap_request_id)::int AS d FROM router_timings WHERE round_id = 8');
  assert.deepEqual(rows[0], { n: total, d: total });
});

test('ingest-rtr given lines far faster than the inserts take them (a log-cache read): held while they catch up, said so, every record once', { timeout: 120000 }, async (t) => {
  const { child, closed, stderr } = ingestRtr(t, 9);
  const n = 8 * MEMORY_ROWS; // many spool files, written while more spill: each a name of its own
  for (let i = 0; i < n; i += 5000) child.stdin.write(lines(1e6 + i, 5000));
  child.stdin.end();
  assert.equal(await closed, 0, stderr());
  assert.doesNotMatch(stderr(), /until the database is back/);
  assert.equal((await query('SELECT count(*)::int AS n FROM router_timings WHERE round_id = 9'))[0].n, n);
});
