'use strict';
// The three ingest CLIs against a real PostgreSQL with results-schema.sql: the real
// binaries, stdin in, rows out; duplicates, junk, SIGTERM, bad arguments and an unreachable
// database (a database that goes away and comes back: ingest-outage.test.js).

const test = require('node:test');
const assert = require('node:assert/strict');
const { spawn } = require('node:child_process');
const path = require('node:path');
const { Client } = require('pg');
const { testDatabases } = require('../../lib/test-db');
const testDbs = testDatabases(require('pg'), 'cf');

const BIN = (name) => path.join(__dirname, `${name}.js`);

let db;
let client;

test.before(async () => {
  db = await testDbs.open('cfscale_cf_ingest');
  client = new Client({ connectionString: db.url });
  await client.connect();
});

test.after(async () => {
  if (client) await client.end();
  if (db) await db.close();
});

/** Runs a CLI with stdin; resolves {code, stderr}. */
// The results database comes in the environment (RESULTS_DATABASE_URL), never in argv.
function run(name, args, input, { env = {} } = {}) {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [BIN(name), ...args], { env: { ...process.env, RESULTS_DATABASE_URL: db.url, ...env } });
    let stderr = '';
    child.stderr.on('data', (d) => { stderr += d; });
    child.on('close', (code) => resolve({ code, stderr }));
    // A child that stops at a usage error may exit before it reads its input: no EPIPE then.
    child.stdin.on('error', () => {});
    child.stdin.end(input);
  });
}

const q = async (sql, params) => (await client.query(sql, params)).rows;
const args = (round, app, platform = 'cf') => ['--round', String(round), '--app', app, '--platform', platform];

function pluginLine(index, time, cpu, extra = {}) {
  return JSON.stringify({ instance_index: String(index), metrics: { state: 'RUNNING', stats: { uptime: 10, mem_quota: 209715200, ...extra,
    usage: { time, cpu, mem: 1000 + index, disk: 5 } } } });
}

test('ingest-stats: plugin lines, pretty v3 documents and junk in one stream', async () => {
  const running = { index: 0, state: 'RUNNING', uptime: 20, mem_quota: null, usage: { time: '2026-03-01T12:01:00Z', cpu: 0.9, cpu_entitlement: null, mem: 2000, disk: 6 } };
  const down = { index: 1, state: 'DOWN', uptime: 0, usage: {} };
  const v3 = JSON.stringify({ resources: [running, down] }, null, 2);
  const stream = (doc) => [
    'ERROR: not logged in',
    pluginLine(0, '2026-03-01T12:00:00Z', 0.5),
    pluginLine(1, '2026-03-01T12:00:00Z', 0.25),
    pluginLine(10, '2026-03-01T12:00:00Z', 0.1),
    pluginLine(0, '2026-03-01T12:00:01Z', 0.5), // same envelope, next poll: a repeat
    '',
    'TIMEOUT',
    doc,
    pluginLine(2, '2026-03-01T12:00:02Z', 0.3).slice(0, 40), // cut off
  ].join('\n');
  const r = await run('ingest-stats', args(1, 'node-app'), stream(v3));
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stderr, /ingest-stats: .*inserted 5, already in db 0/);
  const rows = await q(`SELECT instance_index, source, state, cpu, cpu_entitlement, mem_quota_bytes, platform
    FROM instance_stats WHERE round_id = 1 ORDER BY sampled_at, instance_index`);
  assert.deepEqual(rows.map((x) => [x.instance_index, x.source, x.state, x.cpu]), [
    [0, 'plugin', 'RUNNING', 0.5], [1, 'plugin', 'RUNNING', 0.25], [10, 'plugin', 'RUNNING', 0.1],
    [0, 'v3', 'RUNNING', 0.9], [1, 'v3', 'DOWN', null],
  ]);
  assert.equal(rows[3].mem_quota_bytes, null);
  assert.equal(rows[3].cpu_entitlement, null);

  // Read again (without the DOWN entry: it is stamped with the read time, a new sample
  // each second): everything is already in the database.
  const again = await run('ingest-stats', args(1, 'node-app'), stream(JSON.stringify({ resources: [running] })));
  assert.equal(again.code, 0);
  assert.match(again.stderr, /inserted 0, already in db 4/);
});

test('ingest-stats: local platform, cpu_quota → cpu_quota_cores, cpu_throttling → its counters, source local', async () => {
  const throttling = { periods: 500, throttled_periods: 450, throttled_us: 40000000 };
  const r = await run('ingest-stats', args(2, 'java-app', 'local'),
    `${pluginLine(0, '2026-03-01T12:00:00.250Z', 0.75, { cpu_quota: 0.8, cpu_throttling: throttling })}\n`);
  assert.equal(r.code, 0, r.stderr);
  assert.deepEqual(await q(`SELECT source, platform, cpu_quota_cores, app, cpu_periods::int, cpu_throttled_periods::int,
      cpu_throttled_us::int FROM instance_stats WHERE round_id = 2`),
  [{ source: 'local', platform: 'local', cpu_quota_cores: 0.8, app: 'java-app', cpu_periods: 500, cpu_throttled_periods: 450,
    cpu_throttled_us: 40000000 }]);
});

test('ingest-stats: more rows than one batch', async () => {
  const lines = [];
  for (let s = 0; s < 1200; s++) lines.push(pluginLine(s % 3, new Date(Date.UTC(2026, 2, 1, 12, 0, 0, s * 1000)).toISOString(), s / 10000));
  const r = await run('ingest-stats', args(3, 'node-app'), lines.join('\n'));
  assert.equal(r.code, 0, r.stderr);
  assert.equal((await q('SELECT count(*)::int AS n FROM instance_stats WHERE round_id = 3'))[0].n, 1200);
});

test('ingest-stats: SIGTERM with stdin still open writes everything read, exits 0', async () => {
  const child = spawn(process.execPath, [BIN('ingest-stats'), ...args(4, 'node-app')], { env: { ...process.env, RESULTS_DATABASE_URL: db.url } });
  let stderr = '';
  child.stderr.on('data', (d) => { stderr += d; });
  const closed = new Promise((resolve) => child.on('close', resolve));
  child.stdin.write(`${pluginLine(0, '2026-03-01T12:00:00Z', 0.1)}\n${pluginLine(1, '2026-03-01T12:00:00Z', 0.2)}\n`);
  // wait until the ingester is connected (it reads stdin from then on), then a little more
  for (let i = 0; i < 100; i++) {
    const n = (await q("SELECT count(*)::int AS n FROM pg_stat_activity WHERE application_name = 'cfscale-ingest'"))[0].n;
    if (n > 0) break;
    await new Promise((r) => setTimeout(r, 50));
  }
  await new Promise((r) => setTimeout(r, 300));
  child.kill('SIGTERM');
  assert.equal(await closed, 0, stderr);
  assert.equal((await q('SELECT count(*)::int AS n FROM instance_stats WHERE round_id = 4'))[0].n, 2);
  child.stdin.destroy();
});

const RTR = (id, extra = '') => `   2026-03-01T12:00:05.00+0000 [RTR/0] OUT node-app.localhost - [2026-03-01T12:00:05.123456789Z] "GET /ads/1 HTTP/1.1" 200 0 99 "-" "lg" "127.0.0.1:5000" "127.0.0.1:61000" x_forwarded_for:"-" x_forwarded_proto:"http" vcap_request_id:"${id}" response_time:0.002500 gorouter_time:0.000100 app_id:"g" app_index:"1" instance_id:"i"${extra}`;

test('ingest-rtr: router lines in, app lines and junk out, dedupe on vcap_request_id', async () => {
  const input = [
    'Retrieving logs for app node-app in org o / space s as admin...',
    RTR('req-1', ' x_correlation_id:"corr-1"'),
    '   2026-03-01T12:00:05.00+0000 [APP/PROC/WEB/0] OUT hello',
    RTR('req-2'),
    RTR('req-1', ' x_correlation_id:"corr-1"'), // --recent overlap
    'garbage \u0000 line',
  ].join('\n');
  const r = await run('ingest-rtr', args(5, 'node-app', 'local'), input);
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stderr, /3 router records, 0 instance stops, 3 other lines ignored; inserted 2, already in db 1/);
  const rows = await q(`SELECT vcap_request_id, correlation_id, response_time_us, gorouter_time_us, app_index, status, bytes_sent,
    method, path, platform, app, to_char(at AT TIME ZONE 'UTC', 'HH24:MI:SS.US') AS at FROM router_timings WHERE round_id = 5 ORDER BY vcap_request_id`);
  assert.deepEqual(rows[0], { vcap_request_id: 'req-1', correlation_id: 'corr-1', response_time_us: '2500', gorouter_time_us: '100',
    app_index: 1, status: 200, bytes_sent: '99', method: 'GET', path: '/ads/1', platform: 'local', app: 'node-app', at: '12:00:05.123456' });
  assert.equal(rows[1].correlation_id, null);
});

test('ingest-events: crash and oom events, once', async () => {
  const doc = JSON.stringify({ pagination: {}, resources: [
    { created_at: '2026-03-01T12:00:05Z', type: 'audit.app.process.crash', data: { index: 0, exit_description: 'out of memory', reason: 'CRASHED' } },
    { created_at: '2026-03-01T12:00:06Z', type: 'audit.app.process.crash', data: { index: 1, exit_description: 'Exited with status 1', reason: 'CRASHED' } },
    { created_at: '2026-03-01T12:00:07Z', type: 'audit.app.update', data: {} },
  ] }, null, 2);
  const r = await run('ingest-events', args(6, 'node-app'), doc);
  assert.equal(r.code, 0, r.stderr);
  assert.deepEqual(await q('SELECT instance_index, kind, detail FROM instance_events WHERE round_id = 6 ORDER BY at'), [
    { instance_index: 0, kind: 'oom', detail: 'CRASHED: out of memory' },
    { instance_index: 1, kind: 'crash', detail: 'CRASHED: Exited with status 1' },
  ]);
  const again = await run('ingest-events', args(6, 'node-app'), doc);
  assert.match(again.stderr, /inserted 0, already in db 2/);
  assert.equal((await q('SELECT count(*)::int AS n FROM instance_events WHERE round_id = 6'))[0].n, 2);
});

test('bad arguments: one line, exit 1', async (t) => {
  const cases = [
    { name: 'no round', argv: ['--app', 'a'], msg: /--round is required/ },
    { name: 'round 0', argv: ['--app', 'a', '--round', '0'], msg: /--round must be a positive integer, got "0"/ },
    { name: 'bad platform', argv: ['--app', 'a', '--round', '1', '--platform', 'k8s'], msg: /--platform must be local or cf/ },
    { name: 'unknown flag', argv: ['--nope', '1'], msg: /unknown option: --nope/ },
    { name: 'no db', argv: ['--app', 'a', '--round', '1'], msg: /^ingest-[a-z]+: RESULTS_DATABASE_URL is not set$/m, env: { RESULTS_DATABASE_URL: '' } },
    // The URL holds a password: it is no flag, so that no command line carries it.
    { name: '--db is no flag', argv: ['--db', 'postgres://u:p@127.0.0.1:1/x', '--app', 'a', '--round', '1'], msg: /unknown option: --db/ },
  ];
  for (const c of cases) {
    for (const name of ['ingest-stats', 'ingest-rtr', 'ingest-events']) {
      await t.test(`${name}: ${c.name}`, async () => {
        const r = await run(name, c.argv, '', { env: c.env || { RESULTS_DATABASE_URL: 'postgres://x/y' } });
        assert.equal(r.code, 1);
        assert.match(r.stderr, c.msg);
        assert.equal(r.stderr.trim().split('\n').length, 1);
      });
    }
  }
});

test('unreachable database: rows held for the outage tolerance, then NOT WRITTEN and exit 2', async () => {
  const r = await run('ingest-rtr', ['--round', '1', '--app', 'a'],
    [RTR('held-1'), RTR('held-2')].join('\n'), { env: { RESULTS_DATABASE_URL: 'postgres://u:p@127.0.0.1:1/none', CFSCALE_OUTAGE_TOLERANCE_MS: '1500' } });
  assert.equal(r.code, 2, r.stderr);
  assert.match(r.stderr, /^ingest-rtr: results database unreachable for now, holding rows: /);
  assert.match(r.stderr, /2 router records.*NOT WRITTEN 2$/m);
});

test('a database that refuses the connection (no such database): one line, exit 2', async () => {
  const url = new URL(db.url);
  url.pathname = '/no_such_database';
  const r = await run('ingest-stats', ['--round', '1', '--app', 'a'], '', { env: { RESULTS_DATABASE_URL: url.toString() } });
  assert.equal(r.code, 2);
  assert.match(r.stderr, /^ingest-stats: cannot connect to the results database: database "no_such_database" does not exist$/m);
  assert.equal(r.stderr.trim().split('\n').length, 1);
});
