'use strict';
// A round whose control process is gone (its heartbeat older than round_heartbeat_timeout(),
// results-schema.sql) is never started by a worker, even when its start is still ahead;
// the next round is run as usual.
const test = require('node:test');
const assert = require('node:assert');
const fs = require('node:fs');
const { startServer, spawnNode, testCluster, stopTestCluster, createDatabase, query, waitFor } = require('./helpers');

test.after(stopTestCluster);

test('worker: a stale round (no heartbeat from its control process) is not started; the next one is', async (t) => {
  const srv = await startServer((req, res) => res.end('ok\n'));
  t.after(srv.close);
  const db = await createDatabase(await testCluster());
  const spool = fs.mkdtempSync('/tmp/cfscale-loadgen-test-stale-');
  const w = spawnNode('bin/worker.js', [], {
    RESULTS_DATABASE_URL: db, CF_INSTANCE_INDEX: '0', LOADGEN_POLL_MS: '500', LOADGEN_SPOOL_DIR: spool, VCAP_SERVICES: '',
  });
  t.after(() => { w.kill('SIGKILL'); fs.rmSync(spool, { recursive: true, force: true }); });
  await waitFor(() => /waiting for rounds/.test(w.output()), 10000, 'worker up');
  const insert = async (startInMs, heartbeatAgo) => (await query(db, `INSERT INTO rounds (start_at, heartbeat_at, platform, app,
      target_url, app_instances, loadgens, model, parallel, duration_ms, scenario)
    VALUES (now() + make_interval(secs => $1::float8 / 1000), now() - $2::interval, 'local', 'test', $3, 1, 1, 'closed', 1, 500, 'get')
    RETURNING id`, [startInMs, heartbeatAgo, srv.url]))[0].id;
  const stale = await insert(1000, '1 hour');
  const live = await insert(1500, '0 s');
  await waitFor(async () => (await query(db, "SELECT 1 FROM loadgen_runs WHERE round_id = $1 AND status = 'done'", [live])).length,
    15000, 'the live round done');
  assert.deepStrictEqual(await query(db, 'SELECT * FROM loadgen_runs WHERE round_id = $1', [stale]), []);
  assert.doesNotMatch(w.output(), new RegExp(`round ${stale}\\b`));
});
