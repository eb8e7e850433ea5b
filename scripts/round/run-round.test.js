'use strict';
// run-round.test.js — scripts/run-round.sh through a whole round on PLATFORM=cf with the
// fake cf of the dry-run tests (test/fixtures/fake-cf.js), a fake curl (every pinned
// instance request answers 200) and a real PostgreSQL results database; the loadgen is
// played by this test (a connection named like an idle loadgen, its loadgen_runs row).
// Pinned: the summary then `round_id=N` as the last stdout line with the verdict's exit
// code; crash events since the round was created ingested; SIGTERM mid-round → exit 130, the round cancelled, no collector left running;
// SIGTERM while waiting for the loadgens → exit 130 at once, no round inserted; the
// connections of run-round and the collectors terminated mid-round (57P01) → reconnected,
// the round final with its summary, and a stale round reaped before the new one.
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const { spawn, spawnSync } = require('node:child_process');
const { Client } = require('pg');
const { createTestDb } = require('../test/test-db');
const { makeWorld, removeWorlds, worldEnv, ROOT } = require('../test/fake-cf-world');

let testDb;
let url;
let db;
let world;

test.before(async () => {
  testDb = await createTestDb('cfscale_run_round');
  url = testDb.url;
  db = new Client({ connectionString: url });
  await db.connect();

  world = makeWorld({ apps: { 'node-app': { instances: 1 }, loadgen: { instances: 1 } } });
  fs.writeFileSync(path.join(world, 'bin/curl'), '#!/bin/sh\necho ok\n', { mode: 0o755 });
});

test.after(async () => {
  if (db) await db.end();
  if (testDb) await testDb.close();
  removeWorlds();
});

/** run-round.sh started in the world: { child, done: Promise<{ code, signal, stdout, stderr }> }. */
function startRound(label) {
  const child = spawn('bash', [path.join(ROOT, 'scripts/run-round.sh'), '--app', 'node-app', '--duration', '2s',
    '--seed-ads', '0', '--stats-source', 'v3', '--label', label], {
    env: { ...worldEnv(world), RESULTS_DATABASE_URL: url },
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d) => { stdout += d; });
  child.stderr.on('data', (d) => { stderr += d; });
  const done = new Promise((resolve) => child.on('close', (code, signal) => resolve({ code, signal, stdout, stderr })));
  return { child, done };
}

/** A connection that looks like loadgen instance 0, connected and idle. */
async function idleLoadgen() {
  const c = new Client({ connectionString: url, application_name: 'cfscale-loadgen:0:idle' });
  await c.connect();
  return c;
}

async function until(what, fn, timeoutMs = 30000) {
  const t0 = Date.now();
  for (;;) {
    const v = await fn();
    if (v) return v;
    assert.ok(Date.now() - t0 < timeoutMs, `timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

const roundOf = (label) => until(`round ${label}`, async () => (await db.query('SELECT * FROM rounds WHERE label = $1', [label])).rows[0]);

/** Processes still running with this round's collector arguments. */
function collectorsOf(id) {
  return spawnSync('pgrep', ['-f', '--', `--round ${id} --platform cf --db ${url}`], { encoding: 'utf8' }).stdout.trim();
}

test('a finished round: the summary, then round_id=N as the last line; the verdict is the exit code', { timeout: 60000 }, async () => {
  const loadgen = await idleLoadgen();
  try {
    const run = startRound('finished');
    const round = await roundOf('finished');
    await db.query("INSERT INTO loadgen_runs (round_id, instance_index, status, finished_at) VALUES ($1, 0, 'done', now())", [round.id]);
    const res = await run.done;
    // No requests were recorded: the round fails its own criteria.
    assert.equal(res.code, 2, res.stderr);
    const lines = res.stdout.trim().split('\n');
    assert.equal(lines[lines.length - 1], `round_id=${round.id}`);
    assert.match(res.stdout, new RegExp(`^round ${round.id}: node-app on cf, 1 instance`));
    assert.match(res.stdout, /^verdict: FAILED: no samples$/m);
    assert.match(res.stderr, new RegExp(`^run-round: round ${round.id}: node-app x1, 1 loadgen\\(s\\), starts at `, 'm'));
    const after = (await db.query('SELECT status, plan, target_url FROM rounds WHERE id = $1', [round.id])).rows[0];
    assert.deepEqual(after, { status: 'failed', plan: { prewarm: 0 }, target_url: 'https://cfscale-CHANGE-ME-node-app.apps.example.com' });
    assert.equal(collectorsOf(round.id), '');
  } finally {
    await loadgen.end();
  }
});

test('connections terminated mid-round (57P01, as at a fast shutdown): run-round and the collectors reconnect, the summary, the round final; a stale round reaped first', { timeout: 60000 }, async () => {
  const loadgen = await idleLoadgen();
  try {
    const { rows: [stale] } = await db.query(`INSERT INTO rounds (platform, app, target_url, app_instances, loadgens, model, parallel,
        duration_ms, start_at, heartbeat_at, label)
      VALUES ('cf', 'node-app', 'http://x', 1, 1, 'closed', 1, 1000, now() - interval '1 hour', now() - interval '1 hour', 'stale')
      RETURNING id`);
    const run = startRound('blink');
    const round = await roundOf('blink');
    await until('the collectors', () => collectorsOf(round.id) !== '');
    const ours = `FROM pg_stat_activity WHERE datname = current_database() AND application_name IN ('cfscale-run-round', 'cfscale-ingest')`;
    // run-round's own and both collectors' (stats, router log)
    await until('three connections', async () => (await db.query(`SELECT count(*)::int AS n ${ours}`)).rows[0].n === 3);
    assert.equal((await db.query(`SELECT pg_terminate_backend(pid) ${ours}`)).rows.length, 3);
    await until('run-round reconnected', async () => (await db.query(`SELECT count(*)::int AS n ${ours}`)).rows[0].n >= 1);
    await db.query(`SELECT pg_terminate_backend(pid) ${ours}`);
    await db.query("INSERT INTO loadgen_runs (round_id, instance_index, status, finished_at) VALUES ($1, 0, 'done', now())", [round.id]);
    const res = await run.done;
    assert.equal(res.code, 2, res.stderr); // no samples: the verdict, not the blink
    assert.doesNotMatch(res.stderr, /at .*\.js:\d+|Unhandled|NOT WRITTEN/);
    assert.match(res.stdout, /^verdict: FAILED: no samples$/m);
    assert.match(res.stdout, new RegExp(`^round_id=${round.id}$`, 'm'));
    assert.match(res.stderr, new RegExp(`^run-round: reaped round ${stale.id}: failed: control process gone: no heartbeat since `, 'm'));
    const after = (await db.query('SELECT id, status, status_reason, heartbeat_at IS NOT NULL AS beat FROM rounds WHERE id = ANY($1) ORDER BY id',
      [[stale.id, round.id]])).rows;
    assert.deepEqual(after.map((r) => [r.status, r.beat]), [['failed', true], ['failed', true]]);
    assert.equal(after[1].status_reason, 'no samples');
    assert.equal(collectorsOf(round.id), '');
  } finally {
    await loadgen.end();
  }
});

test('rounds.sh --reap: the rounds whose control process is gone marked failed, one line each', { timeout: 60000 }, async () => {
  const { rows: [stale] } = await db.query(`INSERT INTO rounds (platform, app, target_url, app_instances, loadgens, model, parallel,
      duration_ms, start_at, heartbeat_at, label)
    VALUES ('cf', 'node-app', 'http://x', 1, 1, 'closed', 1, 1000, now() - interval '1 hour', now() - interval '3 minutes', 'stale-2')
    RETURNING id`);
  const res = spawnSync('bash', [path.join(ROOT, 'scripts/rounds.sh'), '--reap'],
    { env: { ...worldEnv(world), RESULTS_DATABASE_URL: url }, encoding: 'utf8' });
  assert.equal(res.status, 0, res.stderr);
  assert.match(res.stdout, new RegExp(`^round ${stale.id}: failed: control process gone: no heartbeat since `, 'm'));
  assert.match(res.stdout, /^reap-rounds: 1 round\(s\) reaped$/m);
  assert.equal((await db.query('SELECT status FROM rounds WHERE id = $1', [stale.id])).rows[0].status, 'failed');
});

test('crash events reach instance_events: CC takes whole seconds (created_ats[gte], the second the round was created in)', { timeout: 60000 }, async () => {
  const statePath = path.join(world, 'state.json');
  const saved = fs.readFileSync(statePath, 'utf8');
  const loadgen = await idleLoadgen();
  try {
    const run = startRound('crashed');
    const round = await roundOf('crashed');
    // The round was created within this second: CC shows the crash under the same whole second.
    const createdSecondMs = Math.floor(round.created_at.getTime() / 1000) * 1000;
    const iso = (ms) => `${new Date(ms).toISOString().slice(0, 19)}Z`;
    const oom = 'APP/PROC/WEB: Exited with status 137 (out of memory)';
    fs.writeFileSync(statePath, JSON.stringify({ ...JSON.parse(saved), auditEvents: [
      { app: 'node-app', created_at: iso(createdSecondMs), index: 0, exit_description: oom },
      { app: 'node-app', created_at: iso(createdSecondMs - 1000), index: 1, exit_description: 'before the round' },
    ] }));
    await db.query("INSERT INTO loadgen_runs (round_id, instance_index, status, finished_at) VALUES ($1, 0, 'done', now())", [round.id]);
    const res = await run.done;
    assert.equal(res.code, 2, res.stderr);
    assert.doesNotMatch(res.stderr, /not ingested/);
    assert.deepEqual((await db.query('SELECT instance_index, kind, detail FROM instance_events WHERE round_id = $1', [round.id])).rows,
      [{ instance_index: 0, kind: 'oom', detail: `CRASHED: ${oom}` }]);
    assert.match(res.stdout, /^ {2}instance 0: oom \(CRASHED: APP\/PROC\/WEB: Exited with status 137 \(out of memory\)\)/m);
  } finally {
    fs.writeFileSync(statePath, saved);
    await loadgen.end();
  }
});

test('SIGTERM mid-round: exit 130, the round cancelled, the collectors stopped', { timeout: 60000 }, async () => {
  const loadgen = await idleLoadgen();
  try {
    const run = startRound('interrupted');
    const round = await roundOf('interrupted');
    await until('the collectors', () => collectorsOf(round.id) !== '');
    run.child.kill('SIGTERM');
    const res = await run.done;
    assert.equal(res.code, 130, res.stderr);
    assert.match(res.stderr, new RegExp(`^run-round: interrupted: cancelling round ${round.id}$`, 'm'));
    assert.doesNotMatch(res.stdout, /round_id=/);
    assert.equal((await db.query('SELECT status FROM rounds WHERE id = $1', [round.id])).rows[0].status, 'cancelled');
    assert.equal(collectorsOf(round.id), '');
  } finally {
    await loadgen.end();
  }
});

test('SIGTERM while waiting for the loadgens: exit 130 at once, no round inserted', { timeout: 60000 }, async () => {
  const run = startRound('never-ready');
  await until('the wait for loadgens', async () => (await db.query(
    "SELECT 1 FROM pg_stat_activity WHERE datname = current_database() AND application_name = 'cfscale-run-round'")).rows.length > 0);
  const t0 = Date.now();
  run.child.kill('SIGTERM');
  const res = await run.done;
  assert.equal(res.code, 130, res.stderr);
  // The ready timeout on cf is 120 s: well before it.
  assert.ok(Date.now() - t0 < 30000, 'stopped waiting for the loadgens');
  assert.match(res.stderr, /^run-round: interrupted: cancelling round <round>$/m);
  assert.equal((await db.query("SELECT count(*)::int AS n FROM rounds WHERE label = 'never-ready'")).rows[0].n, 0);
});
