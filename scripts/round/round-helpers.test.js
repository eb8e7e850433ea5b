'use strict';
// round-helpers.test.js — the round helpers (createRound, waitRound, finishRound as
// run-round calls them; show-round and rounds-table as CLIs) against a real PostgreSQL with the real schema and
// inserted rows: createRound waiting for idle loadgens (plain connections named like
// them), the verdict of each kind of failed round, the warm-up cut, the summary text,
// the status written back, the progress wait and its deadline.
const test = require('node:test');
const assert = require('node:assert/strict');
const { Client } = require('pg');
const { testDatabases } = require('../../lib/test-db');
const { createRound: insertRound, NotReadyError } = require('./create-round');
const { finishRound } = require('./finish-round');
const { waitRound } = require('./wait-round');
const { showRound } = require('./show-round');
const { printRounds } = require('./rounds-table');
const { captureStdout } = require('../test-support/capture-stdout');
const testDbs = testDatabases(require('pg'), 'cf');

let testDb;
let adminUrl;
let url;
let db;

test.before(async () => {
  testDb = await testDbs.open('cfscale_scripts');
  ({ url, adminUrl } = testDb);
  db = new Client({ connectionString: url });
  await db.connect();
});

test.after(async () => {
  await db.end();
  await testDb.close();
});

/** finishRound on the test's connection: { code, stdout } as the summary is printed. */
async function finish(round, opts = {}) {
  const { code, text } = await finishRound(db, { round, ...opts });
  return { code, stdout: text, stderr: '' };
}

/** waitRound on the test's connection: { code, stderr } with its progress lines. */
async function wait(round, opts) {
  let stderr = '';
  const code = await waitRound(db, { round, ...opts, stderr: { isTTY: false, write: (text) => { stderr += text; } } });
  return { code, stderr };
}

const BASE_ROUND = {
  platform: 'local', app: 'node-app', target_url: 'http://127.0.0.1:1', host_header: 'node-app.localhost',
  app_instances: 2, loadgens: 2, model: 'closed', parallel: 4, duration_ms: 10000, warmup_ms: 0,
  timeout_ms: 10000, keepalive: true, scenario: 'read', label: 'unit', versions: { node: 'v20' },
  environment: { host_cpus: 2 }, settings: { DB_POOL_SIZE: '10' },
};

async function createRound(fields = {}) {
  return (await insertRound(db, { ...BASE_ROUND, ...fields }, { startLeadMs: 0 })).id;
}

/** Loadgen rows [index, status, errors], requests (ok and failed, all 1 s after start). */
async function fill(id, { loadgens = [[0, 'done'], [1, 'done']], ok = 90, failed = 10, earlyOk = 0 } = {}) {
  for (const [index, status] of loadgens) {
    await db.query(`INSERT INTO loadgen_runs (round_id, instance_index, status, sent, ok, errors, cpu_user_ms, cpu_system_ms,
      eloop_delay_p99_us, eloop_delay_max_us, rss_max_bytes, cpu_periods, cpu_throttled_periods, cpu_throttled_ms, started_at, finished_at)
      VALUES ($1, $2, $3, 50, 45, 5, 300, 100, 2000, 5000, 60000000, 100, 20, 1500, now() - interval '10 s', now())`, [id, index, status]);
  }
  const insert = (n, offsetSec, kind, latencyUs) => db.query(`
    INSERT INTO requests (correlation_id, round_id, loadgen_index, op, intended_at, started_at, latency_us, status, error_kind)
    SELECT gen_random_uuid(), $1, g % 2, 'read', r.start_at + make_interval(secs => $3 + g / 1000.0),
           r.start_at + make_interval(secs => $3 + g / 1000.0), $5 + g, CASE WHEN $4::text IS NULL THEN 200 ELSE 0 END, $4
      FROM rounds r, generate_series(1, $2) g WHERE r.id = $1`, [id, n, offsetSec, kind, latencyUs]);
  await insert(ok, 1, null, 1000);
  if (failed > 0) await insert(failed, 1, 'timeout', 10000000);
  if (earlyOk > 0) await insert(earlyOk, 0, null, 999999);
  await db.query(`INSERT INTO instance_stats (round_id, platform, app, instance_index, sampled_at, cpu, mem_bytes, mem_quota_bytes, cpu_quota_cores, source)
    VALUES ($1, 'local', 'node-app', 0, now(), 0.5, 50000000, 209715200, 0.2, 'local'),
           ($1, 'local', 'node-app', 1, now(), 0.25, 40000000, 209715200, 0.2, 'local')`, [id]);
}

test('create-round: the id and start_at come from the database, every column stored', async () => {
  const out = await insertRound(db, BASE_ROUND, { startLeadMs: 3000 });
  const { rows } = await db.query(`SELECT *, extract(epoch FROM start_at - created_at) AS lead_s FROM rounds WHERE id = $1`, [out.id]);
  const r = rows[0];
  assert.ok(r.lead_s >= 2.9 && r.lead_s <= 3.5, `lead ${r.lead_s}`);
  assert.equal(r.status, 'pending');
  assert.equal(r.host_header, 'node-app.localhost');
  assert.deepEqual(r.settings, { DB_POOL_SIZE: '10' });
  // The versions given, and the results database's server.
  assert.equal(r.versions.node, 'v20');
  assert.match(r.versions.postgresql_results_db, /^\d+\.\d+/);
  assert.equal(new Date(out.start_at).getTime(), r.start_at.getTime());
});

/** A plain connection that looks like loadgen `index` in `state` (its application_name). */
async function fakeLoadgen(index, state, dbUrl = url) {
  const c = new Client({ connectionString: dbUrl, application_name: `cfscale-loadgen:${index}:${state}` });
  await c.connect();
  return c;
}

test('createRound waitLoadgens: inserts once instances 0..N-1 are idle, NotReadyError naming the absent and busy ones', async (t) => {
  const conns = [];
  t.after(() => Promise.all(conns.map((c) => c.end())));
  const round = (label) => ({ ...BASE_ROUND, label });
  const inserted = async (label) => (await db.query('SELECT count(*)::int AS n FROM rounds WHERE label = $1', [label])).rows[0].n;
  // Not ready: 1 is idle only in another database, 2 is busy.
  conns.push(await fakeLoadgen(0, 'idle'), await fakeLoadgen(1, 'idle', adminUrl), await fakeLoadgen(2, 'busy'));
  await assert.rejects(insertRound(db, round('not-ready'), { startLeadMs: 0, waitLoadgens: 3, readyTimeoutMs: 1000 }),
    (err) => err instanceof NotReadyError && err.message === 'loadgen instances not ready after 1s: 1 (absent), 2 (busy)');
  assert.equal(await inserted('not-ready'), 0);
  // Ready while waiting: 1 connects, 2 turns idle 300 ms later; the round comes after that.
  conns.push(await fakeLoadgen(1, 'idle'));
  const waiting = insertRound(db, round('ready'), { startLeadMs: 0, waitLoadgens: 3, readyTimeoutMs: 10000 });
  await new Promise((r) => setTimeout(r, 300));
  const idleAt = Date.now();
  await conns[2].query("SET application_name = 'cfscale-loadgen:2:idle'");
  const created = await waiting;
  assert.ok(new Date(created.created_at).getTime() >= idleAt - 50, 'inserted before every loadgen was idle');
  assert.equal(await inserted('ready'), 1);
});

test('finish-round: the verdict, the status written back, the exit code', async (t) => {
  const cases = [
    { name: 'all done, errors under the limit', fill: { ok: 995, failed: 5 }, code: 0, status: 'done', want: /^verdict: ok$/m },
    { name: 'error rate above --max-error-rate', fill: { ok: 90, failed: 10 }, opts: { maxErrorRate: 0.05 }, code: 2, status: 'failed',
      want: /verdict: FAILED: error rate 10\.00 % above --max-error-rate 5\.00 %/ },
    { name: 'a loadgen never started', fill: { loadgens: [[0, 'done']], failed: 0 }, code: 2, status: 'failed', want: /loadgen 1 never started/ },
    // Alive (its busy connection is there): not taken for dead (lost-loadgens.test.js).
    { name: 'a loadgen still running', fill: { loadgens: [[0, 'done'], [1, 'running']], failed: 0 }, busy: 1, code: 2, status: 'failed', want: /loadgen 1 did not finish \(running\)/ },
    { name: 'no samples', fill: { ok: 0, failed: 0 }, code: 2, status: 'failed', want: /no samples/ },
    { name: 'cancelled', fill: { failed: 0 }, opts: { cancel: true }, code: 2, status: 'cancelled', want: /verdict: FAILED: cancelled/ },
  ];
  for (const c of cases) {
    await t.test(c.name, async () => {
      const id = await createRound();
      await fill(id, c.fill);
      const alive = c.busy === undefined ? null : await fakeLoadgen(c.busy, 'busy');
      const res = await finish(id, c.opts);
      if (alive) await alive.end();
      assert.equal(res.code, c.code, res.stdout + res.stderr);
      assert.match(res.stdout, c.want);
      const { rows } = await db.query('SELECT status, finished_at FROM rounds WHERE id = $1', [id]);
      assert.equal(rows[0].status, c.status);
      assert.ok(rows[0].finished_at);
    });
  }
});

test('finish-round: the planner knows the round\'s size (its tables analyzed on round_id), not one row', async () => {
  const id = await createRound();
  await fill(id, { ok: 2000, failed: 0 });
  const estimate = async () => (await db.query(`EXPLAIN (FORMAT JSON) SELECT * FROM requests WHERE round_id = ${id}`)).rows[0]['QUERY PLAN'][0].Plan['Plan Rows'];
  const before = await estimate();
  await finish(id);
  const after = await estimate();
  assert.ok(after >= 1000, `estimated ${after} rows of 2000 after finish-round (before: ${before})`);
});

test('finish-round: a round\'s BRIN ranges are summarized, so the next round\'s queries do not read it', async () => {
  const id = await createRound();
  await fill(id, { ok: 30000, failed: 0 });
  await finish(id);
  const left = (await db.query("SELECT brin_summarize_new_values('requests_round_brin') AS n")).rows[0].n;
  assert.equal(left, 0, `${left} page ranges of requests left unsummarized after finish-round`);
  const opts = (await db.query("SELECT reloptions FROM pg_class WHERE relname = 'requests_round_brin'")).rows[0].reloptions;
  assert.deepEqual(opts, ['autosummarize=on']);
});

test('the window-mean CPU is of the measured window\'s samples: not the warm-up\'s, not the idle seconds after stop_at', async () => {
  const id = await createRound({ app_instances: 1, warmup_ms: 2000 });
  // Window 2 s .. 12 s after start: warm-up at 0.05, the window at the quota, the drain after it idle.
  await db.query('UPDATE rounds SET stop_at = start_at + interval \'12 s\' WHERE id = $1', [id]);
  await db.query(`INSERT INTO instance_stats (round_id, platform, app, instance_index, sampled_at, cpu, mem_bytes, mem_quota_bytes, cpu_quota_cores, source)
    SELECT $1, 'local', 'node-app', 0, r.start_at + make_interval(secs => g), CASE WHEN g < 2 THEN 0.05 WHEN g <= 12 THEN 0.2 ELSE 0.01 END,
           50000000, 209715200, 0.2, 'local'
      FROM rounds r, generate_series(0, 15) g WHERE r.id = $1`, [id]);
  const { rows: [u] } = await db.query('SELECT samples::int, cpu_used_cores, cpu_utilisation FROM report_round_resources WHERE round_id = $1', [id]);
  assert.deepEqual({ samples: u.samples, cpu: Number(u.cpu_used_cores.toFixed(6)), share: Number(u.cpu_utilisation.toFixed(6)) }, { samples: 11, cpu: 0.2, share: 1 });
  const measured = (await db.query('SELECT count(*) FILTER (WHERE measured)::int AS n FROM round_instance_series WHERE round_id = $1', [id])).rows[0].n;
  assert.equal(measured, 11, 'the series marks the same samples measured');
});
test('finish-round: the summary leaves warm-up samples out and shows instances, events and loadgens', async () => {
  const id = await createRound({ warmup_ms: 500 });
  await fill(id, { ok: 100, failed: 0, earlyOk: 50 });
  await db.query(`INSERT INTO instance_events (round_id, platform, app, instance_index, kind, detail)
    VALUES ($1, 'local', 'node-app', 1, 'oom', 'APP/PROC/WEB: Exited with status 137 (out of memory)')`, [id]);
  const res = await finish(id);
  assert.equal(res.code, 0, res.stderr);
  const out = res.stdout;
  assert.match(out, /^requests: 100 after warm-up, 100 ok, 0 errors \(0\.00 %\)$/m);
  assert.match(out, /^latency: p50 1\.05 ms, p95 1\.10 ms, p99 1\.10 ms, max 1\.10 ms$/m);
  assert.match(out, /^ {2}0 +50\.0 % +50\.0 % +0\.20 cores +47\.7 MB/m);
  assert.match(out, /^ {2}instance 1: oom \(APP\/PROC\/WEB: Exited with status 137 \(out of memory\)\)/m);
  // A starved loadgen shows: throttled CFS periods of its cgroup and the time throttled.
  assert.match(out, /^ {2}1 +done +50 +45 +5 +0 +4\.0 % +20\/100 periods, 1500 ms +2\.00 ms +5\.00 ms +57\.2 MB$/m);
  assert.match(out, /^traced: 0 server timings, 0 router records, 2 stats samples$/m);
  assert.doesNotMatch(out, /generator send lateness/, 'a closed round measures from the send');
  assert.equal(await captureStdout(() => showRound(url, id)), out);
});

test('finish-round: an open round\'s summary shows the generator\'s send lateness beside the latencies, marked when it weighs', async () => {
  const id = await createRound({ model: 'open', rate: 100 });
  await fill(id, { ok: 100, failed: 0 });
  await db.query("UPDATE requests SET started_at = intended_at + interval '2 ms' WHERE round_id = $1", [id]);
  const res = await finish(id);
  assert.equal(res.code, 0, res.stderr);
  assert.match(res.stdout, /^generator send lateness \(part of the latency\): p50 2\.00 ms, p99 2\.00 ms: GENERATOR LATE, p99 over 10 % of the latency p50$/m);
});

test('finish-round: the summary shows router records against requests and stats samples against those expected', async () => {
  // 10 s, 2 instances, a sample every 2.5 s: 3 expected per instance (4, less one for an edge), 2 stored in all;
  // 60 of the 100 requests reached the router log.
  const id = await createRound({ environment: { stats_source: 'v3', stats_interval_s: 2.5 } });
  await fill(id, { ok: 100, failed: 0 });
  await db.query("UPDATE requests SET vcap_request_id = 'v-' || correlation_id WHERE round_id = $1", [id]);
  await db.query(`INSERT INTO router_timings (round_id, platform, app, at, vcap_request_id)
    SELECT round_id, 'local', 'node-app', started_at, vcap_request_id FROM requests WHERE round_id = $1 ORDER BY started_at LIMIT 60`, [id]);
  const res = await finish(id);
  assert.equal(res.code, 0, res.stderr);
  assert.match(res.stdout, /^router records: 60 of 100 requests \(60\.0 %\)$/m);
  assert.match(res.stdout, /^stats samples in the measured window: 2 of 6 expected \(one per 2\.5 s per instance\): SHORT, samples were lost \(CPU and memory figures rest on fewer\)$/m);
  // A round that recorded no stats interval is not judged.
  const old = await createRound();
  await fill(old, { ok: 10, failed: 0 });
  const plain = await finish(old);
  assert.match(plain.stdout, /^router records: 0 of 10 requests \(0\.0 %\)$/m);
  assert.match(plain.stdout, /^stats samples in the measured window: 2$/m);
});

test('wait-round: returns 0 once every loadgen row is final, 2 at the deadline', async () => {
  const done = await createRound();
  await fill(done, { failed: 0 });
  let res = await wait(done, { deadlineMs: 60000 });
  assert.equal(res.code, 0, res.stderr);
  assert.match(res.stderr, new RegExp(`round ${done}: .*loadgens done 2/2`));
  const stuck = await createRound();
  await fill(stuck, { loadgens: [[0, 'done'], [1, 'running']], failed: 0 });
  res = await wait(stuck, { deadlineMs: 300, pollMs: 50 });
  assert.equal(res.code, 2);
  assert.match(res.stderr, /deadline reached .* 1 of 2 loadgens finished/);
});

test('rounds-table: newest first, filtered by app', async () => {
  const java = await createRound({ app: 'java-app', label: 'java-one' });
  const lines = (await captureStdout(() => printRounds(url, { last: 2 }))).trim().split('\n');
  assert.match(lines[0], /^id +created \(UTC\) +app +platform +status/);
  assert.equal(lines.length, 3);
  assert.match(lines[1], new RegExp(`^${java} .* java-app +local +pending +2 +2xp4 +10s .*java-one$`));
  assert.ok(!(await captureStdout(() => printRounds(url, { app: 'node-app' }))).includes('java-app'));
});
