'use strict';
// journey.e2e.test.js — the foundation journey as a user runs it, against the local platform
// taken as a cf target (docs/cf-platform.md §22): the user's own CF_HOME logged in to its API
// with --skip-ssl-validation, the vars file made from manifests/vars-example.yml (a copy in
// a temp dir), the services created, node-app and loadgen pushed from manifests/ by push.sh,
// chisel by tunnel.sh, which carries the tunnel as a WebSocket through the router's HTTPS
// (§21); a round by run-round.sh --platform cf with RESULTS_DATABASE_URL from the tunnel,
// the report read through it, then teardown. Beside it, the same round with --platform local
// on the same apps: the two throughputs and the journey's wall time go to the test's output.
// Its own platform and ports (range `journey` of ports.json).

const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const { execFile } = require('node:child_process');
const { Client } = require('pg');
const { freePortInRange, portRange } = require('../lib/ports');

const ROOT = path.resolve(__dirname, '..');
const HOME = fs.mkdtempSync('/tmp/cfscale-journey-');
fs.chmodSync(HOME, 0o711); // PostgreSQL runs as postgres when we are root
const CFSCALE_HOME = path.join(HOME, 'platform');
const USER_CF_HOME = path.join(HOME, 'user-cf-home');
const VARS = path.join(HOME, 'vars.yml');
const STEP_TIMEOUT_MS = 240000;
fs.mkdirSync(path.join(HOME, 'tmp'));
fs.mkdirSync(USER_CF_HOME);

let TUNNEL_PORT;
const ENV = {
  ...process.env,
  // The instances inherit TMPDIR: the loadgen's spool stays inside this home.
  TMPDIR: path.join(HOME, 'tmp'),
  PATH: `${process.env.PATH}:${path.join(ROOT, '.tools/bin')}`,
  CFSCALE_HOME, CF_HOME: USER_CF_HOME, CFSCALE_VARS_FILE: VARS, CFSCALE_TUNNEL_DIR: path.join(HOME, 'tunnel'),
  CFSCALE_GRACEFUL_SHUTDOWN_SEC: '2', PLATFORM: '', RESULTS_DATABASE_URL: '', CF_COLOR: 'false', CF_TRACE: 'false',
};

function run(cmd, args, extra = {}) {
  return new Promise((resolve) => {
    const file = cmd.includes('/') ? path.join(ROOT, cmd) : cmd;
    execFile(file, args, { cwd: ROOT, env: { ...ENV, ...extra }, encoding: 'utf8', timeout: STEP_TIMEOUT_MS, maxBuffer: 64 << 20 },
      (err, stdout, stderr) => resolve({ code: err ? (err.code ?? 1) : 0, stdout, stderr }));
  });
}

async function ok(cmd, args, extra) {
  const r = await run(cmd, args, extra);
  assert.equal(r.code, 0, `${cmd} ${args.join(' ')}:\n${r.stdout}\n${r.stderr}`);
  return r;
}

const throughput = (out) => Number(/^throughput: ([\d.]+) req\/s$/m.exec(out)?.[1]);
const roundId = (out) => Number(/^round_id=(\d+)$/m.exec(out)?.[1]);
const ROUND = ['--app', 'node-app', '--instances', '1', '--loadgens', '1', '--parallel', '4', '--duration', '5s', '--warmup', '1s'];

async function query(url, sql, params) {
  const c = new Client({ connectionString: url });
  await c.connect();
  try { return (await c.query(sql, params)).rows; } finally { await c.end(); }
}

// Range `journey`: router, PostgreSQL, API, router HTTPS, the tunnel's local end (each the first
// free one of its ten: where the range is not reserved, an outgoing connection may hold a
// port), then instances; the last five for front proxies (none start: pinned all the same).
test.before(async () => {
  const [first] = portRange('journey');
  const names = ['CFSCALE_ROUTER_PORT', 'CFSCALE_PG_PORT', 'CFSCALE_API_PORT', 'CFSCALE_ROUTER_TLS_PORT'];
  for (const [i, name] of names.entries()) ENV[name] = String(await freePortInRange(first + 10 * i, first + 10 * i + 9));
  TUNNEL_PORT = await freePortInRange(first + 40, first + 49);
  ENV.CFSCALE_INSTANCE_PORT_BASE = String(first + 50);
  ENV.CFSCALE_FRONT_PROXY_PORT_BASE = String(first + 95);
});

test.after(async () => {
  await run('scripts/tunnel.sh', ['--stop']);
  await run('scripts/cfl', ['down']);
  fs.rmSync(HOME, { recursive: true, force: true });
});

test('the journey: services, push, tunnel, a round through it, the report through it, teardown', { timeout: 900000 }, async (t) => {
  const t0 = Date.now();
  await ok('scripts/cfl', ['up']);
  const api = (await ok('scripts/cfl', ['api-url'])).stdout.trim();
  // The user's own login: a dev foundation with a self-signed certificate.
  // The password in CF_PASSWORD (cf auth), never on a command line.
  await ok('cf', ['api', api, '--skip-ssl-validation']);
  await ok('cf', ['auth'], { CF_USERNAME: 'admin', CF_PASSWORD: 'admin' });
  await ok('cf', ['target', '-o', 'local', '-s', 'local']);
  const secret = () => require('node:crypto').randomBytes(12).toString('hex');
  fs.writeFileSync(VARS, fs.readFileSync(path.join(ROOT, 'manifests/vars-example.yml'), 'utf8')
    .replace(/^domain: .*$/m, 'domain: localhost').replace(/CHANGE-ME/g, 'journey')
    .replace(/^loadgen-tls-insecure: .*$/m, 'loadgen-tls-insecure: "true"')
    .replace(/^chisel-auth: .*$/m, `chisel-auth: tunnel:${secret()}`).replace(/^chisel-key: .*$/m, `chisel-key: ${secret()}`));
  await Promise.all(['node-db', 'java-db', 'results-db'].map((s) => ok('cf', ['create-service', 'postgres', 'local', s])));

  let url;
  await t.test('push.sh node-app and loadgen, tunnel.sh pushing chisel: the tunnel is a WebSocket through the router\'s HTTPS', async () => {
    const [, , tunnel] = await Promise.all([
      ok('scripts/push.sh', ['node-app', '--platform', 'cf', '--skip-ssl-validation']),
      ok('scripts/push.sh', ['loadgen', '--platform', 'cf', '--skip-ssl-validation']),
      ok('scripts/tunnel.sh', ['--platform', 'cf', '--skip-ssl-validation', '--local-port', String(TUNNEL_PORT)]),
    ]);
    url = /^export RESULTS_DATABASE_URL=(\S+)$/m.exec(tunnel.stdout)[1].replace(/^'|'$/g, '');
    assert.equal(new URL(url).port, String(TUNNEL_PORT), 'the URL goes through the local end of the tunnel');
    assert.match(tunnel.stderr, new RegExp(`via https://cfscale-journey-chisel\\.localhost \\(at https://127\\.0\\.0\\.1:${ENV.CFSCALE_ROUTER_TLS_PORT}\\)`));
    const client = fs.readFileSync(path.join(ENV.CFSCALE_TUNNEL_DIR, 'client.log'), 'utf8');
    assert.match(client, new RegExp(`Connecting to wss://127\\.0\\.0\\.1:${ENV.CFSCALE_ROUTER_TLS_PORT}`));
  });

  let cf;
  await t.test('run-round.sh --platform cf writes the whole round through the tunnel', async () => {
    cf = await ok('scripts/run-round.sh', [...ROUND, '--platform', 'cf', '--skip-ssl-validation'], { RESULTS_DATABASE_URL: url });
    assert.match(cf.stdout, /^verdict: ok$/m);
    const id = roundId(cf.stdout);
    const [round] = await query(url, 'SELECT platform, target_url, host_header, status FROM rounds WHERE id = $1', [id]);
    assert.deepEqual(round, { platform: 'cf', target_url: `https://127.0.0.1:${ENV.CFSCALE_ROUTER_TLS_PORT}`,
      host_header: 'cfscale-journey-node-app.localhost', status: 'done' });
    for (const table of ['requests', 'instance_stats', 'router_timings', 'server_timings']) {
      const [{ n }] = await query(url, `SELECT count(*)::int AS n FROM ${table} WHERE round_id = $1`, [id]);
      assert.ok(n > 0, `${table}: no rows of round ${id}`);
    }
  });

  await t.test('report.sh --platform cf reads through the tunnel', async () => {
    const out = path.join(HOME, 'report');
    const r = await ok('scripts/report.sh', ['--platform', 'cf', '--rounds', String(roundId(cf.stdout)), '--out', out], { RESULTS_DATABASE_URL: url });
    assert.equal(r.stdout.trim(), path.join(out, 'index.html'));
    const csv = fs.readdirSync(path.join(out, 'csv')).map((f) => fs.readFileSync(path.join(out, 'csv', f), 'utf8')).join('\n');
    assert.match(csv, new RegExp(`\\b${roundId(cf.stdout)}\\b`));
  });

  let local;
  await t.test('the same round with --platform local on the same apps, beside it', async () => {
    local = await ok('scripts/run-round.sh', [...ROUND, '--platform', 'local'], { CF_HOME: '' });
    assert.match(local.stdout, /^verdict: ok$/m);
    t.diagnostic(`throughput: cf through the tunnel ${throughput(cf.stdout)} req/s, local ${throughput(local.stdout)} req/s`);
  });

  await t.test('teardown.sh --platform cf, tunnel.sh --stop, chisel deleted: no app left', async () => {
    await ok('scripts/teardown.sh', ['--platform', 'cf']);
    await ok('scripts/tunnel.sh', ['--stop']);
    // The router logs the WebSocket to chisel once it closed: a 101 in chisel's RTR lines.
    const upgrade = /\[RTR\/0\] OUT cfscale-journey-chisel\.localhost - \[[^\]]+\] "GET \/ HTTP\/1\.1" 101 /;
    let rtr = '';
    for (let i = 0; i < 20 && !upgrade.test(rtr); i++) {
      if (i) await new Promise((r) => { setTimeout(r, 250); });
      rtr = (await ok('cf', ['logs', 'chisel', '--recent'])).stdout;
    }
    assert.match(rtr, upgrade);
    await ok('cf', ['delete', 'chisel', '-f']);
    const apps = JSON.parse((await ok('cf', ['curl', '/v3/apps'])).stdout);
    assert.deepEqual(apps.resources.map((a) => a.name), []);
  });
  t.diagnostic(`journey wall time ${((Date.now() - t0) / 1000).toFixed(1)} s`);
});
