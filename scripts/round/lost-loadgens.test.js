'use strict';
// lost-loadgens.test.js — finish-round marks the loadgens that died in a round `lost`, with
// the samples beyond what reached `requests`: from the router's and the apps' records of
// their requests (a kill -9: correlation ids carry the loadgen index), or from the
// cfscale-loadgen-lost line an instance printed at SIGTERM (`cf logs loadgen --recent`). A loadgen
// whose busy connection is there is alive and stays running. Real PostgreSQL, real schema.
const test = require('node:test');
const assert = require('node:assert/strict');
const { Client } = require('pg');
const { testDatabases } = require('../../lib/test-db');
const { finishRound } = require('./finish-round');
const testDbs = testDatabases(require('pg'), 'cf');

let testDb;
let url;
let db;

test.before(async () => {
  testDb = await testDbs.open('cfscale_scripts');
  ({ url } = testDb);
  db = new Client({ connectionString: url });
  await db.connect();
});

test.after(async () => {
  await db.end();
  await testDb.close();
});

/** A UUIDv7 made at `ms` with loadgen index `tag` in its first 14 bits of rand_b (loadgen/lib/uuidv7.js). */
function v7(ms, tag, n) {
  const t = ms.toString(16).padStart(12, '0');
  const b8 = (0x80 | (tag >> 8)).toString(16);
  const b9 = (tag & 0xff).toString(16).padStart(2, '0');
  return `${t.slice(0, 8)}-${t.slice(8)}-7000-${b8}${b9}-${n.toString(16).padStart(12, '0')}`;
}

async function storeRequests(round, index, ids) {
  await db.query(`INSERT INTO requests (correlation_id, round_id, loadgen_index, op, intended_at, started_at, latency_us, status)
    SELECT c::uuid, $1, $2, 'read', now(), now(), 1000, 200 FROM unnest($3::text[]) c`, [round, index, ids]);
  await db.query('UPDATE loadgen_runs SET sent = sent + $3, ok = ok + $3 WHERE round_id = $1 AND instance_index = $2', [round, index, ids.length]);
}

const routed = (round, ids) => db.query(`INSERT INTO router_timings (round_id, platform, app, at, vcap_request_id, correlation_id)
  SELECT $1, 'local', 'node-app', now(), 'v-' || c, c FROM unnest($2::text[]) c`, [round, ids]);
const served = (round, ids) => db.query(`INSERT INTO server_timings (round_id, app, instance_index, correlation_id, route, status,
    started_at, handler_us, pool_wait_us, db_us)
  SELECT $1, 'node-app', 0, c, 'GET /ads/{id}', 200, now(), 1, 0, 0 FROM unnest($2::text[]) c`, [round, ids]);

test('finish-round: dead loadgens are marked lost with the samples beyond what was stored; a live one is not', async () => {
  const { rows: [r] } = await db.query(`INSERT INTO rounds (start_at, platform, app, target_url, app_instances, loadgens, model, parallel, duration_ms)
    VALUES (now(), 'local', 'node-app', 'http://x', 1, 4, 'closed', 2, 1000) RETURNING id, extract(epoch FROM created_at) * 1000 AS created_ms`);
  const round = Number(r.id);
  const t0 = Math.ceil(Number(r.created_ms)) + 1;
  await db.query(`INSERT INTO loadgen_runs (round_id, instance_index, status) VALUES ($1, 0, 'done'), ($1, 1, 'running'),
    ($1, 2, 'running'), ($1, 3, 'running')`, [round]);
  const ids = (tag, from, n) => Array.from({ length: n }, (_, i) => v7(t0 + from + i, tag, from + i));
  for (const tag of [0, 1, 2, 3]) await storeRequests(round, tag, ids(tag, 0, 100));
  // Loadgen 1 was killed: the router saw 7 and the app 2 more of its requests (3 seen by both).
  await routed(round, [...ids(1, 0, 60), ...ids(1, 100, 7)]);
  await served(round, [...ids(1, 104, 3), ...ids(1, 200, 2)]);
  // Not counted: a v4 id, an id made before the round, another round's, a stored one.
  await routed(round, ['0b0e5b9e-3a8e-4c4e-9d7e-5f3b2a1c0d9e', v7(t0 - 60000, 1, 300)]);
  await db.query(`INSERT INTO router_timings (round_id, platform, app, at, vcap_request_id, correlation_id)
    VALUES ($1 + 1000, 'local', 'node-app', now(), 'other', $2)`, [round, v7(t0, 1, 400)]);
  // Loadgen 2 exited at SIGTERM with 30 samples it could not store (its line wins over the router's 5).
  await routed(round, ids(2, 100, 5));
  const log = [
    `   2026-11-23T10:00:05.00+0000 [APP/PROC/WEB/2] OUT cfscale-loadgen-lost {"round_id":${round},"loadgen_index":2,"lost":30,"recorded":130}`,
    `   2026-11-23T10:00:05.00+0000 [APP/PROC/WEB/1] OUT cfscale-loadgen-lost {"round_id":${round + 1},"loadgen_index":1,"lost":99}`,
  ].join('\n');
  // Loadgen 3 is alive: its busy connection is there.
  const alive = new Client({ connectionString: url, application_name: 'cfscale-loadgen:3:busy' });
  await alive.connect();
  const res = await finishRound(db, { round, loadgenLog: async () => log });
  await alive.end();
  assert.equal(res.code, 2, res.text);
  const { rows } = await db.query('SELECT instance_index, status, sent::int, lost::int, detail, finished_at IS NOT NULL AS finished FROM loadgen_runs WHERE round_id = $1 ORDER BY 1', [round]);
  assert.deepEqual(rows.map((l) => [l.instance_index, l.status, l.sent, l.lost]),
    [[0, 'done', 100, null], [1, 'lost', 100, 9], [2, 'lost', 100, 30], [3, 'running', 100, null]]);
  assert.equal(rows[1].detail, 'died in the round, 9 samples lost (requests the router or the app saw from it beyond the 100 stored)');
  assert.equal(rows[2].detail, 'died in the round, 30 samples lost (its cfscale-loadgen-lost line: 130 recorded, 100 stored)');
  assert.ok(rows[1].finished && rows[2].finished);
  assert.match(res.text, /loadgen 1 did not finish \(lost: died in the round, 9 samples lost/);
  assert.match(res.text, /loadgen 3 did not finish \(running\)/);
  const { rows: [sum] } = await db.query(`SELECT (SELECT count(*) FROM requests WHERE round_id = $1)::int AS stored,
      (SELECT sum(sent) FROM loadgen_runs WHERE round_id = $1)::int AS sent`, [round]);
  assert.equal(sum.stored, sum.sent);
});
