'use strict';
// scripts/tunnel.sh --platform local for real: the local platform (scripts/cfl) with its
// own CFSCALE_HOME and ports (range `cf` of ports.json), its results-db, the chisel server and client
// from .tools/bin (built when missing), psql through the tunnel, --stop.

const test = require('node:test');
const assert = require('node:assert/strict');
const { spawnSync } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { portRange, randomFreePort } = require('../../lib/ports');
const { pgTool } = require('../../lib/credentials');
const { processAlive } = require('../../lib/process-checks');
const freePort = () => randomFreePort(...portRange('cf'));

const ROOT = path.resolve(__dirname, '..', '..');
const TUNNEL = path.join(ROOT, 'scripts', 'tunnel.sh');
const CFL = path.join(ROOT, 'scripts', 'cfl');

let home;
let env;

function sh(cmd, args, extraEnv = {}) {
  const r = spawnSync(cmd, args, { cwd: ROOT, env: { ...env, ...extraEnv }, encoding: 'utf8', timeout: 180000 });
  return { code: r.status, out: r.stdout || '', err: r.stderr || '' };
}

// The password in psql's environment, as tunnel.js runs it (lib/credentials.js).
function psql(url) {
  const { conninfo, env: pw } = pgTool(url);
  return sh('psql', [conninfo, '-Atqc', 'SELECT 1'], { ...pw, PGCONNECT_TIMEOUT: '3' });
}

test.before(async () => {
  home = fs.mkdtempSync(path.join(os.tmpdir(), 'cfscale-cf-e2e-'));
  fs.chmodSync(home, 0o755);
  env = {
    ...process.env,
    CFSCALE_HOME: path.join(home, 'local'),
    CFSCALE_ROUTER_PORT: String(await freePort()),
    CFSCALE_PG_PORT: String(await freePort()),
    CFSCALE_API_PORT: String(await freePort()),
    CFSCALE_FRONT_PROXY_PORT_BASE: String(await freePort()),
    CFSCALE_ROUTER_TLS_PORT: String(await freePort()),
    CFSCALE_INSTANCE_PORT_BASE: String(portRange('cf')[0] + 900 + Math.floor(Math.random() * 90)),
    CFSCALE_TUNNEL_DIR: path.join(home, 'tunnel'),
  };
  const up = sh(CFL, ['up']);
  assert.equal(up.code, 0, `cfl up: ${up.err}`);
  // results-db through the real cf CLI, logged in where the scripts keep the local login.
  const cf = (...args) => sh(path.join(ROOT, '.tools', 'bin', 'cf'), args, { CF_HOME: path.join(env.CFSCALE_HOME, 'cf-home') });
  fs.mkdirSync(path.join(env.CFSCALE_HOME, 'cf-home'), { recursive: true });
  const login = sh(CFL, ['login'], { CF_HOME: path.join(env.CFSCALE_HOME, 'cf-home') });
  assert.equal(login.code, 0, `cfl login: ${login.out}${login.err}`);
  const svc = cf('create-service', 'postgres', 'local', 'results-db');
  assert.equal(svc.code, 0, `cf create-service: ${svc.out}${svc.err}`);
});

test.after(() => {
  if (!env) return;
  sh(TUNNEL, ['--stop']);
  sh(CFL, ['down']);
  fs.rmSync(home, { recursive: true, force: true });
});

test('tunnel.sh local: up, proven by psql, refuses a second one, --stop ends it', async () => {
  const port = await freePort();
  const r = sh(TUNNEL, ['--platform', 'local', '--local-port', String(port)]);
  assert.equal(r.code, 0, r.err);
  const m = /^export RESULTS_DATABASE_URL=(\S+)$/m.exec(r.out);
  assert.ok(m, r.out);
  const url = m[1].replace(/^'|'$/g, '');
  assert.equal(new URL(url).port, String(port), 'the URL goes through the local end of the tunnel');
  assert.match(r.out, /^psql /m);
  assert.match(r.err, /tunnel up: 127\.0\.0\.1:\d+ -> 127\.0\.0\.1:\d+ via the local chisel server/);
  assert.doesNotMatch(r.err, new RegExp(new URL(url).password), 'no password in the log');

  const q = psql(url);
  assert.equal(q.out.trim(), '1', q.err);

  const second = sh(TUNNEL, ['--platform', 'local', '--local-port', String(await freePort())]);
  assert.equal(second.code, 1);
  assert.match(second.err, /a tunnel is already running \(postgres:\/\/[^:]+:\*\*\*@/);

  const pids = ['client', 'server'].map((n) => Number(fs.readFileSync(path.join(env.CFSCALE_TUNNEL_DIR, `${n}.pid`), 'utf8')));
  const stop = sh(TUNNEL, ['--stop']);
  assert.equal(stop.code, 0, stop.err);
  for (const pid of pids) assert.ok(!processAlive(pid), `pid ${pid} still runs`);
  assert.notEqual(psql(url).out.trim(), '1', 'psql still works after --stop');
  assert.ok(!fs.existsSync(env.CFSCALE_TUNNEL_DIR));
});
