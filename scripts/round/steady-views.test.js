'use strict';
// steady-views.test.js — the steady-state views of results-schema.sql on rounds written
// straight into a real PostgreSQL, with known answers: the measured window cut by the
// gate's measure_from (round_summary, round_seconds), the trend inside the window
// (round_window_trend: flat, rising, a second without answers, seconds that wander
// together), CFS throttling from the cgroup counters (round_throttling), and the first round
// after a change (round_changes).
const test = require('node:test');
const assert = require('node:assert/strict');
const { Client } = require('pg');
const { testDatabases } = require('../../lib/test-db');
const { loadSteady, steadyLines } = require('./steady-summary');
const { windowStats } = require('./steady-state');
const testDbs = testDatabases(require('pg'), 'cf');

let testDb;
let db;

test.before(async () => {
  testDb = await testDbs.open('cfscale_steady_views');
  db = new Client({ connectionString: testDb.url });
  await db.connect();
});

test.after(async () => {
  await db.end();
  await testDb.close();
});

const T0 = Date.parse('2026-11-21T10:00:00Z');
let nextStart = T0;

/** A done round; f: rounds columns. Returns {id, start}. */
async function round(f = {}) {
  const start = new Date(nextStart);
  nextStart += 600_000;
  const r = { app: 'node-app', app_instances: 1, duration_ms: 10_000, warmup_ms: 0, settings: {}, plan: {}, environment: {}, ...f };
  const { rows } = await db.query(`INSERT INTO rounds (start_at, status, platform, app, target_url, app_instances, loadgens, model,
      parallel, duration_ms, warmup_ms, settings, plan, environment, steady_gate, measure_from, stop_at, steady)
    VALUES ($1, 'done', 'local', $2, 'http://x', $3, 1, 'closed', 1, $4, $5, $6, $7, $8, $9, $10, $11, $12) RETURNING id`,
  [start, r.app, r.app_instances, r.duration_ms, r.warmup_ms, r.settings, r.plan, r.environment, r.steady_gate ?? null,
    r.measure_from_s === undefined ? null : new Date(start.getTime() + r.measure_from_s * 1000),
    r.stop_at_s === undefined ? null : new Date(start.getTime() + r.stop_at_s * 1000), r.steady ?? null]);
  return { id: Number(rows[0].id), start };
}

/** perSecond[s] ok requests spread evenly over second s, latency 1 ms + s ms. */
async function requests(r, perSecond) {
  for (const [s, n] of perSecond.entries()) {
    await db.query(`INSERT INTO requests (correlation_id, round_id, loadgen_index, op, intended_at, started_at, latency_us, status)
      SELECT gen_random_uuid(), $1, 0, 'read', t, t, 1000 + 1000 * $3, 200
        FROM (SELECT $2::timestamptz + make_interval(secs => $3 + (i - 0.5) / $4::float8) AS t FROM generate_series(1, $4) i) x`,
    [r.id, r.start, s, n]);
  }
}

const one = async (sql, id) => (await db.query(sql, [id])).rows[0];

test('the gate\'s window: warm-up seconds are left out of the summary, the window is flat', async () => {
  // 5 s of warm-up rising 10 → 50 req/s, then 10 s at 50 req/s; the gate measured 5 s → 15 s.
  const r = await round({ steady_gate: { window_ms: 5000, cv_max: 0.1, trend_max: 0.1, max_warmup_ms: 60000 },
    measure_from_s: 5, stop_at_s: 15, steady: true });
  await requests(r, [10, 20, 30, 40, 50, ...Array(10).fill(50)]);
  const s = await one('SELECT samples::int, throughput_rps FROM round_summary WHERE round_id = $1', r.id);
  assert.equal(s.samples, 500);
  const secs = (await db.query('SELECT second, ok::int, measured, p50_us FROM round_seconds WHERE round_id = $1 ORDER BY second', [r.id])).rows;
  assert.deepEqual(secs.map((x) => x.ok), [10, 20, 30, 40, 50, ...Array(10).fill(50)]);
  assert.deepEqual(secs.filter((x) => x.measured).map((x) => x.second), [5, 6, 7, 8, 9, 10, 11, 12, 13, 14]);
  assert.equal(secs[3].p50_us, 4000);
  const st = await one('SELECT * FROM report_round_steady WHERE round_id = $1', r.id);
  assert.deepEqual([st.steady, Number(st.measure_from_ms), Number(st.window_ms), Number(st.window_seconds)], [true, 5000, 10000, 10]);
  assert.equal(st.window_trend, 0);
  assert.equal(st.window_cv, 0);
  assert.equal(st.window_ok_per_s, 50);
  assert.deepEqual(steadyLines(await loadSteady(db, r.id)).slice(0, 2), [
    'measured window: from 5.0 s for 10.0 s, steady after 5.0 s (gate: window 5.0 s, CV ≤ 10.0 %, trend within ±10.0 %)',
    '  per second in it: CV 0.0 %, trend 0.0 % ± 0.0 % over 10 s',
  ]);
});

test('a trend inside the window: slope × seconds / mean; a second without answers counts as 0', async () => {
  // --warmup 0: the window is the whole 10 s; ok = 20 + 2s: slope 2, mean 29, trend 2·10/29.
  const rising = await round({ environment: { app_cpu_period_us: 100000 } });
  await requests(rising, Array.from({ length: 10 }, (_, s) => 20 + 2 * s));
  const t = await one('SELECT * FROM report_round_steady WHERE round_id = $1', rising.id);
  assert.ok(Math.abs(t.window_trend - 20 / 29) < 1e-9, String(t.window_trend));
  assert.ok(t.window_trend_se < 1e-6, 'a perfect line has no residual');
  assert.equal(t.steady, null);
  assert.equal(Number(t.cpu_period_us), 100000);
  // A stall: second 5 has no answer at all; 9 × 30 + 0 over 10 s.
  const stalled = await round();
  await requests(stalled, [30, 30, 30, 30, 30, 0, 30, 30, 30, 30]);
  const w = await one('SELECT seconds::int, ok_per_s, cv FROM round_window_trend WHERE round_id = $1', stalled.id);
  assert.deepEqual([w.seconds, w.ok_per_s], [10, 27]);
  assert.ok(w.cv > 0.3, String(w.cv));
});

test('the trend\'s standard error and df are windowStats\' (the gate\'s): seconds that wander together widen it', async () => {
  // A step from ~900 to ~600 req/s (a study round at 0.1 core), scaled down by 10.
  const step = [90, 92, 91, 76, 81, 75, 92, 93, 91, 62, 57, 62, 64, 62, 56, 58, 57, 61, 64];
  const r = await round({ duration_ms: step.length * 1000 });
  await requests(r, step);
  const t = await one('SELECT * FROM report_round_steady WHERE round_id = $1', r.id);
  const w = await one('SELECT trend_rho FROM round_window_trend WHERE round_id = $1', r.id);
  const js = windowStats(step);
  assert.equal(Number(t.window_seconds), step.length);
  for (const [sql, mine] of [[t.window_trend, js.trend], [t.window_trend_se, js.trendSe], [t.window_trend_df, js.trendDf]]) {
    assert.ok(Math.abs(sql - mine) < 1e-9, `${sql} vs ${mine}`);
  }
  assert.ok(w.trend_rho > 0.3 && t.window_trend_df < step.length - 2, `${w.trend_rho} ${t.window_trend_df}`);
});

test('round_window_trend for one round is planned for that round: no CTE computed for every round', async () => {
  // A materialized CTE cannot take `WHERE round_id = ...`: it would aggregate every round's
  // requests on each call, and the report asks round by round.
  const plan = (await db.query('EXPLAIN SELECT * FROM report_round_steady WHERE round_id = 1')).rows.map((r) => r['QUERY PLAN']).join('\n');
  assert.doesNotMatch(plan, /CTE Scan/, plan);
});

test('throttling: the share of CFS periods an instance was throttled in, inside the window', async () => {
  const r = await round({ measure_from_s: 2, stop_at_s: 12, app_instances: 2 });
  const sample = (index, s, periods, throttled) => db.query(`INSERT INTO instance_stats (round_id, platform, app, instance_index,
      sampled_at, cpu, mem_bytes, cpu_quota_cores, source, cpu_periods, cpu_throttled_periods, cpu_throttled_us)
    VALUES ($1, 'local', 'node-app', $2, $3, 0.1, 1000, 0.1, 'local', $4, $5, $6)`,
  [r.id, index, new Date(r.start.getTime() + s * 1000), periods, throttled, throttled * 90_000]);
  // Instance 0: the warm-up sample (1 s) is before the window; 9 of 10 periods throttled after.
  for (const [s, p, th] of [[1, 0, 0], [3, 10, 2], [4, 20, 11], [5, 30, 20]]) await sample(0, s, p, th);
  // Instance 1: restarted (counters back to 0): that step is not a delta.
  for (const [s, p, th] of [[3, 50, 5], [4, 2, 1], [5, 12, 2]]) await sample(1, s, p, th);
  const h = await one('SELECT * FROM round_throttling WHERE round_id = $1', r.id);
  // Instance 0 inside the window: 2 + 9 + 9 of 30 periods (the step to the 3 s sample ends inside it).
  assert.ok(Math.abs(h.throttled_fraction_max - 20 / 30) < 1e-9, String(h.throttled_fraction_max));
  const series = (await db.query('SELECT instance_index, second, periods, throttled_periods FROM round_instance_series WHERE round_id = $1 ORDER BY 1, 2', [r.id])).rows;
  assert.deepEqual(series.filter((x) => x.instance_index === 1).map((x) => x.periods === null ? null : Number(x.periods)), [null, null, 10]);
  assert.match(steadyLines(await loadSteady(db, r.id)).join('\n'),
    /^CPU throttling: throttled in 66\.7 % of its CFS periods \(most throttled instance\); a throttled request waits for the next period$/m);
});

test('the first round after a change names what changed; the same configuration again is not marked', async () => {
  const app = 'change-app';
  const a = await round({ app, settings: { POOL: '10' }, environment: { app_cpu_quota_cores: 0.1 } });
  const b = await round({ app, app_instances: 2, settings: { POOL: '10' }, environment: { app_cpu_quota_cores: 0.1 } });
  const c = await round({ app, app_instances: 2, settings: { POOL: '10' }, environment: { app_cpu_quota_cores: 0.1 } });
  const d = await round({ app, app_instances: 2, settings: { POOL: '20' }, plan: { loadbalancing: 'least-connection' },
    environment: { app_cpu_quota_cores: 0.1 } });
  // The container memory (run-round: environment.app_memory_mb), compared once both rounds recorded it.
  const e = await round({ app, app_instances: 2, settings: { POOL: '20' }, plan: { loadbalancing: 'least-connection' },
    environment: { app_cpu_quota_cores: 0.1, app_memory_mb: 512 } });
  const f = await round({ app, app_instances: 2, settings: { POOL: '20' }, plan: { loadbalancing: 'least-connection' },
    environment: { app_cpu_quota_cores: 0.1, app_memory_mb: 1024 } });
  const g = await round({ app, app_instances: 2, settings: { POOL: '20' }, plan: { loadbalancing: 'least-connection' },
    environment: { app_cpu_quota_cores: 0.1, app_memory_mb: 1024 } });
  const rows = (await db.query('SELECT round_id, prev_round_id, first_after_change, changes FROM round_changes WHERE round_id = ANY($1) ORDER BY round_id',
    [[a.id, b.id, c.id, d.id, e.id, f.id, g.id]])).rows;
  assert.deepEqual(rows.map((x) => [Number(x.round_id), x.prev_round_id === null ? null : Number(x.prev_round_id), x.first_after_change, x.changes]), [
    [a.id, null, false, []],
    [b.id, a.id, true, ['instances: 1 → 2']],
    [c.id, b.id, false, []],
    [d.id, c.id, true, ['loadbalancing: round-robin → least-connection', 'settings: {"POOL": "10"} → {"POOL": "20"}']],
    [e.id, d.id, false, []],
    [f.id, e.id, true, ['memory_mb: 512 → 1024']],
    [g.id, f.id, false, []],
  ]);
  assert.match(steadyLines(await loadSteady(db, b.id)).join('\n'),
    new RegExp(`^first round after a change since round ${a.id}: instances: 1 → 2 \\(figures may include its after-effects\\)$`, 'm'));
});
