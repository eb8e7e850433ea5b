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
  const buf = batch.encode(id, 0);
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
