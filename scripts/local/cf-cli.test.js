// End to end with the real cf CLI (.tools/bin/cf, v8, built by scripts/setup.sh) against the
// local platform's Cloud Controller API (cc-api/): log in as on PCF Dev, create the
// services, push node-app from manifests/ with vars-local.yml, scale it, read the stats;
// and CC's errors for bad input. Its own CFSCALE_HOME, CF_HOME and ports (45200-45449).
'use strict';

const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const os = require('node:os');
const http = require('node:http');
const path = require('node:path');
const { execFile } = require('node:child_process');
const { freePortInRange } = require('../test/ports');

const REPO = path.resolve(__dirname, '..', '..');
const CFL = path.join(REPO, 'scripts', 'cfl');
const CF = path.join(REPO, '.tools', 'bin', 'cf');
const HOME = fs.mkdtempSync(path.join(os.tmpdir(), 'cfscale-cf-cli-'));
// PostgreSQL runs as `postgres` when we are root: it must reach the platform's dir.
fs.chmodSync(HOME, 0o711);
const CF_HOME = path.join(HOME, 'cf-home');
let ENV;
let API;
let ROUTER_PORT;

function run(cmd, args, timeoutMs = 180000) {
  return new Promise((resolve) => {
    execFile(cmd, args, { cwd: REPO, env: ENV, encoding: 'utf8', timeout: timeoutMs }, (err, stdout, stderr) => {
      resolve({ code: err ? (err.code ?? 1) : 0, stdout, stderr, out: `${stdout}${stderr}` });
    });
  });
}

const cf = (...args) => run(CF, args);
async function cfOk(...args) {
  const r = await cf(...args);
  assert.equal(r.code, 0, `cf ${args.join(' ')} → ${r.code}:\n${r.out}`);
  return r.stdout;
}
async function curlJson(...args) { return JSON.parse(await cfOk('curl', ...args)); }

function httpRequest(method, urlPath, { host, port, body, headers = {} } = {}) {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port, path: urlPath, method, headers: { ...(host ? { Host: host } : {}), ...headers } }, (res) => {
      let text = '';
      res.on('data', (d) => { text += d; });
      res.on('end', () => resolve({ status: res.statusCode, headers: res.headers, body: text }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

async function until(what, fn, timeoutMs = 60000) {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 500));
  }
}

test.before(async () => {
  assert.ok(fs.existsSync(CF), `${CF} is missing: run scripts/setup.sh (it builds the cf CLI)`);
  ROUTER_PORT = await freePortInRange(45300, 45349);
  ENV = {
    ...process.env,
    CFSCALE_HOME: path.join(HOME, 'platform'),
    CFSCALE_ROUTER_PORT: String(ROUTER_PORT),
    CFSCALE_PG_PORT: String(await freePortInRange(45350, 45399)),
    CFSCALE_API_PORT: String(await freePortInRange(45400, 45449)),
    CFSCALE_INSTANCE_PORT_BASE: '45200',
    CFSCALE_GRACEFUL_SHUTDOWN_SEC: '2',
    CF_HOME, CF_COLOR: 'false', CF_TRACE: 'false',
  };
  fs.mkdirSync(CF_HOME);
  const up = await run(CFL, ['up']);
  assert.equal(up.code, 0, up.out);
  API = (await run(CFL, ['api-url'])).stdout.trim();
  assert.match(up.stdout, new RegExp(`api: +${API.replace(/[.]/g, '\\.')}`), 'cfl up prints the API URL');
});

test.after(async () => {
  await run(CFL, ['down']);
  fs.rmSync(HOME, { recursive: true, force: true });
});

test('cf login -a API -u admin -p admin -o local -s local, as on PCF Dev; the token is a JWT naming admin', async () => {
  await cfOk('login', '-a', API, '-u', 'admin', '-p', 'admin', '-o', 'local', '-s', 'local', '--skip-ssl-validation');
  const target = await cfOk('target');
  assert.match(target, /user: +admin/);
  assert.match(target, /org: +local/);
  assert.match(target, /space: +local/);
  const config = JSON.parse(fs.readFileSync(path.join(CF_HOME, '.cf', 'config.json'), 'utf8'));
  const [, payload] = config.AccessToken.replace(/^bearer /, '').split('.');
  const claims = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
  assert.equal(claims.user_name, 'admin');
  assert.ok(claims.exp > Date.now() / 1000);
  const port = Number(new URL(API).port);
  const bad = await httpRequest('POST', '/oauth/token', {
    port, body: 'grant_type=password&username=admin&password=wrong',
    headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: `Basic ${Buffer.from('cf:').toString('base64')}` },
  });
  assert.equal(bad.status, 401);
  assert.equal(JSON.parse(bad.body).error, 'unauthorized');
});

test('an endpoint the local API does not implement answers CC\'s 404 CF-NotFound (10000); no token: 401', async () => {
  assert.deepEqual(await curlJson('/v3/no_such_thing'), { errors: [{ detail: 'Unknown request', title: 'CF-NotFound', code: 10000 }] });
  const r = await httpRequest('GET', '/v3/apps', { port: Number(new URL(API).port) });
  assert.equal(r.status, 401);
  assert.equal(JSON.parse(r.body).errors[0].code, 10002);
});

test('cf marketplace lists postgres/local; cf create-service makes node-db and results-db; cf services lists them', async () => {
  assert.match(await cfOk('marketplace'), /postgres +local +/);
  await cfOk('create-service', 'postgres', 'local', 'node-db');
  await cfOk('create-service', 'postgres', 'local', 'results-db');
  const again = await cfOk('create-service', 'postgres', 'local', 'node-db');
  assert.match(again, /already exists/);
  const services = await cfOk('services');
  assert.match(services, /node-db +postgres +local/);
  assert.match(services, /results-db +postgres +local/);
});

test('cf push node-app -f manifests/node-app.yml --vars-file vars-local.yml, cf scale -i 2: 2 RUNNING in the v3 stats', async () => {
  await cfOk('push', 'node-app', '-f', 'manifests/node-app.yml', '--vars-file', 'manifests/vars-local.yml');
  const guid = (await cfOk('app', 'node-app', '--guid')).trim();
  assert.match((await cfOk('apps')), /node-app +started +web:1\/1/);
  // The route as the resolved manifest made it, never assumed from the app's name.
  const routes = await curlJson(`/v3/apps/${guid}/routes`);
  assert.equal(routes.resources.length, 1);
  const health = await httpRequest('GET', '/health', { port: ROUTER_PORT, host: routes.resources[0].url });
  assert.equal(health.status, 200);
  const env = await curlJson(`/v3/apps/${guid}/environment_variables`);
  assert.equal(env.var.DB_SERVICE_NAME, 'node-db');

  await cfOk('scale', 'node-app', '-i', '2');
  const stats = await until('2 RUNNING instances', async () => {
    const s = await curlJson(`/v3/apps/${guid}/processes/web/stats`);
    return s.resources.filter((r) => r.state === 'RUNNING').length === 2 && s;
  });
  assert.deepEqual(stats.resources.map((r) => r.index), [0, 1]);
  assert.equal(stats.resources[0].mem_quota, 200 * 1024 * 1024);
});

test('bad input gets CC\'s errors: scale to -1 (422, 10008), an unknown app (10010), a manifest naming an unknown service', async () => {
  const guid = (await cfOk('app', 'node-app', '--guid')).trim();
  assert.deepEqual(await curlJson('-X', 'POST', `/v3/apps/${guid}/processes/web/actions/scale`, '-d', '{"instances":-1}'),
    { errors: [{ detail: 'Instances must be greater than or equal to 0', title: 'CF-UnprocessableEntity', code: 10008 }] });
  assert.deepEqual(await curlJson('/v3/apps/no-such-guid'),
    { errors: [{ detail: 'App not found', title: 'CF-ResourceNotFound', code: 10010 }] });
  const app = await cf('app', 'no-such-app');
  assert.equal(app.code, 1);
  assert.match(app.out, /App 'no-such-app' not found/);

  const manifest = path.join(HOME, 'bad.yml');
  fs.writeFileSync(manifest, `applications:\n- name: bad-app\n  path: ${path.join(REPO, 'node-app')}\n  buildpacks: [nodejs_buildpack]\n  services: [no-such-db]\n`);
  const push = await cf('push', 'bad-app', '-f', manifest);
  assert.equal(push.code, 1, push.out);
  assert.match(push.out, /For application 'bad-app': Service instance 'no-such-db' not found/);
});
