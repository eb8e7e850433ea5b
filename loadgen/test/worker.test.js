'use strict';
// The worker as CF runs it: real processes with CF_INSTANCE_INDEX, the results
// database as control plane, a real target server.
const test = require('node:test');
const assert = require('node:assert');
const fs = require('node:fs');
const { ROOT } = require('./helpers');
const { spawn } = require('node:child_process');
const { startServer, spawnNode, testCluster, stopTestCluster, createDatabase, query, waitFor, startWorker, insertRound } = require('./helpers');
const { openCpuStat } = require('../lib/cgroup-cpu');

test.after(stopTestCluster);

test('worker: two instances start one round together, a third (index >= loadgens) stays idle', async (t) => {
  const srv = await startServer((req, res) => { res.setHeader('X-Instance-Index', '0'); res.end('ok\n'); });
  t.after(srv.close);
  const db = await createDatabase(await testCluster());
  const workers = [0, 1, 2].map((i) => startWorker(db, i));
  t.after(() => workers.forEach((w) => w.cleanup()));
  await waitFor(() => workers.every((w) => /waiting for rounds/.test(w.output())), 10000, 'workers up');
  const id = await insertRound(db, { url: srv.url, loadgens: 2, start_in_ms: 1500, duration_ms: 1000 });
  const runs = await waitFor(async () => {
    const rows = await query(db, `SELECT instance_index, status, sent::int, ok::int, errors::int, cpu_user_ms, rss_max_bytes,
      cpu_periods, cpu_throttled_periods, cpu_throttled_ms FROM loadgen_runs WHERE round_id = $1 ORDER BY instance_index`, [id]);
    return rows.length === 2 && rows.every((r) => r.status === 'done') && rows;
  }, 15000, 'both loadgen_runs done');
  for (const r of runs) {
    assert.ok(r.sent > 0 && r.sent === r.ok + r.errors, JSON.stringify(r));
    assert.ok(r.rss_max_bytes > 0 && r.cpu_user_ms !== null);
    // Starvation recorded where the worker can see its cgroup's cpu.stat (it can here).
    if (openCpuStat()) assert.ok([r.cpu_periods, r.cpu_throttled_periods, r.cpu_throttled_ms].every((v) => v !== null), JSON.stringify(r));
  }
  const firsts = await query(db, `SELECT loadgen_index, count(*)::int AS n,
      extract(epoch FROM min(started_at) - (SELECT start_at FROM rounds WHERE id = $1)) * 1000 AS after_start_ms
    FROM requests WHERE round_id = $1 GROUP BY loadgen_index ORDER BY loadgen_index`, [id]);
  assert.deepStrictEqual(firsts.map((f) => f.loadgen_index), [0, 1]);
  // Lateness the kernel caused (time the worker was ready but had no CPU, which it logs
  // from /proc/self/schedstat) is the machine's, not the worker's: the bounds exclude it.
  const cpuWaitMs = workers.slice(0, 2).map((w, i) => {
    const m = new RegExp(`round ${id}: started [\\d.]+ ms after start_at, ([\\d.]+) ms of it waiting for a CPU`).exec(w.output());
    assert.ok(m, `instance ${i} logs its start:\n${w.output()}`);
    return Number(m[1]);
  });
  for (const [i, f] of firsts.entries()) {
    assert.strictEqual(f.n, runs[i].sent, 'every sent request is a row');
    assert.ok(f.after_start_ms >= -5 && f.after_start_ms < 150 + cpuWaitMs[i],
      `instance ${i} started ${f.after_start_ms} ms after start_at, ${cpuWaitMs[i]} ms waiting for a CPU`);
  }
  // Loose: two cores shared with the server, PostgreSQL and a third worker.
  assert.ok(Math.abs(firsts[0].after_start_ms - firsts[1].after_start_ms) < 100 + Math.max(...cpuWaitMs),
    `started ${firsts[0].after_start_ms} and ${firsts[1].after_start_ms} ms after start_at, ${cpuWaitMs.join(' and ')} ms waiting for a CPU`);
  assert.doesNotMatch(workers[2].output(), new RegExp(`round ${id}`));

  // A round whose start is long past is skipped with a log line, and gets no row.
  const past = await insertRound(db, { url: srv.url, loadgens: 1, start_in_ms: -10000, duration_ms: 1000 });
  await waitFor(() => new RegExp(`round ${past}: skipped`).test(workers[0].output()), 5000, 'skip log line');
  assert.deepStrictEqual(await query(db, 'SELECT * FROM loadgen_runs WHERE round_id = $1', [past]), []);
});

test('worker: SIGTERM mid-run stops, flushes and exits in time; every sent request is a row', async (t) => {
  const srv = await startServer((req, res) => setTimeout(() => res.end('ok\n'), req.url === '/' ? 2 : 0));
  t.after(srv.close);
  const db = await createDatabase(await testCluster());
  const w = startWorker(db, 0);
  t.after(() => w.cleanup());
  await waitFor(() => /waiting for rounds/.test(w.output()), 10000, 'worker up');
  const id = await insertRound(db, { url: srv.url, start_in_ms: 500, duration_ms: 30000, parallel: 8 });
  await waitFor(async () => (await query(db, 'SELECT 1 FROM requests WHERE round_id = $1 LIMIT 1', [id])).length, 10000, 'samples flowing');
  const t0 = Date.now();
  w.kill('SIGTERM');
  const r = await w.done;
  assert.ok(Date.now() - t0 < 8000, `exit took ${Date.now() - t0} ms`);
  assert.strictEqual(r.code, 0, r.stdout + r.stderr);
  const [run] = await query(db, 'SELECT status, sent::int, ok::int, errors::int FROM loadgen_runs WHERE round_id = $1', [id]);
  assert.strictEqual(run.status, 'stopped');
  assert.strictEqual(run.sent, run.ok + run.errors);
  const [{ n }] = await query(db, 'SELECT count(*)::int AS n FROM requests WHERE round_id = $1', [id]);
  assert.strictEqual(n, run.sent);
});

test('worker: a bad setting stops it with exit 1 naming the variable', async () => {
  const r = await spawnNode('bin/worker.js', [], { CF_INSTANCE_INDEX: 'two', RESULTS_DATABASE_URL: 'postgres://x@127.0.0.1/x' }).done;
  assert.strictEqual(r.code, 1);
  assert.match(r.stderr, /CF_INSTANCE_INDEX must be an integer/);
});

test('worker: SIGTERM to `npm start` reaches the worker (regression: `sh -c` swallowed it, orphaning the worker)', async (t) => {
  const db = await createDatabase(await testCluster());
  const spool = fs.mkdtempSync('/tmp/cfscale-loadgen-test-wspool-');
  const npm = spawn('npm', ['start', '--silent'], {
    cwd: ROOT, env: { ...process.env, RESULTS_DATABASE_URL: db, CF_INSTANCE_INDEX: '0', LOADGEN_SPOOL_DIR: spool, VCAP_SERVICES: '' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  npm.stdout.on('data', (d) => { out += d; });
  const exited = new Promise((resolve) => npm.on('close', resolve));
  t.after(() => { npm.kill('SIGKILL'); fs.rmSync(spool, { recursive: true, force: true }); });
  await waitFor(() => /waiting for rounds/.test(out), 10000, 'worker up');
  npm.kill('SIGTERM');
  await exited;
  assert.match(out, /stopping: SIGTERM/);
});

test('worker: finds a round by polling when no NOTIFY comes', async (t) => {
  const srv = await startServer((req, res) => res.end('ok\n'));
  t.after(srv.close);
  const db = await createDatabase(await testCluster());
  await query(db, 'ALTER TABLE rounds DISABLE TRIGGER rounds_notify');
  // CF_INSTANCE_IP: the cell the loadgen runs on, recorded as its placement.
  const w = startWorker(db, 0, { LOADGEN_POLL_MS: '300', CF_INSTANCE_IP: '10.0.4.12' });
  t.after(() => w.cleanup());
  await waitFor(() => /waiting for rounds/.test(w.output()), 10000, 'worker up');
  const id = await insertRound(db, { url: srv.url, start_in_ms: 1000, duration_ms: 300 });
  const [run] = await waitFor(async () => {
    const rows = await query(db, "SELECT sent::int, host FROM loadgen_runs WHERE round_id = $1 AND status = 'done'", [id]);
    return rows.length === 1 && rows;
  }, 10000, 'round run after polling');
  assert.ok(run.sent > 0);
  assert.strictEqual(run.host, '10.0.4.12');
});

test('worker: application_name tells idle/busy; a round set to failed stops it (regression: only cancelled did, so a failed round kept it from the next)', async (t) => {
  const srv = await startServer((req, res) => setTimeout(() => res.end('ok\n'), 2));
  t.after(srv.close);
  const db = await createDatabase(await testCluster());
  const w = startWorker(db, 1);
  t.after(() => w.cleanup());
  const names = async () => (await query(db, `SELECT application_name AS n FROM pg_stat_activity
    WHERE datname = current_database() AND application_name LIKE 'cfscale-loadgen:%'`)).map((r) => r.n);
  await waitFor(async () => (await names()).includes('cfscale-loadgen:1:idle'), 10000, 'idle advertised');
  const id = await insertRound(db, { url: srv.url, loadgens: 2, start_in_ms: 300, duration_ms: 30000 });
  await waitFor(async () => (await names()).includes('cfscale-loadgen:1:busy'), 5000, 'busy advertised');
  await waitFor(async () => (await query(db, 'SELECT 1 FROM requests WHERE round_id = $1 LIMIT 1', [id])).length, 5000, 'samples flowing');
  await query(db, "UPDATE rounds SET status = 'failed' WHERE id = $1", [id]);
  const [run] = await waitFor(async () => {
    const rows = await query(db, "SELECT status, detail FROM loadgen_runs WHERE round_id = $1 AND status <> 'running'", [id]);
    return rows.length === 1 && rows;
  }, 10000, 'loadgen_runs final');
  assert.strictEqual(run.status, 'stopped');
  assert.match(run.detail, /round failed/);
  assert.match(w.output(), new RegExp(`round ${id}: failed, stopping`));
  await waitFor(async () => (await names()).join() === 'cfscale-loadgen:1:idle', 5000, 'idle again');
});

test('worker: a round with a steady-state gate runs until the stop_at the control plane sets, not its bound', async (t) => {
  const srv = await startServer((req, res) => setTimeout(() => res.end('ok\n'), 2));
  t.after(srv.close);
  const db = await createDatabase(await testCluster());
  const w = startWorker(db, 0);
  t.after(() => w.cleanup());
  await waitFor(() => /waiting for rounds/.test(w.output()), 10000, 'worker up');
  // Bound: 60 s of warm-up at most + 30 s measured.
  const id = await insertRound(db, { url: srv.url, start_in_ms: 300, duration_ms: 30000,
    steady_gate: { window_ms: 10000, cv_max: 0.1, trend_max: 0.1, max_warmup_ms: 60000 } });
  await waitFor(async () => (await query(db, 'SELECT 1 FROM requests WHERE round_id = $1 LIMIT 1', [id])).length, 5000, 'samples flowing');
  // What scripts/round/steady-watch.js does once steady: the window and its end.
  const [{ stop }] = await query(db, `UPDATE rounds SET measure_from = now(), stop_at = now() + interval '2 s', steady = true
    WHERE id = $1 RETURNING stop_at AS stop`, [id]);
  const [run] = await waitFor(async () => {
    const rows = await query(db, "SELECT status, sent::int FROM loadgen_runs WHERE round_id = $1 AND status <> 'running'", [id]);
    return rows.length === 1 && rows;
  }, 15000, 'loadgen_runs final long before the 90 s bound');
  assert.strictEqual(run.status, 'done');
  assert.match(w.output(), new RegExp(`round ${id}: steady-state gate decided, stopping in \\d+ ms`));
  // Nothing sent after stop_at (the clock offset is measured; a few ms of timer slack).
  const [last] = await query(db, 'SELECT max(intended_at) AS at, count(*)::int AS n FROM requests WHERE round_id = $1', [id]);
  assert.strictEqual(last.n, run.sent);
  assert.ok(last.at.getTime() <= stop.getTime() + 20, `last send ${last.at.toISOString()} after stop_at ${stop.toISOString()}`);
});
