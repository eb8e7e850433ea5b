'use strict';
// steady-watch.test.js — the gate's watch against a real PostgreSQL: rounds whose start
// lies in the past with per-second samples already in `requests` (a warm-up ramp that
// levels off; scatter that never settles), so the watch decides at its first look: the
// window it records (measure_from, stop_at, steady), the log line, and that only the
// first decision counts.
const test = require('node:test');
const assert = require('node:assert/strict');
const { Client } = require('pg');
const { testDatabases } = require('../../lib/test-db');
const { watchSteady } = require('./steady-watch');
const testDbs = testDatabases(require('pg'), 'cf');

let testDb;
let db;
const GATE = { windowMs: 10000, cvMax: 0.05, trendMax: 0.05, maxWarmupMs: 60000 };

test.before(async () => {
  testDb = await testDbs.open('cfscale_steady_watch');
  db = new Client({ connectionString: testDb.url });
  await db.connect();
});

test.after(async () => {
  await db.end();
  await testDb.close();
});

/** A running round that started agoS seconds ago, perSecond[s] ok samples in second s (cover them all up to now). */
async function pastRound(agoS, perSecond) {
  const { rows } = await db.query(`INSERT INTO rounds (start_at, status, platform, app, target_url, app_instances, loadgens,
      model, parallel, duration_ms, steady_gate)
    VALUES (now() - make_interval(secs => $1), 'running', 'local', 'node-app', 'http://x', 1, 1, 'closed', 1, 20000, '{}')
    RETURNING id, start_at`, [agoS]);
  const { id, start_at: start } = rows[0];
  for (const [s, n] of perSecond.entries()) {
    await db.query(`INSERT INTO requests (correlation_id, round_id, loadgen_index, op, intended_at, started_at, latency_us, status)
      SELECT gen_random_uuid(), $1, 0, 'read', t, t, 1000, 200
        FROM (SELECT $2::timestamptz + make_interval(secs => $3 + (i - 0.5) / $4::float8) AS t FROM generate_series(1, $4) i) x`,
    [id, start, s, n]);
  }
  return Number(id);
}

const flat = (level, n) => Array.from({ length: n }, (_, i) => level * (i % 2 ? 1.01 : 0.99));

test('steady: the window starts at the decision and ends a duration later', async () => {
  // 10 s rising 20 → 200 req/s, then 200 ±1 % up to now; started 33 s ago.
  const id = await pastRound(33, [...Array.from({ length: 10 }, (_, i) => 20 + 20 * i), ...flat(200, 23)]);
  const lines = [];
  const res = await watchSteady(db, { round: id, gate: GATE, durationMs: 20000, log: (l) => lines.push(l) });
  assert.equal(res.state, 'steady');
  const r = (await db.query(`SELECT steady, extract(epoch FROM stop_at - measure_from) AS window_s,
      extract(epoch FROM now() - measure_from) AS ago_s, extract(epoch FROM measure_from - start_at) AS from_s FROM rounds WHERE id = $1`, [id])).rows[0];
  assert.equal(r.steady, true);
  assert.equal(Number(r.window_s), 20);
  assert.ok(Number(r.ago_s) < 5 && Number(r.from_s) >= 33, JSON.stringify(r)); // measured from now on, after the judged seconds
  assert.match(lines[0], new RegExp(`^round ${id}: steady after 3[3-9](\\.\\d)? s \\(mean 200 req/s, CV 1\\.\\d %, trend [+-]?0\\.\\d % over 10 s\\); measuring 20 s$`));
  // A second watch of the same round changes nothing.
  assert.equal(await watchSteady(db, { round: id, gate: GATE, durationMs: 20000 }), null);
});

test('never steady: at the maximum warm-up the window starts there, steady = false', async () => {
  const id = await pastRound(64, Array.from({ length: 64 }, (_, i) => (i % 2 ? 100 : 160)));
  const lines = [];
  const res = await watchSteady(db, { round: id, gate: GATE, durationMs: 20000, log: (l) => lines.push(l) });
  assert.equal(res.state, 'give-up');
  assert.equal(res.measureFromMs, 60000);
  const r = (await db.query(`SELECT steady, extract(epoch FROM measure_from - start_at) AS from_s,
      extract(epoch FROM stop_at - start_at) AS stop_s FROM rounds WHERE id = $1`, [id])).rows[0];
  assert.deepEqual([r.steady, Number(r.from_s), Number(r.stop_s)], [false, 60, 80]);
  assert.match(lines[0], /NOT steady after the maximum warm-up of 60 s \(CV 2\d\.\d % > 5\.0 %(, trend [^)]+)?\): measuring 20 s from there, flagged$/);
});

test('a round that ends (or is cancelled) before the gate decides: no decision', async () => {
  const id = await pastRound(4, [50, 50]);
  await db.query("UPDATE rounds SET status = 'cancelled' WHERE id = $1", [id]);
  assert.equal(await watchSteady(db, { round: id, gate: GATE, durationMs: 20000 }), null);
  const r = (await db.query('SELECT measure_from, steady FROM rounds WHERE id = $1', [id])).rows[0];
  assert.deepEqual(r, { measure_from: null, steady: null });
});
