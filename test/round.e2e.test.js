'use strict';
// round.e2e.test.js — whole rounds on the real local platform (HAProxy, PostgreSQL,
// cgroups) with the real apps and loadgen, through the scripts' one path: the real cf CLI
// logged in to the platform's Cloud Controller (CF_HOME in its home). A short round
// against node-app (2 instances) and against java-app (3 instances: 3 RUNNING in the v3
// stats), 2 loadgens each, must leave rows in rounds, requests,
// server_timings, instance_stats and router_timings and print the summary; an app
// instance SIGKILLed mid-round is restarted and the round completes with its errors
// counted; a loadgen SIGKILLed mid-round is marked lost with what the router and the app
// saw beyond its stored samples; an instance over its memory limit (fixtures/hog-app) is killed and reported;
// the steady-state gate decides where the measured window starts (steady, and given up at
// the maximum warm-up) and the loadgens stop a duration after it; teardown.sh leaves
// nothing running; a 20 s stop of the platform's PostgreSQL mid-round loses nothing and
// leaves nothing pending. The other rounds pass --warmup 0s (gate off): short and to the point.
// Own CFSCALE_HOME (/tmp/cfscale-e2e-*), ports of the range `e2e` in ports.json.
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const net = require('node:net');
const path = require('node:path');
const { spawnSync } = require('node:child_process');
const { pgDirOf } = require('../local-platform/lib/config');
const pgCluster = require('../local-platform/lib/pg-cluster.js');
const { startArgvScan, credentialArgs, secretArgs } = require('./argv-scan');
const { roundE2eWorld, ROOT } = require('./round-e2e-world');

const w = roundE2eWorld();
const { HOME, ENV, ROUTER_PORT, HOME_HASH, CGROUP, CF_HOME, ROUND_TIMEOUT_MS, runScript, cf, results, count, assertRoundRan, roundIdOf } = w;
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

test.after(async () => {
  await w.endResults().catch(() => {});
  await runScript('teardown.sh', []);
  fs.rmSync(HOME, { recursive: true, force: true });
});

// Every process's arguments while the first round runs on a fresh platform (its start, the
// login, the services, the pushes, the round): argv-scan.js.
let argvSeen = null;

// The v3 stats (auto and named), polled with cf curl on the local platform as on CF.
for (const [app, n, statsSource] of [['node-app', 2, 'auto'], ['java-app', 3, 'v3']]) {
  test(`a short round against ${app} x${n} through the cf CLI: every table gets rows, the summary is printed`, { timeout: ROUND_TIMEOUT_MS }, async () => {
    const scan = app === 'node-app' ? startArgvScan({ homeEnv: `CFSCALE_HOME=${HOME}` }) : null;
    const res = await runScript('run-round.sh', ['--app', app, '--instances', String(n), '--loadgens', '2',
      '--parallel', '4', '--duration', '4s', '--warmup', '0s', '--seed-ads', '50', '--stats-source', statsSource, '--label', `e2e-${app}`]);
    if (scan) argvSeen = scan.stop();
    assertRoundRan(res);
    const id = roundIdOf(res);
    assert.match(res.stdout, new RegExp(`^round ${id}: ${app} on local, ${n} instance`, 'm'));
    // The scripts' own cf login, to the local API, in the platform's CF_HOME.
    const config = JSON.parse(fs.readFileSync(path.join(CF_HOME, '.cf/config.json'), 'utf8'));
    assert.match(config.Target, /^http:\/\/127\.0\.0\.1:\d+$/);
    assert.equal(config.SpaceFields.Name, 'local');
    const guid = cf(['app', app, '--guid']);
    const stats = JSON.parse(cf(['curl', `/v3/processes/${guid}/stats`])).resources;
    assert.deepEqual(stats.map((s) => s.state), Array(n).fill('RUNNING'));
    assert.match(res.stdout, /^latency: p50 [0-9.]+ ms, p95 [0-9.]+ ms, p99 [0-9.]+ ms, max [0-9.]+ ms$/m);
    assert.match(res.stdout, /^verdict: ok$/m);
    const c = await results();
    const round = (await c.query('SELECT * FROM rounds WHERE id = $1', [id])).rows[0];
    assert.equal(round.status, 'done');
    assert.equal(round.app, app);
    assert.equal(round.host_header, `${app}.localhost`);
    assert.equal(await count('loadgen_runs', id, "status = 'done'"), 2);
    // Regression: on a fresh platform the loadgens joined late (not yet connected, or
    // the first one seeding inside the start lead); now run-round seeds first and waits.
    assert.match(res.stderr, /seeded \d+ ads, \d+ in all; ids \d+-50/);
    const firsts = (await c.query(`SELECT q.loadgen_index, extract(epoch FROM min(q.started_at) - r.start_at) * 1000 AS ms
      FROM requests q JOIN rounds r ON r.id = q.round_id WHERE q.round_id = $1 GROUP BY 1, r.start_at ORDER BY 1`, [id])).rows;
    assert.deepEqual(firsts.map((f) => f.loadgen_index), [0, 1]);
    for (const f of firsts) assert.ok(f.ms < 1000, `loadgen ${f.loadgen_index} started ${Math.round(f.ms)} ms after start_at`);
    for (const table of ['requests', 'server_timings', 'instance_stats', 'router_timings']) {
      assert.ok(await count(table, id) > 0, `no ${table} rows for round ${id}`);
    }
    // Every app instance answered and was measured.
    const { rows: answered } = await c.query('SELECT DISTINCT app_instance FROM requests WHERE round_id = $1 ORDER BY 1', [id]);
    assert.deepEqual(answered.map((r) => r.app_instance), [...Array(n).keys()], 'no answers from an app instance');
    const { rows } = await c.query('SELECT DISTINCT instance_index, source FROM instance_stats WHERE round_id = $1 ORDER BY 1', [id]);
    assert.deepEqual(rows, [...Array(n).keys()].map((i) => ({ instance_index: i, source: 'v3' })));
  });
}

// ps shows every process's arguments to every user: no password, token or credential-bearing
// URL may be in them; they travel in the environment, a 0600 file or stdin.
test('regression: no process carried a credential in its arguments during a round from a fresh platform', () => {
  assert.ok(argvSeen, 'the first round ran with the scan');
  assert.ok([...argvSeen.ours].some((l) => /collect-stats\.js .*--round \d+/.test(l)), 'the scan saw the collectors');
  assert.ok([...argvSeen.ours].some((l) => /ingest-rtr\.js --round \d+/.test(l)), 'the scan saw the ingest CLIs');
  assert.deepEqual(credentialArgs(argvSeen.ours), []);
  const bindings = JSON.parse(cf(['curl', '/v3/service_credential_bindings'])).resources;
  const passwords = bindings.map((b) => JSON.parse(cf(['curl', `/v3/service_credential_bindings/${b.guid}/details`])).credentials.password);
  const token = JSON.parse(cf(['curl', `/v3/apps/${cf(['app', 'node-app', '--guid'])}/environment_variables`])).var.CONTROL_TOKEN;
  const superuser = fs.readFileSync(path.join(pgDirOf(HOME, HOME_HASH), 'password'), 'utf8').trim();
  const secrets = [...passwords, token, superuser];
  assert.ok(secrets.length >= 3 && secrets.every((x) => typeof x === 'string' && x.length >= 16), 'the secrets to look for');
  assert.deepEqual(secretArgs(argvSeen.all, secrets), []);
});

test('rounds.sh lists the rounds and shows one', { timeout: 60000 }, async () => {
  let res = await runScript('rounds.sh', ['--last', '5']);
  assert.equal(res.code, 0, res.stderr);
  assert.match(res.stdout, /^id +created \(UTC\) +app/);
  assert.match(res.stdout, /^\d+ .* java-app +local +done +3 +2xp4 +4s .* e2e-java-app$/m);
  res = await runScript('rounds.sh', ['--app', 'java-app']);
  assert.ok(!/node-app/.test(res.stdout), res.stdout);
  const id = /^(\d+) /m.exec(res.stdout.split('\n')[1])[1];
  res = await runScript('rounds.sh', ['--round', id]);
  assert.equal(res.code, 0, res.stderr);
  assert.match(res.stdout, new RegExp(`^round ${id}: java-app on local`));
  assert.match(res.stdout, /^verdict: ok$/m);
});

test('an app instance SIGKILLed mid-round is restarted; the round completes, its errors counted', { timeout: ROUND_TIMEOUT_MS }, async () => {
  const label = `e2e-kill-${Date.now()}`;
  const running = runScript('run-round.sh', ['--app', 'node-app', '--instances', '2', '--loadgens', '2',
    '--parallel', '4', '--duration', '6s', '--warmup', '0s', '--seed-ads', '50', '--max-error-rate', '1', '--label', label]);
  const c = await results();
  let killed = [];
  for (let i = 0; i < 600 && killed.length === 0; i++) {
    const { rows } = await c.query(
      "SELECT id FROM rounds WHERE label = $1 AND now() > start_at + interval '1.5 s'", [label]);
    if (rows.length === 1) {
      const pids = fs.readFileSync(`${CGROUP}/node-app-1/cgroup.procs`, 'utf8').split('\n').filter(Boolean).map(Number);
      for (const pid of pids) process.kill(pid, 'SIGKILL');
      killed = pids;
    } else {
      await sleep(100);
    }
  }
  assert.ok(killed.length > 0, 'the round never started');
  const res = await running;
  assertRoundRan(res);
  const id = roundIdOf(res);
  assert.ok(await count('instance_events', id, "instance_index = 1 AND kind = 'crash'") >= 1,
    `no crash event for instance 1:\n${res.stdout}`);
  assert.match(res.stdout, /^ {2}instance 1: crash/m);
  // The errors the loadgens counted are the error rows in requests.
  const { rows } = await c.query(
    `SELECT (SELECT sum(errors)::int FROM loadgen_runs WHERE round_id = $1) AS counted,
            (SELECT count(*)::int FROM requests WHERE round_id = $1 AND error_kind IS NOT NULL) AS stored`, [id]);
  assert.equal(rows[0].counted, rows[0].stored);
  // Restarted: both instances RUNNING again.
  const guid = cf(['app', 'node-app', '--guid']);
  let states = [];
  for (let i = 0; i < 60; i++) {
    states = JSON.parse(cf(['curl', `/v3/apps/${guid}/processes/web/stats`])).resources.map((r) => r.state);
    if (states.length === 2 && states.every((s) => s === 'RUNNING')) break;
    await sleep(500);
  }
  assert.deepEqual(states, ['RUNNING', 'RUNNING']);
});

test('a full timing buffer: run-round says how many server timings each instance did not keep', { timeout: ROUND_TIMEOUT_MS }, async () => {
  cf(['set-env', 'node-app', 'TIMINGS_CAPACITY', '100']);
  cf(['restart', 'node-app']);
  try {
    const res = await runScript('run-round.sh', ['--app', 'node-app', '--instances', '2', '--loadgens', '1',
      '--parallel', '4', '--duration', '3s', '--warmup', '0s', '--seed-ads', '0', '--label', `e2e-full-${Date.now()}`]);
    assertRoundRan(res);
    const m = /^run-round: server timings not kept, the app's buffer full \(TIMINGS_CAPACITY\): node-app\/0: (\d+), node-app\/1: (\d+); they cover the round's first requests only$/m.exec(res.stderr);
    assert.ok(m, res.stderr);
    const id = roundIdOf(res);
    assert.equal(await count('server_timings', id), 200, `server timings stored for round ${id}:\n${res.stdout}`);
    // Every request the loadgen sent reached one of the two: kept or not. A failure names the
    // loadgen's errors and the router's statuses (a request the router answers reaches neither).
    const { rows: [r] } = await (await results()).query(
      `SELECT sum(sent)::int AS sent, sum(errors)::int AS errors,
              (SELECT string_agg(status || ' x' || n, ', ' ORDER BY status) FROM (SELECT status, count(*) AS n
                 FROM router_timings WHERE round_id = $1 GROUP BY status) s) AS router_statuses
         FROM loadgen_runs WHERE round_id = $1`, [id]);
    assert.equal(200 + Number(m[1]) + Number(m[2]), r.sent,
      `kept 200 + not kept ${m[1]} + ${m[2]} against ${r.sent} sent (${r.errors} errors; router statuses ${r.router_statuses})`);
  } finally {
    cf(['unset-env', 'node-app', 'TIMINGS_CAPACITY']);
    cf(['restart', 'node-app']);
  }
});

test('a loadgen SIGKILLed mid-round loses at most 250 ms of samples; its row is marked lost with the router\'s and app\'s count beyond it', { timeout: ROUND_TIMEOUT_MS }, async () => {
  const label = `e2e-kill-loadgen-${Date.now()}`;
  // The dead loadgen never finishes: the round ends at --max-wait, then finish-round marks it.
  const running = runScript('run-round.sh', ['--app', 'node-app', '--instances', '2', '--loadgens', '2',
    '--parallel', '4', '--duration', '6s', '--warmup', '0s', '--seed-ads', '50', '--max-wait', '12s', '--label', label]);
  // Run alone, this round brings the platform up: the results database is there after that.
  let c = null;
  for (let i = 0; i < 1200 && c === null; i++) c = await results().catch(() => sleep(250).then(() => null));
  let killedAt = 0;
  for (let i = 0; i < 1200 && killedAt === 0; i++) {
    const { rows } = await c.query(
      "SELECT id FROM rounds WHERE label = $1 AND now() > start_at + interval '2.5 s'", [label]);
    if (rows.length === 1) {
      const pids = fs.readFileSync(`${CGROUP}/loadgen-1/cgroup.procs`, 'utf8').split('\n').filter(Boolean).map(Number);
      for (const pid of pids) process.kill(pid, 'SIGKILL');
      killedAt = Date.now();
    } else {
      await sleep(100);
    }
  }
  assert.ok(killedAt > 0, 'the round never started');
  const res = await running;
  assertRoundRan(res, 2);
  const id = roundIdOf(res);
  const { rows: [l] } = await c.query(`SELECT l.status, l.sent::int, l.lost::int, l.detail,
      (SELECT count(*)::int FROM requests q WHERE q.round_id = l.round_id AND q.loadgen_index = 1) AS stored,
      (SELECT extract(epoch FROM max(q.started_at) - min(q.started_at)) FROM requests q
        WHERE q.round_id = l.round_id AND q.loadgen_index = 1) AS span_s
    FROM loadgen_runs l WHERE l.round_id = $1 AND l.instance_index = 1`, [id]);
  assert.equal(l.status, 'lost', `${l.detail}\n${res.stdout}`);
  assert.equal(l.sent, l.stored, 'the row counts what reached requests');
  assert.match(res.stdout, /loadgen 1 did not finish \(lost: died in the round, \d+ samples lost/);
  // At its rate, the samples the router and the app saw beyond the stored ones: at most 250 ms
  // of them plus the 4 in flight at the kill.
  const rate = l.stored / Number(l.span_s);
  const bound = Math.ceil(rate * 0.25) + 4;
  process.stdout.write(`# loadgen kill -9: ${l.lost} samples lost at ${Math.round(rate)} req/s = ${Math.round(l.lost / rate * 1000)} ms (bound ${bound})\n`);
  assert.ok(l.lost >= 1 && l.lost <= bound, `${l.lost} lost, bound ${bound} (${l.detail})`);
  const { rows: [sum] } = await c.query(`SELECT (SELECT count(*) FROM requests WHERE round_id = $1)::int AS stored,
    (SELECT sum(sent) FROM loadgen_runs WHERE round_id = $1)::int AS sent`, [id]);
  assert.equal(sum.stored, sum.sent);
});

test('an instance over its memory limit is killed and reported (fixtures/hog-app)', { timeout: ROUND_TIMEOUT_MS }, async () => {
  const manifests = fs.mkdtempSync('/tmp/cfscale-e2e-manifests-');
  fs.copyFileSync(path.join(ROOT, 'manifests/vars-local.yml'), path.join(manifests, 'vars-local.yml'));
  fs.writeFileSync(path.join(manifests, 'loadgen.yml'), fs.readFileSync(path.join(ROOT, 'manifests/loadgen.yml'), 'utf8')
    .replace('path: ../loadgen', `path: ${path.join(ROOT, 'loadgen')}`));
  fs.writeFileSync(path.join(manifests, 'hog-app.yml'), `---
applications:
- name: hog-app
  path: ${path.join(__dirname, 'fixtures/hog-app')}
  memory: 64M
  instances: 1
  buildpacks:
  - nodejs_buildpack
  routes:
  - route: hog-app.((domain))
  health-check-type: http
  health-check-http-endpoint: /health
  env:
    HOG_MB_PER_REQUEST: "2"
`);
  try {
    const res = await runScript('run-round.sh', ['--app', 'hog-app', '--instances', '1', '--loadgens', '1',
      '--parallel', '2', '--duration', '4s', '--warmup', '0s', '--seed-ads', '0', '--max-error-rate', '1', '--label', 'e2e-oom'],
    { CFSCALE_MANIFEST_DIR: manifests });
    assertRoundRan(res);
    const id = roundIdOf(res);
    assert.ok(await count('instance_events', id, "kind = 'oom'") >= 1, `no oom event:\n${res.stdout}`);
    assert.match(res.stdout, /^ {2}instance 0: oom \(.*out of memory/m);
  } finally {
    spawnSync(path.join(ROOT, '.tools/bin/cf'), ['delete', 'hog-app', '-f'], { env: { ...ENV, CF_HOME } });
    fs.rmSync(manifests, { recursive: true, force: true });
  }
});

test('the steady-state gate: the window starts once a whole window is steady (or at the maximum warm-up); the loadgens stop a duration later', { timeout: ROUND_TIMEOUT_MS }, async () => {
  const c = await results();
  const window = async (id) => (await c.query(`SELECT r.steady, extract(epoch FROM r.measure_from - r.start_at) * 1000 AS from_ms,
      extract(epoch FROM r.stop_at - r.measure_from) * 1000 AS window_ms,
      extract(epoch FROM max(q.intended_at) - r.stop_at) * 1000 AS last_after_stop_ms,
      count(*) FILTER (WHERE q.intended_at < r.measure_from)::int AS warmup_samples,
      (SELECT samples::int FROM round_summary WHERE round_id = r.id) AS measured_samples,
      count(*) FILTER (WHERE q.intended_at >= r.measure_from)::int AS after_from
    FROM rounds r JOIN requests q ON q.round_id = r.id WHERE r.id = $1 GROUP BY r.id`, [id])).rows[0];
  // Bounds loose enough that any load that answers is steady: the gate then decides at the
  // first whole window, which it can judge only once its 3 s are in (+ 2 s for the samples).
  // --cpu 0.1 here; the next round gives none and must run at the default quota again.
  let res = await runScript('run-round.sh', ['--app', 'node-app', '--instances', '1', '--loadgens', '1', '--parallel', '4',
    '--duration', '3s', '--steady-window', '3s', '--steady-cv', '1', '--steady-trend', '1', '--max-warmup', '60s',
    '--seed-ads', '50', '--cpu', '0.1', '--label', 'e2e-steady']);
  assertRoundRan(res);
  let id = roundIdOf(res);
  const cpuRound = id;
  let w = await window(id);
  assert.equal(w.steady, true);
  assert.ok(Number(w.from_ms) >= 5000, `decided ${w.from_ms} ms after the start, before a whole window was in`);
  assert.equal(Number(w.window_ms), 3000);
  assert.ok(Number(w.last_after_stop_ms) <= 20, `a request sent ${w.last_after_stop_ms} ms after stop_at`);
  assert.ok(w.warmup_samples > 0 && w.measured_samples === w.after_from, JSON.stringify(w));
  assert.match(res.stdout, /^measured window: from \d+\.\d s for 3\.0 s, steady after \d+\.\d s \(gate: window 3\.0 s, CV ≤ 100\.0 %, trend within ±100\.0 %\)$/m);
  assert.match(res.stderr, new RegExp(`^run-round: round ${id}: steady after \\d+(\\.\\d)? s \\(mean \\d+ req/s, CV .*\\); measuring 3 s$`, 'm'));
  assert.doesNotMatch(res.stderr, /MaxListenersExceededWarning/);
  // The progress counts the duration from the window's start.
  assert.match(res.stderr, new RegExp(`^round ${id}: \\d+\\.\\ds, measuring \\d+\\.\\d/3s, \\d+ samples, loadgens done 1/1$`, 'm'));
  // A CV bound nothing meets: given up at the maximum warm-up, measured from there, flagged.
  res = await runScript('run-round.sh', ['--app', 'node-app', '--instances', '1', '--loadgens', '1', '--parallel', '4',
    '--duration', '3s', '--steady-window', '3s', '--steady-cv', '0.000001', '--max-warmup', '6s', '--seed-ads', '50', '--label', 'e2e-never-steady']);
  assertRoundRan(res);
  id = roundIdOf(res);
  w = await window(id);
  assert.deepEqual([w.steady, Number(w.from_ms), Number(w.window_ms)], [false, 6000, 3000]);
  assert.ok(Number(w.last_after_stop_ms) <= 20, `a request sent ${w.last_after_stop_ms} ms after stop_at`);
  assert.match(res.stdout, /^measured window: from 6\.0 s for 3\.0 s: NOT steady within the maximum warm-up of 6\.0 s/m);
  // A round's settings are what it was given or the documented default, never what the round
  // before left: manifest memory in GB x CFSCALE_CPU_PER_GB (1.0) cores without --cpu.
  // The quota each instance had, as its stats report it, and as the round recorded it applied.
  const quotas = (await c.query(`SELECT r.id, (r.environment->>'app_cpu_quota_cores')::float8 AS applied,
      r.environment->>'app_cpu_quota_default' AS by_default, (r.environment->>'app_memory_mb')::float8 AS mb,
      min(s.cpu_quota_cores)::float8 AS low, max(s.cpu_quota_cores)::float8 AS high
    FROM rounds r JOIN instance_stats s ON s.round_id = r.id AND s.app = r.app WHERE r.id = ANY($1) GROUP BY r.id ORDER BY r.id`, [[cpuRound, id]])).rows;
  // (The cgroup holds whole microseconds per period: compared to 3 places.)
  const want = [[0.1, 'false'], [quotas[1]?.mb / 1024, 'true']];
  assert.deepEqual(quotas.map((q) => [q.applied.toFixed(3), q.by_default, q.low.toFixed(3), q.high.toFixed(3)]),
    want.map(([v, byDefault]) => [v.toFixed(3), byDefault, v.toFixed(3), v.toFixed(3)]), JSON.stringify(quotas));
});

// Nothing lost, nothing stuck: the platform's PostgreSQL — the
// results database and the apps' databases alike — stopped for 20 s in mid-round as
// pg_ctl stop -m fast does (clients get 57P01), then started again, by the same script the
// platform starts it with (pg-cluster.js, CFSCALE_HOME/pg). The apps answer 503
// meanwhile: --max-error-rate 1 keeps the verdict on what is checked here.
const OUTAGE_MS = 20000;
test('a 20 s stop of the platform PostgreSQL mid-round: run-round ends with its summary; nothing lost, nothing pending', { timeout: ROUND_TIMEOUT_MS }, async (t) => {
  const label = `e2e-outage-${Date.now()}`;
  const running = runScript('run-round.sh', ['--app', 'node-app', '--instances', '2', '--loadgens', '2',
    '--parallel', '8', '--duration', '30s', '--warmup', '0s', '--seed-ads', '50', '--max-error-rate', '1', '--label', label]);
  let started = false;
  for (let i = 0; i < 1800 && !started; i++) {
    try {
      // Run alone, this test finds the platform (and the cf login) only once run-round made them.
      const c = await results();
      started = (await c.query("SELECT 1 FROM rounds WHERE label = $1 AND now() > start_at + interval '3 s'", [label])).rows.length === 1;
    } catch {
      await w.endResults().catch(() => {});
    }
    if (!started) await sleep(100);
  }
  if (!started) {
    assertRoundRan(await running);
    assert.fail('the round never started');
  }
  // Our own connection would break as well.
  await w.endResults();
  // Where the platform keeps its cluster (HOME/pg, or outside when postgres cannot reach HOME).
  const pgDir = pgDirOf(HOME, HOME_HASH);
  pgCluster.stop(pgDir);
  await sleep(OUTAGE_MS);
  pgCluster.start(pgDir, { port: ENV.CFSCALE_PG_PORT });
  const res = await running;
  assertRoundRan(res);
  const id = roundIdOf(res);
  assert.match(res.stdout, new RegExp(`^round ${id}: node-app on local, 2 instance`, 'm'));
  assert.match(res.stdout, /^verdict: ok$/m);
  assert.match(res.stdout, /^results database: unreachable for \d+\.\d s during the round/m);
  assert.doesNotMatch(res.stderr, /NOT WRITTEN|not flushed|not ingested|a collector exited with an error|Unhandled|^\s+at /m);
  const c = await results();
  const { rows: [f] } = await c.query(`SELECT r.status, r.db_outage_ms::int AS outage_ms,
      (SELECT sum(sent)::int FROM loadgen_runs WHERE round_id = r.id) AS sent,
      (SELECT count(*)::int FROM requests WHERE round_id = r.id) AS stored,
      (SELECT count(*)::int FROM server_timings WHERE round_id = r.id) AS server_timings,
      (SELECT count(*)::int FROM router_timings WHERE round_id = r.id) AS router_records,
      (SELECT count(*)::int FROM instance_stats WHERE round_id = r.id) AS stats_samples
    FROM rounds r WHERE r.id = $1`, [id]);
  t.diagnostic(`round ${id}: ${JSON.stringify(f)}`);
  assert.equal(f.status, 'done');
  assert.ok(f.outage_ms >= OUTAGE_MS - 2000, `outage recorded as ${f.outage_ms} ms`);
  assert.ok(f.sent > 0);
  assert.equal(f.stored, f.sent, 'stored requests = sum(loadgen_runs.sent)');
  assert.ok(f.server_timings > 0, 'no server timings');
  assert.ok(f.router_records > 0, 'no router records');
});

test('teardown.sh leaves nothing running', { timeout: 120000 }, async () => {
  await w.endResults();
  const res = await runScript('teardown.sh', []);
  assert.equal(res.code, 0, res.stderr);
  assert.equal(fs.existsSync(CGROUP), false, `${CGROUP} still exists`);
  const open = await new Promise((resolve) => {
    const s = net.connect(ROUTER_PORT, '127.0.0.1', () => { s.destroy(); resolve(true); });
    s.on('error', () => resolve(false));
  });
  assert.equal(open, false, `router port ${ROUTER_PORT} still open`);
  for (const dir of [HOME, pgDirOf(HOME, HOME_HASH)]) {
    const left = spawnSync('pgrep', ['-f', dir], { encoding: 'utf8' }).stdout.trim();
    assert.equal(left, '', `processes of ${dir} left: ${left}`);
  }
});
