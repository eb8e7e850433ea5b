'use strict';
// Persistence into a real PostgreSQL: COPY while running, a database outage spooled
// and recovered with no loss and no duplicates, and replay of a batch already in.
const test = require('node:test');
const assert = require('node:assert');
const fs = require('node:fs');
const { Run } = require('../lib/run');
const { Sink } = require('../lib/sink');
const { SampleBatch } = require('../lib/sample-batch');
const { ResponseParser } = require('../lib/response-parser');
const { uuidv7Bytes } = require('../lib/uuidv7');
const { startServer, ownCluster, testCluster, stopTestCluster, createDatabase, query, sleep } = require('./helpers');

test.after(stopTestCluster);

async function newRound(db, url) {
  const [{ id }] = await query(db, `INSERT INTO rounds (start_at, platform, app, target_url, app_instances, loadgens, model, parallel, duration_ms)
    VALUES (now(), 'local', 'test', $1, 1, 1, 'closed', 2, 1000) RETURNING id`, [url]);
  return id;
}

function spoolDir() { return fs.mkdtempSync('/tmp/cfscale-loadgen-test-spool-'); }

test('sink: a batch replayed after it was loaded adds nothing (no duplicates)', async (t) => {
  const db = await createDatabase(await testCluster());
  const id = await newRound(db, 'http://x');
  const dir = spoolDir();
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  const batch = new SampleBatch(100);
  const parser = new ResponseParser();
  parser.status = 200;
  for (let i = 0; i < 100; i++) {
    const conn = { parser, uuid: Buffer.alloc(16), op: 1, intendedMs: 1000 + i, startedMs: 1000 + i };
    uuidv7Bytes(conn.uuid, 0);
    batch.add(conn, 0, 100 + i);
  }
  const buf = batch.encodeBinary(id, 0);
  const sink = new Sink({ url: db, spoolDir: dir });
  sink.push(buf);
  sink.push(buf); // the COPY fails on the primary key: spooled, replayed with ON CONFLICT DO NOTHING
  const f = await sink.flush(10000);
  await sink.close();
  assert.strictEqual(f.spoolPending, 0);
  const [row] = await query(db, 'SELECT count(*)::int AS n, sum(latency_us)::int AS lat FROM requests WHERE round_id = $1', [id]);
  assert.deepStrictEqual(row, { n: 100, lat: 100 * 100 + 4950 });
});

test('sink: results database outage mid-run is spooled and recovered, nothing lost or doubled', async (t) => {
  const cluster = await ownCluster();
  t.after(cluster.destroy);
  const db = await createDatabase(cluster.url);
  const srv = await startServer((req, res) => setTimeout(() => res.end('ok\n'), 1));
  t.after(srv.close);
  const id = await newRound(db, srv.url);
  const dir = spoolDir();
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  const sink = new Sink({ url: db, spoolDir: dir });
  const run = new Run({ url: srv.url, model: 'closed', parallel: 2, durationMs: 4000, timeoutMs: 2000, keepalive: true, scenario: 'get' },
    { sink, roundId: id, batchRows: 200 });
  const done = run.start();
  await sleep(800);
  cluster.stop();
  await sleep(1500);
  cluster.start();
  const summary = await done;
  const f = await sink.flush(20000);
  await sink.close();
  assert.strictEqual(f.spoolPending, 0, 'spool drained');
  assert.ok(sink.batchesSpooled > 0, 'the outage went through the spool');
  const [row] = await query(db, 'SELECT count(*)::int AS n, count(DISTINCT correlation_id)::int AS ids FROM requests WHERE round_id = $1', [id]);
  assert.strictEqual(row.n, summary.requests.total, 'every sample is a row');
  assert.strictEqual(row.ids, row.n);
  assert.strictEqual(fs.readdirSync(dir).length, 0);
});

test('sink: binary and text COPY encodings load identical rows', async (t) => {
  const db = await createDatabase(await testCluster());
  const id = await newRound(db, 'http://x');
  const dir = spoolDir();
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  const rows = [
    { kind: 0, status: 200, bytes: 42, app: 3, vcap: 'ab-12', latency: 1234.4, op: 1, at: 1e6 + 0.001 },
    { kind: 4, status: 503, bytes: 0, app: -1, vcap: '', latency: 7.6, op: 3, at: 2e6 + 59999.999 },
    { kind: 1, status: 0, bytes: 0, app: 0, vcap: 'x\\y\tz', latency: 0, op: 2, at: 123.456789 },
  ];
  const encodings = {};
  for (const format of ['binary', 'text']) {
    const batch = new SampleBatch(10);
    for (const r of rows) {
      const parser = new ResponseParser();
      Object.assign(parser, { status: r.status, bodyBytes: r.bytes, appInstance: r.app, vcapLen: parser.vcap.latin1Write(r.vcap, 0) });
      const conn = { parser, uuid: Buffer.alloc(16), op: r.op, intendedMs: r.at, startedMs: r.at + 0.5 };
      uuidv7Bytes(conn.uuid, 0);
      batch.add(conn, r.kind, r.latency);
    }
    const sink = new Sink({ url: db, spoolDir: dir, format });
    sink.push(format === 'binary' ? batch.encodeBinary(id, 7) : batch.encode(id, 7));
    await sink.flush(10000);
    await sink.close();
    assert.strictEqual(sink.rowsLoaded, rows.length, format);
    encodings[format] = await query(db, `SELECT round_id::int, loadgen_index, op, intended_at::text, started_at::text, latency_us::int,
        status, error_kind, bytes, app_instance, vcap_request_id FROM requests WHERE round_id = $1 ORDER BY correlation_id`, [id]);
    await query(db, 'DELETE FROM requests WHERE round_id = $1', [id]);
  }
  assert.strictEqual(encodings.binary.length, rows.length);
  assert.deepStrictEqual(encodings.binary, encodings.text);
  assert.strictEqual(encodings.binary[1].error_kind, 'status');
  assert.strictEqual(encodings.binary[0].vcap_request_id, 'ab-12');
});

test('sink: a batch the database refuses is set aside, the others still load', async (t) => {
  const db = await createDatabase(await testCluster());
  const id = await newRound(db, 'http://x');
  const dir = spoolDir();
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  fs.writeFileSync(`${dir}/0000-bad.copy`, Buffer.from('PGCOPY\n\xff\r\n\0garbage', 'latin1'));
  const batch = new SampleBatch(10);
  const parser = new ResponseParser();
  for (let i = 0; i < 10; i++) {
    const conn = { parser, uuid: Buffer.alloc(16), op: 1, intendedMs: i, startedMs: i };
    uuidv7Bytes(conn.uuid, 0);
    batch.add(conn, 0, 1);
  }
  const sink = new Sink({ url: db, spoolDir: dir });
  sink.push(batch.encodeBinary(id, 0));
  const f = await sink.flush(10000);
  await sink.close();
  assert.strictEqual(f.spoolPending, 0);
  assert.strictEqual(sink.batchesRejected, 1);
  assert.deepStrictEqual(fs.readdirSync(`${dir}/rejected`), ['0000-bad.copy']);
  const [{ n }] = await query(db, 'SELECT count(*)::int AS n FROM requests WHERE round_id = $1', [id]);
  assert.strictEqual(n, 10);
});

// Batches closed behind a slow COPY waited in memory, where a kill -9 took them (a CI run lost
// 359 ms of samples): they are on disk at once now, and still go in the next COPY together; the
// slow COPY's own batch is written too.
test('sink: batches closed behind a COPY in flight are spooled at once, then go in the next COPY together; the row counts every one', async (t) => {
  const db = await createDatabase(await testCluster());
  const id = await newRound(db, 'http://x');
  await query(db, 'INSERT INTO loadgen_runs (round_id, instance_index) VALUES ($1, 0)', [id]);
  const dir = spoolDir();
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  const parser = new ResponseParser();
  const batches = [];
  for (let b = 0; b < 5; b++) {
    const batch = new SampleBatch(10);
    for (let i = 0; i < 10; i++) {
      parser.status = i % 5 === 0 ? 500 : 200;
      const conn = { parser, uuid: Buffer.alloc(16), op: 1, intendedMs: 1000 + i, startedMs: 1000 + i };
      uuidv7Bytes(conn.uuid, 0);
      batch.add(conn, i % 5 === 0 ? 4 : 0, 100);
    }
    batches.push([batch.encodeBinary(id, 0), { rows: batch.lastRows, ok: batch.lastOk, roundId: Number(id), loadgenIndex: 0 }]);
  }
  // The first COPY's transaction waits for the row this client holds.
  const pg = require('pg');
  const locker = new pg.Client({ connectionString: db });
  await locker.connect();
  t.after(() => locker.end());
  await locker.query('BEGIN');
  await locker.query('SELECT 1 FROM loadgen_runs WHERE round_id = $1 FOR UPDATE', [id]);
  const sink = new Sink({ url: db, spoolDir: dir });
  for (const [buf, info] of batches) sink.push(buf, null, info);
  await sleep(300);
  // On disk: the 4 behind the COPY in flight, and that COPY's own batch (slower than 50 ms).
  assert.strictEqual(fs.readdirSync(dir).filter((n) => n.endsWith('.copy')).length, 5, 'every batch is on disk');
  await locker.query('COMMIT');
  const f = await sink.flush(10000);
  await sink.close();
  assert.deepStrictEqual({ pending: f.spoolPending, copies: sink.copies, batches: sink.batchesLoaded, spooled: sink.batchesSpooled },
    { pending: 0, copies: 2, batches: 5, spooled: 4 });
  assert.deepStrictEqual(fs.readdirSync(dir), [], 'their files removed');
  const [stored] = await query(db, 'SELECT count(*)::int AS n, count(*) FILTER (WHERE error_kind IS NULL)::int AS ok FROM requests WHERE round_id = $1', [id]);
  const [row] = await query(db, 'SELECT sent::int, ok::int, errors::int FROM loadgen_runs WHERE round_id = $1', [id]);
  assert.deepStrictEqual(stored, { n: 50, ok: 40 });
  assert.deepStrictEqual(row, { sent: 50, ok: 40, errors: 10 });
});
