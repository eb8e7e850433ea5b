'use strict';
// collect.test.js — the collectors (collect-logs.sh, collect-stats.sh → ops/collect.js) with
// a fake cf and a real PostgreSQL database: SIGTERMed mid-stream, every line the producer
// wrote reaches the database and the collector exits 0; the producer's whole process group
// (a child it started included) is gone; a v3 poll loop stops in its sleep; an ingest CLI
// that fails first (the database refuses it) stops the producer and its status (2) is the
// collector's; a `cf logs` that ends by itself is caught up and followed again; a statistics
// plugin that ends by itself gives way to the v3 stats. They are started as run-round
// starts them: in a process group of their own, SIGTERM to the collector's pid only.
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { spawn } = require('node:child_process');
const { Client } = require('pg');
const { createTestDb } = require('../test/test-db');

const ROOT = path.resolve(__dirname, '../..');
const FAKE_CF = path.join(ROOT, 'scripts/test/fixtures/fake-cf.js');
const BURST = 100; // lines at once (~33 KB, within a pipe's 64 KB): the signal comes while they wait in
// the pipe, most likely before the ingest CLI has even connected to the database

// cf logs APP: a burst of router lines, then one every 5 ms until SIGTERM; on SIGTERM it
// records how many it wrote. It first starts a child in its own process group that does
// not hold the pipe (only a group-wide stop ends it).
const FAKE_LOGS = `#!/usr/bin/env node
'use strict';
const fs = require('node:fs');
const { spawn } = require('node:child_process');
const dir = process.env.FAKE_DIR;
if (process.argv[2] !== 'logs') process.exit(1);
const child = spawn('sleep', ['300'], { stdio: 'ignore' });
fs.writeFileSync(dir + '/pids', process.pid + ' ' + child.pid);
let n = 0;
const line = () => '   2026-03-01T12:00:05.00+0000 [RTR/0] OUT node-app.apps.example.com - [2026-03-01T12:00:05.123456789Z] "GET /ads/1 HTTP/1.1" 200 0 99 "-" "lg" "10.0.0.1:5000" "10.0.1.2:61000" x_forwarded_for:"-" x_forwarded_proto:"https" vcap_request_id:"req-' + process.pid + '-' + (++n) + '" response_time:0.002500 gorouter_time:0.000100 app_id:"g" app_index:"0" instance_id:"i"\\n';
process.on('SIGTERM', () => { fs.writeFileSync(dir + '/written', String(n)); process.exit(0); });
fs.writeSync(1, 'Retrieving logs for app node-app in org o / space s as admin...\\n\\n');
for (let i = 0; i < ${BURST}; i++) fs.writeSync(1, line());
fs.writeFileSync(dir + '/ready', '');
setInterval(() => fs.writeSync(1, line()), 5);
`;

// cf logs APP that ends by itself, as the cf CLI does after 5 log-cache errors in a row
// (exit 0): records 1-50, then the end; --recent: the last ones, 41-80 (it overlaps, and
// has the gap); the second `cf logs APP`: 81-90, then it waits for SIGTERM. The records
// are 1-90, each once.
const FAKE_FLAKY_LOGS = `#!/usr/bin/env node
'use strict';
const fs = require('node:fs');
const dir = process.env.FAKE_DIR;
fs.appendFileSync(dir + '/cf.log', JSON.stringify(process.argv.slice(2)) + '\\n');
if (process.argv[2] !== 'logs') process.exit(1);
const line = (n) => '   2026-03-01T12:00:05.00+0000 [RTR/0] OUT node-app.apps.example.com - [2026-03-01T12:00:05.123456789Z] "GET /ads/1 HTTP/1.1" 200 0 99 "-" "lg" "10.0.0.1:5000" "10.0.1.2:61000" x_forwarded_for:"-" x_forwarded_proto:"https" vcap_request_id:"flaky-' + n + '" response_time:0.002500 gorouter_time:0.000100 app_id:"g" app_index:"0" instance_id:"i"\\n';
const write = (from, to) => { for (let n = from; n <= to; n++) fs.writeSync(1, line(n)); };
fs.writeSync(1, 'Retrieving logs for app node-app in org o / space s as admin...\\n\\n');
if (process.argv[4] === '--recent') { write(41, 80); process.exit(0); }
const runs = fs.existsSync(dir + '/runs') ? Number(fs.readFileSync(dir + '/runs', 'utf8')) + 1 : 1;
fs.writeFileSync(dir + '/runs', String(runs));
if (runs === 1) {
  write(1, 50);
  process.stderr.write('Failed to retrieve logs from Log Cache: unexpected status code 502\\n');
  process.exit(0);
}
write(81, 90);
fs.writeFileSync(dir + '/ready', '');
setInterval(() => {}, 1000);
`;

// The statistics plugin on a foundation without the v2 API: it ends at once, exit 1.
const FAKE_PLUGIN_V2_OFF = `#!/bin/sh
if [ "$1" = statistics ]; then echo 'ERROR: V2 endpoints are disabled'; exit 1; fi
exec node ${FAKE_CF} "$@"
`;

let db;
const dirs = [];
test.before(async () => { db = await createTestDb('cfscale_port_rest_collect'); });
test.after(async () => {
  for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
  if (db) await db.close();
});

async function q(sql) {
  const c = new Client({ connectionString: db.url });
  await c.connect();
  try {
    return (await c.query(sql)).rows;
  } finally {
    await c.end();
  }
}

/** A temp dir with bin/cf (the given script) and an env that puts it first on PATH. */
function world(cfScript, state) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cfscale-port-rest-'));
  dirs.push(dir);
  fs.mkdirSync(path.join(dir, 'bin'));
  fs.mkdirSync(path.join(dir, 'home'));
  fs.writeFileSync(path.join(dir, 'bin/cf'), cfScript, { mode: 0o755 });
  fs.writeFileSync(path.join(dir, 'state.json'), JSON.stringify({ apps: {}, services: [], loggedIn: true, ...state }));
  return {
    dir,
    env: {
      ...process.env, PATH: `${path.join(dir, 'bin')}:${process.env.PATH}`, HOME: path.join(dir, 'home'), PLATFORM: 'cf',
      FAKE_DIR: dir, FAKE_CF_STATE: path.join(dir, 'state.json'), FAKE_CF_LOG: path.join(dir, 'cf.log'),
    },
  };
}

/** Starts a collector as run-round does: its own process group, stdout inherited. */
function startCollector(script, args, env) {
  const child = spawn(path.join(ROOT, 'scripts', script), args, { env, detached: true, stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (d) => { stderr += d; });
  const done = new Promise((resolve) => child.on('close', (code, signal) => resolve({ code, signal, stderr })));
  return { child, done };
}

async function until(what, check, ms = 30000) {
  for (const end = Date.now() + ms; Date.now() < end;) {
    if (check()) return;
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error(`timed out waiting for ${what}`);
}

/** A process is gone: no such pid, or only a zombie left to reap. */
function gone(pid) {
  try {
    return fs.readFileSync(`/proc/${pid}/stat`, 'utf8').replace(/^.*\) /, '')[0] === 'Z';
  } catch {
    return true;
  }
}

for (const [signal, round] of [['SIGTERM', 11], ['SIGINT', 14]]) {
  test(`collect-logs stopped by ${signal} mid-stream: every line written is in router_timings, exit 0, the producer group is gone`, async () => {
    const w = world(FAKE_LOGS);
    const c = startCollector('collect-logs.sh', ['--app', 'node-app', '--round', String(round), '--db', db.url], w.env);
    await until('the burst', () => fs.existsSync(path.join(w.dir, 'ready')));
    const [cfPid, childPid] = fs.readFileSync(path.join(w.dir, 'pids'), 'utf8').split(' ').map(Number);
    c.child.kill(signal);
    const res = await c.done;
    assert.equal(res.code, 0, res.stderr);
    const written = Number(fs.readFileSync(path.join(w.dir, 'written'), 'utf8'));
    assert.ok(written >= BURST, `${written} lines written`);
    assert.equal((await q(`SELECT count(*)::int AS n FROM router_timings WHERE round_id = ${round}`))[0].n, written, res.stderr);
    await until('the producer and its child to go', () => gone(cfPid) && gone(childPid), 5000)
      .catch(() => assert.fail(`still running: cf ${gone(cfPid) ? '' : cfPid} child ${gone(childPid) ? '' : childPid}`));
  });
}

test('collect-stats --source v3: polls, SIGTERM in the sleep between polls ends it, rows written, exit 0', async () => {
  const w = world(`#!/bin/sh\nexec node ${FAKE_CF} "$@"\n`, { apps: { 'node-app': { instances: 2 } } });
  const c = startCollector('collect-stats.sh',
    ['--app', 'node-app', '--round', '12', '--db', db.url, '--source', 'v3', '--interval', '60'], w.env);
  const curls = () => (fs.existsSync(path.join(w.dir, 'cf.log')) ? fs.readFileSync(path.join(w.dir, 'cf.log'), 'utf8') : '')
    .split('\n').filter((l) => l.startsWith('["curl"'));
  await until('the first poll', () => curls().length === 1);
  await new Promise((r) => setTimeout(r, 300)); // the poll has ended: now in the 60 s sleep
  c.child.kill('SIGTERM');
  const res = await c.done;
  assert.equal(res.code, 0, res.stderr);
  assert.deepEqual(JSON.parse(curls()[0]), ['curl', '/v3/apps/6e6f6465-1111-4222-8333-444455556666/processes/web/stats']);
  assert.deepEqual(await q('SELECT instance_index, source FROM instance_stats WHERE round_id = 12 ORDER BY instance_index'),
    [{ instance_index: 0, source: 'v3' }, { instance_index: 1, source: 'v3' }]);
});

test('collect-logs: cf logs ending by itself (log-cache errors) is caught up with --recent and followed again, every record once', async () => {
  const w = world(FAKE_FLAKY_LOGS);
  const c = startCollector('collect-logs.sh', ['--app', 'node-app', '--round', '15', '--db', db.url], w.env);
  await until('the second cf logs', () => fs.existsSync(path.join(w.dir, 'ready')));
  c.child.kill('SIGTERM');
  const res = await c.done;
  assert.equal(res.code, 0, res.stderr);
  assert.deepEqual(fs.readFileSync(path.join(w.dir, 'cf.log'), 'utf8').trim().split('\n').map((l) => JSON.parse(l)),
    [['logs', 'node-app'], ['logs', 'node-app', '--recent'], ['logs', 'node-app']]);
  assert.match(res.stderr, /^collect-logs: cf logs node-app ended by itself \(exit 0; restart 1\): catching up with --recent, then following again$/m);
  const ids = (await q('SELECT vcap_request_id AS id FROM router_timings WHERE round_id = 15')).map((r) => r.id);
  assert.deepEqual(ids.sort(), Array.from({ length: 90 }, (_, i) => `flaky-${i + 1}`).sort());
});

test('collect-stats --source plugin: a statistics plugin that ends by itself (no v2 API) gives way to the v3 stats', async () => {
  const w = world(FAKE_PLUGIN_V2_OFF, { apps: { 'node-app': { instances: 2 } } });
  fs.mkdirSync(path.join(w.dir, 'home/.cf/plugins'), { recursive: true });
  fs.writeFileSync(path.join(w.dir, 'home/.cf/plugins/config.json'), JSON.stringify({ Plugins: { Statistics: { Location: '/x' } } }));
  const c = startCollector('collect-stats.sh',
    ['--app', 'node-app', '--round', '16', '--db', db.url, '--source', 'plugin', '--interval', '60'], w.env);
  const rows = () => q('SELECT instance_index, source FROM instance_stats WHERE round_id = 16 ORDER BY instance_index');
  for (const end = Date.now() + 30000; (await rows()).length < 2;) {
    assert.ok(Date.now() < end, 'timed out waiting for the v3 rows');
    await new Promise((r) => setTimeout(r, 50));
  }
  c.child.kill('SIGTERM');
  const res = await c.done;
  assert.equal(res.code, 0, res.stderr);
  assert.match(res.stderr, /^collect-stats: cf statistics ended by itself \(exit 1\): polling the v3 stats every 60 s instead$/m);
  assert.deepEqual(await rows(), [{ instance_index: 0, source: 'v3' }, { instance_index: 1, source: 'v3' }]);
});

test('collect-logs whose ingest CLI fails first (the database refuses it): the producer group is stopped, exit 2', async () => {
  const w = world(FAKE_LOGS);
  // Refused, not unreachable: an unreachable database is waited for (rows held, ingest-cli.js).
  const refused = new URL(db.url);
  refused.pathname = '/no_such_database';
  const c = startCollector('collect-logs.sh', ['--app', 'node-app', '--round', '13', '--db', refused.toString()], w.env);
  const res = await c.done; // no signal: the ingest CLI's exit ends it
  assert.equal(res.code, 2, res.stderr);
  assert.match(res.stderr, /ingest-rtr: /);
  if (fs.existsSync(path.join(w.dir, 'pids'))) {
    const [cfPid, childPid] = fs.readFileSync(path.join(w.dir, 'pids'), 'utf8').split(' ').map(Number);
    await until('the producer and its child to go', () => gone(cfPid) && gone(childPid), 5000)
      .catch(() => assert.fail(`still running: cf ${gone(cfPid) ? '' : cfPid} child ${gone(childPid) ? '' : childPid}`));
  }
});
