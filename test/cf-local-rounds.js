'use strict';
// cf-local-rounds.js — the rounds of cf-local.test.js on its one platform, registered in the
// file's order: the collectors on the real cf (collectorTests), then whole short rounds
// (wholeRoundTests: the verdict, a crash, connections terminated, reaping, SIGTERM).
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const { spawn, spawnSync } = require('node:child_process');
const { Client } = require('pg');
const { ROOT } = require('./cf-local-world');
const { PER_PLATFORM } = require('../scripts/round/round-plan');
const { start, until, query, viaRouter, descendants, alive, lines } = require('./cf-local-scripts');

/** ctx: { w, tunnel, testDbUrl: () → the test database's URL, pluginsConfig } */
function collectorTests({ w, tunnel, testDbUrl, pluginsConfig }) {
  test('the collectors on the real cf: SIGTERM ends them with their rows stored and nothing left running', async (t) => {
    // Meanwhile (through the rounds below): tunnel.sh with chisel unbound binds and restarts it.
    tunnel.unbound = w.cf('unbind-service', 'chisel', 'results-db').then(() => start('tunnel.sh',
      ['--platform', 'cf', '--local-port', tunnel.localPort], tunnel.env({ CF_CALL_LOG: tunnel.log('unbound') })).done)
      .catch((err) => ({ code: -1, stderr: err.message }));
    const db = testDbUrl();
    const rows = (table, round) => query(db, `SELECT count(*)::int AS n FROM ${table} WHERE round_id = $1`, [round]);
    // The URL holds a password: the collectors take it from the environment, never from argv.
    const withDb = { ...w.env(), RESULTS_DATABASE_URL: db };
    await t.test('collect-stats --source v3: SIGTERM in the sleep between polls', async () => {
      const c = start('collect-stats.sh', ['--app', 'node-app', '--round', '21', '--source', 'v3', '--interval', '60'], withDb);
      await until('the first poll\'s row', async () => (await rows('instance_stats', 21))[0].n === 1);
      const kids = descendants(c.child.pid);
      c.child.kill('SIGTERM');
      const res = await c.done;
      assert.equal(res.code, 0, res.stderr);
      assert.deepEqual(await query(db, 'SELECT instance_index, source FROM instance_stats WHERE round_id = 21'), [{ instance_index: 0, source: 'v3' }]);
      await until('no child left', () => kids.every((k) => !alive(k)), 5000);
    });
    await t.test('collect-stats --source plugin: a statistics plugin that ends by itself gives way to the v3 stats', async () => {
      // Listed but not there: the real cf CLI cannot start it and exits 1, as a plugin on a
      // foundation without the v2 API does.
      fs.mkdirSync(path.dirname(pluginsConfig()), { recursive: true });
      fs.writeFileSync(pluginsConfig(), JSON.stringify({ Plugins: { Statistics: { Location: '/nonexistent/statistics', Version: { Major: 1 } } } }));
      try {
        const c = start('collect-stats.sh', ['--app', 'node-app', '--round', '22', '--source', 'plugin', '--interval', '60'], withDb);
        await until('the v3 row', async () => (await rows('instance_stats', 22))[0].n === 1);
        c.child.kill('SIGTERM');
        const res = await c.done;
        assert.equal(res.code, 0, res.stderr);
        assert.match(res.stderr, /^collect-stats: cf statistics ended by itself \(exit 1\): polling the v3 stats every 60 s instead$/m);
      } finally {
        fs.rmSync(pluginsConfig(), { force: true });
      }
    });
    await t.test('collect-logs: the router\'s lines of requests made meanwhile, in router_timings', async () => {
      const c = start('collect-logs.sh', ['--app', 'node-app', '--round', '23'], withDb);
      const router = spawnSync(path.join(ROOT, 'scripts/cfl'), ['router-url'], { env: w.localEnv(), encoding: 'utf8' }).stdout.trim();
      const n = 20;
      // cf logs follows from now: requests until the first one shows, then n more.
      await until('cf logs following', async () => {
        await viaRouter(router, '/warm');
        return (await rows('router_timings', 23))[0].n > 0;
      });
      const counted = async () => (await query(db, "SELECT count(*)::int AS n FROM router_timings WHERE round_id = 23 AND path LIKE '/counted-%'"))[0].n;
      for (let i = 0; i < n; i++) assert.equal(await viaRouter(router, `/counted-${i}`), 200);
      await until(`${n} rows`, async () => (await counted()) === n);
      const kids = descendants(c.child.pid);
      c.child.kill('SIGTERM');
      const res = await c.done;
      assert.equal(res.code, 0, res.stderr);
      assert.equal(await counted(), n);
      await until('no child left', () => kids.every((k) => !alive(k)), 5000);
    });
    await t.test('collect-logs --since: what log-cache holds since then, read in pages, and it exits by itself', async () => {
      const router = spawnSync(path.join(ROOT, 'scripts/cfl'), ['router-url'], { env: w.localEnv(), encoding: 'utf8' }).stdout.trim();
      const since = new Date(Date.now() - 1000).toISOString();
      // More than one page of log-cache (1000) and more than `cf logs --recent` reads.
      const n = 1200;
      for (let i = 0; i < n; i += 50) {
        const codes = await Promise.all(Array.from({ length: 50 }, (_, j) => viaRouter(router, `/since-${i + j}`)));
        assert.ok(codes.every((c) => c > 0), `answers: ${[...new Set(codes)]}`);
      }
      await new Promise((resolve) => setTimeout(resolve, 500)); // the router's last lines reach the daemon
      const res = await start('collect-logs.sh', ['--app', 'node-app', '--round', '24', '--since', since], withDb).done;
      assert.equal(res.code, 0, res.stderr);
      const got = await query(db, "SELECT count(DISTINCT path)::int AS n FROM router_timings WHERE round_id = 24 AND path LIKE '/since-%'");
      assert.equal(got[0].n, n);
    });
  });
}

/**
 * A bench for whole rounds on the local platform: run-round started (and stopped after a
 * failed subtest), the loadgen played by a connection, the rounds and collectors looked up.
 */
function roundBench(w, url, db, started) {
  const startRound = (label) => {
    const child = spawn('bash', [path.join(ROOT, 'scripts/run-round.sh'), '--app', 'node-app', '--duration', '2s',
      '--seed-ads', '0', '--stats-source', 'v3', '--label', label], { env: w.localEnv() });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => { stdout += d; });
    child.stderr.on('data', (d) => { stderr += d; });
    const r = { child, done: new Promise((resolve) => child.on('close', (code) => resolve({ code, stdout, stderr }))) };
    started.push(r);
    return r;
  };
  const idleLoadgen = async () => {
    const c = new Client({ connectionString: url, application_name: 'cfscale-loadgen:0:idle' });
    await c.connect();
    return c;
  };
  const roundOf = (label) => until(`round ${label}`, async () => (await db.query('SELECT * FROM rounds WHERE label = $1', [label])).rows[0], 60000);
  const loadgenDone = (id) => db.query("INSERT INTO loadgen_runs (round_id, instance_index, status, finished_at) VALUES ($1, 0, 'done', now())", [id]);
  // run-round's collectors of round ID: their arguments name the round, their environment this database.
  const collectorsOf = (id) => fs.readdirSync('/proc').filter((pid) => /^\d+$/.test(pid)).filter((pid) => {
    try {
      const argv = fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').join(' ');
      const env = fs.readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0');
      return new RegExp(`collect-(stats|logs)\\.js .*--round ${id} --platform local`).test(argv) && env.includes(`RESULTS_DATABASE_URL=${url}`);
    } catch {
      return false; // gone meanwhile
    }
  }).join(' ');
  const staleRound = async (label, beat) => (await db.query(`INSERT INTO rounds (platform, app, target_url, app_instances, loadgens, model,
      parallel, duration_ms, start_at, heartbeat_at, label)
    VALUES ('local', 'node-app', 'http://x', 1, 1, 'closed', 1, 1000, now() - interval '1 hour', now() - interval '${beat}', $1)
    RETURNING id`, [label])).rows[0];
  return { startRound, idleLoadgen, roundOf, loadgenDone, collectorsOf, staleRound };
}

async function finishedWithCrash({ w, b: { startRound, roundOf, loadgenDone, collectorsOf }, db, node, router }) {
  // node-app as a plain cf push leaves it, without a control credential: the round gives it one.
  await w.cf('unset-env', 'node-app', 'CONTROL_TOKEN');
  const run = startRound('finished');
  const round = await roundOf('finished');
  await viaRouter(router, '/die', { 'X-Cf-App-Instance': `${node}:0` });
  await until('the crash event', async () => JSON.parse(await w.cf('curl', `/v3/audit_events?types=audit.app.process.crash&target_guids=${node}`))
    .resources.some((e) => Date.parse(e.created_at) >= Math.floor(round.created_at.getTime() / 1000) * 1000));
  await loadgenDone(round.id);
  const res = await run.done;
  assert.equal(res.code, 2, res.stderr);
  const out = lines(res.stdout);
  assert.equal(out[out.length - 1], `round_id=${round.id}`);
  assert.match(res.stdout, new RegExp(`^round ${round.id}: node-app on local, 1 instance`));
  assert.match(res.stdout, /^verdict: FAILED: no samples$/m);
  assert.match(res.stderr, new RegExp(`^run-round: round ${round.id}: node-app x1, 1 loadgen\\(s\\), starts at `, 'm'));
  assert.match(res.stderr, /^run-round: node-app has no CONTROL_TOKEN \(a plain cf push sets none; its control endpoints answer 401\): giving it one, then restarting it$/m);
  assert.doesNotMatch(res.stderr, /not ingested/);
  assert.deepEqual((await db.query('SELECT instance_index, kind, detail FROM instance_events WHERE round_id = $1', [round.id])).rows,
    [{ instance_index: 0, kind: 'crash', detail: 'CRASHED: APP/PROC/WEB: Exited with status 3' }]);
  assert.equal((await db.query('SELECT status FROM rounds WHERE id = $1', [round.id])).rows[0].status, 'failed');
  assert.equal(collectorsOf(round.id), '');
}

async function connectionsTerminated({ b: { startRound, roundOf, loadgenDone, collectorsOf, staleRound }, db }) {
  const stale = await staleRound('stale', '1 hour');
  const run = startRound('blink');
  const round = await roundOf('blink');
  await until('the collectors', () => collectorsOf(round.id) !== '');
  const ours = `FROM pg_stat_activity WHERE datname = current_database() AND application_name IN ('cfscale-run-round', 'cfscale-ingest')`;
  // run-round's and the stats collector's ingest, and the router log's unless it is read after the round.
  const n = PER_PLATFORM.local.routerLogAfterWindow ? 2 : 3;
  await until(`${n} connections`, async () => (await db.query(`SELECT count(*)::int AS n ${ours}`)).rows[0].n === n);
  assert.equal((await db.query(`SELECT pg_terminate_backend(pid) ${ours}`)).rows.length, n);
  await until('run-round reconnected', async () => (await db.query(`SELECT count(*)::int AS n ${ours}`)).rows[0].n >= 1);
  await db.query(`SELECT pg_terminate_backend(pid) ${ours}`);
  await loadgenDone(round.id);
  const res = await run.done;
  assert.equal(res.code, 2, res.stderr); // no samples: the verdict, not the blink
  assert.doesNotMatch(res.stderr, /at .*\.js:\d+|Unhandled|NOT WRITTEN/);
  assert.match(res.stdout, new RegExp(`^round_id=${round.id}$`, 'm'));
  assert.match(res.stderr, new RegExp(`^run-round: reaped round ${stale.id}: failed: control process gone: no heartbeat since `, 'm'));
  const after = (await db.query('SELECT status, status_reason FROM rounds WHERE id = ANY($1) ORDER BY id', [[stale.id, round.id]])).rows;
  assert.deepEqual(after.map((r) => r.status), ['failed', 'failed']);
  assert.equal(after[1].status_reason, 'no samples');
  assert.equal(collectorsOf(round.id), '');
}

function reaped({ b: { staleRound }, run }) {
  return staleRound('stale-2', '3 minutes').then((stale) => {
    const res = run('rounds.sh', ['--reap'], {}, { local: true });
    assert.equal(res.code, 0, res.stderr);
    assert.match(res.stdout, new RegExp(`^round ${stale.id}: failed: control process gone: no heartbeat since `, 'm'));
    assert.match(res.stdout, /^reap-rounds: 1 round\(s\) reaped$/m);
  });
}

async function sigtermMidRound({ b: { startRound, roundOf, collectorsOf }, db }) {
  const run = startRound('interrupted');
  const round = await roundOf('interrupted');
  await until('the collectors', () => collectorsOf(round.id) !== '');
  run.child.kill('SIGTERM');
  const res = await run.done;
  assert.equal(res.code, 130, res.stderr);
  assert.match(res.stderr, new RegExp(`^run-round: interrupted: cancelling round ${round.id}$`, 'm'));
  if (PER_PLATFORM.local.routerLogAfterWindow) {
    assert.match(res.stderr, new RegExp(`^run-round: the router's lines of round ${round.id} stay in log-cache: `
      + `scripts/collect-logs.sh --app node-app --round ${round.id} --since \\d{4}-\\d\\d-\\d\\dT[0-9:.]+Z$`, 'm'));
  }
  assert.doesNotMatch(res.stdout, /round_id=/);
  assert.equal((await db.query('SELECT status FROM rounds WHERE id = $1', [round.id])).rows[0].status, 'cancelled');
  assert.equal(collectorsOf(round.id), '');
}

async function sigtermWaitingForLoadgens({ b: { startRound }, db }) {
  const run = startRound('never-ready');
  await until('the wait for loadgens', async () => (await db.query(
    "SELECT 1 FROM pg_stat_activity WHERE datname = current_database() AND application_name = 'cfscale-run-round'")).rows.length > 0, 60000);
  const t0 = Date.now();
  run.child.kill('SIGTERM');
  const res = await run.done;
  assert.equal(res.code, 130, res.stderr);
  assert.ok(Date.now() - t0 < 10000, 'stopped waiting for the loadgens');
  assert.match(res.stderr, /^run-round: interrupted: cancelling round <round>$/m);
  assert.equal((await db.query("SELECT count(*)::int AS n FROM rounds WHERE label = 'never-ready'")).rows[0].n, 0);
}

/**
 * Whole short rounds on the local platform (PLATFORM=local: the scripts log in to it
 * themselves), the results database its results-db; the loadgen is played by this test (a
 * connection named like an idle loadgen, its loadgen_runs row), so no samples: verdict failed.
 * ctx: { w, run } (run: cf-local-scripts.js scriptsIn(w).run)
 */
function wholeRoundTests({ w, run }) {
  test('whole short rounds: the verdict, a crash, connections terminated, reaping, SIGTERM', async (t) => {
    await w.cf('create-service-key', 'results-db', 'cfscale-scripts');
    const key = await w.cf('service-key', 'results-db', 'cfscale-scripts', '--guid');
    const url = JSON.parse(await w.cf('curl', `/v3/service_credential_bindings/${key}/details`)).credentials.uri;
    const node = await w.guid('node-app');
    const router = spawnSync(path.join(ROOT, 'scripts/cfl'), ['router-url'], { env: w.localEnv(), encoding: 'utf8' }).stdout.trim();
    const db = new Client({ connectionString: url });
    await db.connect();
    const started = [];
    // A subtest that failed leaves no round running into the next (its collectors, its connections).
    t.afterEach(async () => {
      for (const r of started.splice(0)) {
        if (r.child.exitCode === null && r.child.signalCode === null) r.child.kill('SIGTERM');
        await r.done;
      }
    });
    const b = roundBench(w, url, db, started);
    const c = { w, b, db, node, router, run };
    const loadgen = await b.idleLoadgen();
    try {
      await t.test('a finished round with an instance crashed: summary, the crash in instance_events, round_id=N last, the verdict the exit code', () => finishedWithCrash(c));
      await t.test('connections terminated mid-round (57P01): run-round and the collectors reconnect; a stale round reaped first', () => connectionsTerminated(c));
      await t.test('rounds.sh --reap: a round whose control process is gone is marked failed, one line', () => reaped(c));
      await t.test('SIGTERM mid-round: exit 130, the round cancelled, the collectors stopped', () => sigtermMidRound(c));
    } finally {
      await loadgen.end();
    }
    await t.test('SIGTERM while waiting for the loadgens: exit 130 at once, no round inserted', () => sigtermWaitingForLoadgens(c));
    await db.end();
  });
}

module.exports = { collectorTests, wholeRoundTests };
