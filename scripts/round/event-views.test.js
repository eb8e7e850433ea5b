'use strict';
// event-views.test.js — the views of events inside a round (results-schema.sql
// round_event_stages, round_event_traffic) on rows written straight into a real PostgreSQL,
// with known answers: a scale-out's new instance stage by stage (its stages add up to its
// end-to-end time), a scale-in's stopped instance (SIGTERM, last answer, a reset the router
// had sent it), a rolling deployment told apart by the router's instance guid, and the
// traffic around each.
const test = require('node:test');
const assert = require('node:assert/strict');
const { Client } = require('pg');
const { testDatabases } = require('../../lib/test-db');

const testDbs = testDatabases(require('pg'), 'cf');
const { loadEvents, eventLines } = require('./event-summary');

let testDb;
let db;

test.before(async () => {
  testDb = await testDbs.open('cfscale_event_views');
  db = new Client({ connectionString: testDb.url });
  await db.connect();
});

test.after(async () => {
  await db.end();
  await testDb.close();
});

const START = Date.parse('2026-11-21T10:00:00Z');
const T0 = START + 40_000; // the event, 40 s after the start
const at = (s) => new Date(T0 + s * 1000);
let n = 0;

async function round() {
  const { rows } = await db.query(`INSERT INTO rounds (start_at, status, platform, app, target_url, app_instances, loadgens, model,
      parallel, duration_ms, measure_from, stop_at)
    VALUES ($1, 'done', 'local', 'node-app', 'http://x', 2, 1, 'closed', 1, 60000, $2, $3) RETURNING id`,
  [new Date(START), new Date(START + 10_000), new Date(START + 70_000)]);
  return Number(rows[0].id);
}

/** One request sent s seconds after t0; f: {instance, latencyMs, error, vcap, guid (the router's record)}. */
async function request(round, s, f = {}) {
  n += 1;
  const id = `00000000-0000-7000-8000-${String(n).padStart(12, '0')}`;
  const vcap = f.error ? null : `vcap-${n}`;
  await db.query(`INSERT INTO requests (correlation_id, round_id, loadgen_index, op, intended_at, started_at, latency_us, status,
      error_kind, app_instance, vcap_request_id) VALUES ($1, $2, 0, 'read', $3, $3, $4, $5, $6, $7, $8)`,
  [id, round, at(s), (f.latencyMs ?? 2) * 1000, f.error ? 0 : 200, f.error ?? null, f.error ? null : f.instance, vcap]);
  if (f.routed !== false) {
    await db.query(`INSERT INTO router_timings (round_id, platform, app, at, status, app_index, instance_id, vcap_request_id, correlation_id)
      VALUES ($1, 'local', 'node-app', $2, $3, $4, $5, $6, $7)`, [round, at(s), f.error ? 502 : 200, f.instance, f.guid ?? null, vcap ?? `rt-${n}`, id]);
  }
}

async function event(round, kind, before, after) {
  await db.query(`INSERT INTO round_events (round_id, seq, kind, at_ms, instances_before, instances_after, t0, command, exit_code, settled_at)
    VALUES ($1, 1, $2, 30000, $3, $4, $5, 'cf x', 0, $6)`, [round, kind, before, after, at(0), at(5)]);
}

async function instance(round, role, index, guid, seen, running) {
  await db.query(`INSERT INTO round_event_instances (round_id, seq, role, instance_index, instance_guid, seen_at, running_at)
    VALUES ($1, 1, $2, $3, $4, $5, $6)`, [round, role, index, guid, seen === null ? null : at(seen), running === null ? null : at(running)]);
}

const stage = async (round, guid) => (await db.query('SELECT * FROM round_event_stages WHERE round_id = $1 AND instance_guid = $2', [round, guid])).rows[0];
const traffic = async (round) => (await db.query('SELECT * FROM round_event_traffic WHERE round_id = $1', [round])).rows[0];

test('scale-out: a new instance stage by stage; the stages add up to its end-to-end time; its first 60 s against the steady p99', async () => {
  const r = await round();
  for (let s = -20; s < 0; s += 0.5) await request(r, s, { instance: s % 1 === 0 ? 0 : 1, latencyMs: 2 });
  await event(r, 'scale', 2, 4);
  await instance(r, 'new', 2, 'g2', 0.5, 1.5);
  await request(r, 1.0, { instance: 0, latencyMs: 2 });
  await request(r, 2.0, { instance: 2, latencyMs: 100 }); // the first it serves: 2.0 s + 100 ms
  for (let s = 3; s < 10; s += 1) await request(r, s, { instance: 2, latencyMs: 4 });
  const x = await stage(r, 'g2');
  assert.deepEqual([x.queued_ms, x.starting_ms, x.routing_ms, x.first_request_ms, x.end_to_end_ms].map(Number), [500, 1000, 500, 100, 2100]);
  assert.equal(Number(x.queued_ms) + Number(x.starting_ms) + Number(x.routing_ms) + Number(x.first_request_ms), Number(x.end_to_end_ms));
  assert.equal(Number(x.first_60s_samples), 8);
  const t = await traffic(r);
  assert.equal(Number(t.baseline_p99_us), 2000);
  assert.ok(Math.abs(Number(x.first_60s_p99_pct) - (Number(x.first_60s_p99_us) / 2000) * 100) < 1e-9);
  assert.deepEqual([Number(t.old_samples), Number(t.old_errors), Number(t.errors)], [41, 0, 0], 'old instances 0 and 1 in [t0 − 30 s, t0 + 60 s]');
  const lines = eventLines(await loadEvents(db, r));
  assert.equal(lines.filter((l) => /first served request after 2\.10 s: queued 0\.50 s \+ starting 1\.00 s \+ routing 0\.50 s \+ answering 0\.10 s/.test(l)).length, 1, lines.join('\n'));
});

test('scale-in: the stopped instance\'s SIGTERM, last answer, and the reset the router had sent it', async () => {
  const r = await round();
  for (let s = -10; s < 0; s += 1) await request(r, s, { instance: 1 });
  await event(r, 'scale', 2, 1);
  await instance(r, 'stopped', 1, 'g1', null, null);
  await db.query(`INSERT INTO instance_events (round_id, platform, app, instance_index, at, kind, detail)
    VALUES ($1, 'local', 'node-app', 1, $2, 'stop', 'instance g1')`, [r, at(0.3)]);
  await request(r, 0.2, { instance: 1, latencyMs: 50 });
  await request(r, 0.4, { instance: 1, error: 'reset' });
  await request(r, 0.6, { instance: 0, error: 'timeout', routed: false });
  const x = await stage(r, 'g1');
  assert.equal(new Date(x.stopping_at).getTime(), at(0.3).getTime());
  assert.equal(new Date(x.last_served_at).getTime(), at(0.25).getTime());
  assert.deepEqual([Number(x.stop_errors), Number(x.stop_resets)], [1, 1]);
  const t = await traffic(r);
  assert.equal(Number(t.errors), 2);
  assert.deepEqual(t.errors_by_kind, { reset: 1, timeout: 1 });
  assert.deepEqual(t.errors_by_instance, { 1: 1, '?': 1 }, 'an error no router record names is "?"');
});

test('rolling deployment: the new process\'s index 0 is told from the old one\'s by the router\'s instance guid', async () => {
  const r = await round();
  for (let s = -10; s < 0; s += 1) await request(r, s, { instance: 0, guid: 'old0' });
  await event(r, 'deploy', 2, 2);
  await instance(r, 'new', 0, 'new0', 6, 8);
  await instance(r, 'stopped', 0, 'old0', null, null);
  await request(r, 8.5, { instance: 0, guid: 'old0' });
  await request(r, 9.0, { instance: 0, guid: 'new0', latencyMs: 30 });
  const x = await stage(r, 'new0');
  assert.equal(new Date(x.routable_at).getTime(), at(9).getTime());
  assert.equal(Number(x.end_to_end_ms), 9030);
  const old = await stage(r, 'old0');
  assert.equal(new Date(old.last_served_at).getTime(), at(8.502).getTime());
  assert.equal(Number((await traffic(r)).old_samples), 11);
});
