// Integration test of the local platform: a real daemon, HAProxy, PostgreSQL and cgroups,
// driven by the real cf CLI (fixtures/cf-cli-world.js) with a tiny node:http fixture app
// (fixtures/tiny-app); `scripts/cfl` only for what cf has no verb for (status, router-usage).
'use strict';

const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const http = require('node:http');
const path = require('node:path');
const { execFile, spawn } = require('node:child_process');
const { portFree } = require('../../lib/ports');
const { Client } = require('pg');
const { loadConfig } = require('../lib/config');
const YAML = require('yaml');
const { cfCliWorld } = require('./fixtures/cf-cli-world');

const w = cfCliWorld();
const CFL = path.join(__dirname, '..', '..', 'scripts', 'cfl');
const CF = path.join(__dirname, '..', '..', '.tools', 'bin', 'cf');
const FIXTURE = path.join(__dirname, 'fixtures', 'tiny-app', 'manifest.yml');
let HOME;
let CFG;
const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

function cfl(...args) {
  return new Promise((resolve) => {
    execFile(CFL, args, { env: w.env, encoding: 'utf8', timeout: 120000 }, (err, stdout, stderr) => {
      resolve({ code: err ? (err.code ?? 1) : 0, stdout, stderr });
    });
  });
}

async function cflOk(...args) {
  const r = await cfl(...args);
  assert.equal(r.code, 0, `cfl ${args.join(' ')} → ${r.code}: ${r.stderr}`);
  return r.stdout.trim();
}

// cf with its own copy of the logged-in CF_HOME: pushes may run side by side.
async function cfAside(...args) {
  const home = fs.mkdtempSync(path.join(w.home, 'cf-home-'));
  fs.cpSync(w.cfHome, home, { recursive: true });
  return new Promise((resolve) => {
    execFile(CF, args, { cwd: w.repo, env: { ...w.env, CF_HOME: home }, encoding: 'utf8', timeout: 180000 }, (err, stdout, stderr) => {
      fs.rmSync(home, { recursive: true, force: true });
      resolve({ code: err ? (err.code ?? 1) : 0, stdout, stderr, out: `${stdout}${stderr}` });
    });
  });
}

const ok = async (...args) => (await w.cfOk(...args)).trim();

const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
function get(host, urlPath, headers = {}) {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port: CFG.routerPort, path: urlPath, agent, headers: { Host: host, ...headers } }, (res) => {
      const { localPort } = res.socket;
      let body = '';
      res.on('data', (d) => { body += d; });
      res.on('end', () => resolve({ status: res.statusCode, headers: res.headers, body, localPort }));
    });
    req.on('error', reject);
    req.setTimeout(30000, () => req.destroy(new Error(`GET ${urlPath}: timeout`)));
    req.end();
  });
}

function sleep(ms) { return new Promise((r) => setTimeout(r, ms)); }

async function until(what, fn, timeoutMs = 20000) {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await sleep(200);
  }
}

function varsFile(name, vars) {
  const f = path.join(HOME, `${name}-vars.yml`);
  fs.writeFileSync(f, Object.entries(vars).map(([k, v]) => `${k}: ${JSON.stringify(v)}`).join('\n'));
  return f;
}

async function push(name, vars) {
  const f = varsFile(name, { name, domain: 'localhost', services: [], busy: '0', instances: 1, memory: '96M', ...vars });
  const r = await cfAside('push', '-f', FIXTURE, '--vars-file', f);
  assert.equal(r.code, 0, `cf push ${name}: ${r.out}`);
}

// Apps of later subtests, pushed with the first ones: the CLI polls every 3 s, so pushes
// side by side cost about one push. Health checks: the liveness attributes of
// manifests/node-app.yml against the http check it had before, both checked every second
// (the platform default is 30 s). Signals: node as the main process, and as a child of a
// shell that does not pass SIGTERM on.
const HC_CASES = { 'hc-http': { 'health-check-type': 'http', 'health-check-http-endpoint': '/health' } };
const SIG_CASES = { 'sig-exec': 'exec node server.js', 'sig-shell': 'node server.js & wait' };
function extraManifests() {
  const repoApp = YAML.parse(fs.readFileSync(path.join(__dirname, '..', '..', 'manifests', 'node-app.yml'), 'utf8')).applications[0];
  HC_CASES['hc-manifest'] = Object.fromEntries(Object.entries(repoApp).filter(([k]) => /^(readiness-)?health-check-/.test(k)));
  const apps = [
    ...Object.entries(HC_CASES).map(([name, settings]) => ({ name, path: path.dirname(FIXTURE), memory: '64M', command: 'exec node server.js',
      routes: [{ route: `${name}.localhost` }], ...settings, 'health-check-interval': 1 })),
    ...Object.entries(SIG_CASES).map(([name, command]) => ({ name, path: path.dirname(FIXTURE), memory: '64M', command,
      env: { LOG_SIGTERM: '1' }, routes: [{ route: `${name}.localhost` }] })),
  ];
  return apps.map((app) => {
    const file = path.join(HOME, `${app.name}.yml`);
    fs.writeFileSync(file, YAML.stringify({ applications: [app] }));
    return file;
  });
}

async function curlJson(p) { return JSON.parse(await ok('curl', p)); }

const stats = async (guid) => (await curlJson(`/v3/apps/${guid}/processes/web/stats`)).resources;
const allRunning = (guid, n) => until(`${n} RUNNING`, async () => {
  const s = await stats(guid);
  return s.length === n && s.every((r) => r.state === 'RUNNING') && s;
}, 60000);
// The local CPU quota: the process annotation (cc-api/presenters.js).
const setCpu = (guid, v) => ok('curl', '-X', 'PATCH', `/v3/processes/${guid}`, '-d', JSON.stringify({ metadata: { annotations: { 'cfscale.local/cpu-quota': v } } }));

function pidsOf(statusText, app) {
  return statusText.split('\n').map((l) => l.trim().split(/\s+/)).filter((f) => f[0] === app && /^\d+$/.test(f[4])).map((f) => ({ index: Number(f[1]), pid: Number(f[4]), port: Number(f[3]) }));
}

function alive(pid) { try { process.kill(pid, 0); return true; } catch { return false; } }

test.after(() => agent.destroy());

test('local platform end to end', { timeout: 240000 }, async (t) => {
  HOME = w.env.CFSCALE_HOME;
  CFG = loadConfig(w.env);
  await w.login();
  await ok('create-service', 'postgres', 'local', 'results-db');
  assert.match(await ok('create-service', 'postgres', 'local', 'results-db'), /Service instance results-db already exists/, 'idempotent');
  const bad = await w.cf('push', '-f', FIXTURE);
  assert.equal(bad.code, 1);
  assert.match(bad.out, /Expected to find variables: busy, domain, instances, memory, name, services/);
  const nopeVars = varsFile('x', { name: 'x', domain: 'localhost', services: ['nope'], busy: '0', instances: 1, memory: '96M' });

  const hashManifest = path.join(HOME, 'hash.yml');
  fs.writeFileSync(hashManifest, `applications:\n- name: h\n  path: ${path.dirname(FIXTURE)}\n  command: x\n  routes:\n  - route: h.localhost\n    options:\n      loadbalancing: hash\n`);
  const [nope, hashPush] = await Promise.all([
    cfAside('push', '-f', FIXTURE, '--vars-file', nopeVars),
    cfAside('push', '-f', hashManifest),
    push('tiny', { instances: 2, services: ['results-db'] }),
    push('hog', { memory: '64M', services: ['results-db'] }),
    push('busy', { memory: '64M', busy: '1' }),
    ...extraManifests().map(async (file) => {
      const r = await cfAside('push', '-f', file);
      assert.equal(r.code, 0, `cf push -f ${file}: ${r.out}`);
    }),
  ]);
  assert.equal(nope.code, 1);
  assert.match(nope.out, /For application 'x': Service instance 'nope' not found/);
  assert.equal(hashPush.code, 1);
  // CC's own refusal while its hash_based_routing flag is off (manifest_routes_update_message.rb), before anything is made.
  assert.match(hashPush.out, /For application 'h': Cannot use loadbalancing value 'hash' for Route 'h\.localhost'; Valid values are: 'round-robin, least-connection'/);
  const guid = await ok('app', 'tiny', '--guid');
  assert.match(guid, UUID_RE);
  await allRunning(guid, 2);

  await t.test('round-robin by Host, X-Vcap-Request-Id on request and response', async () => {
    const seen = [];
    for (let i = 0; i < 6; i++) {
      const r = await get('tiny.localhost', '/', { 'X-Correlation-ID': `cid-${i}` });
      assert.equal(r.status, 200);
      assert.match(r.headers['x-vcap-request-id'], UUID_RE);
      assert.equal(r.headers['x-seen-vcap-request-id'], r.headers['x-vcap-request-id']);
      seen.push(r.headers['x-instance-index']);
    }
    assert.deepEqual(new Set(seen), new Set(['0', '1']));
    for (let i = 1; i < seen.length; i++) assert.notEqual(seen[i], seen[i - 1], `alternating: ${seen}`);
    assert.equal((await get('nowhere.localhost', '/')).status, 404);
    const seenHeaders = JSON.parse((await get('tiny.localhost', '/headers')).body);
    assert.equal(seenHeaders['x-cf-applicationid'], guid);
    assert.match(seenHeaders['x-request-start'], /^\d{13}$/);
    assert.equal(seenHeaders['x-forwarded-proto'], 'http');
    assert.equal(seenHeaders['x-forwarded-for'], '127.0.0.1');
  });

  await t.test('HTTPS on the router\'s TLS port: self-signed, the same routes, X-Forwarded-Proto https, WebSocket upgrades pass; /v3/info says where', async () => {
    const tls = require('node:tls');
    const https = require('node:https');
    const res = await new Promise((resolve, reject) => {
      https.get({ host: '127.0.0.1', port: CFG.routerTlsPort, path: '/headers', headers: { Host: 'tiny.localhost' }, rejectUnauthorized: false, agent: false }, (r) => {
        const cert = r.socket.getPeerCertificate();
        let body = '';
        r.on('data', (d) => { body += d; });
        r.on('end', () => resolve({ status: r.statusCode, body, cert }));
      }).on('error', reject);
    });
    assert.equal(res.status, 200);
    assert.equal(JSON.parse(res.body)['x-forwarded-proto'], 'https');
    assert.equal(res.cert.subject.CN, 'localhost');
    assert.match(res.cert.subjectaltname, /DNS:\*\.localhost/);
    // Verified, it fails: the certificate is self-signed, as on a dev foundation.
    const verified = await new Promise((resolve) => {
      https.get({ host: '127.0.0.1', port: CFG.routerTlsPort, path: '/', headers: { Host: 'tiny.localhost' } }, () => resolve('ok'))
        .on('error', (e) => resolve(e.code));
    });
    assert.equal(verified, 'DEPTH_ZERO_SELF_SIGNED_CERT');
    // A WebSocket handshake, then bytes both ways through the router.
    const echoed = await new Promise((resolve, reject) => {
      const sock = tls.connect({ host: '127.0.0.1', port: CFG.routerTlsPort, servername: 'tiny.localhost', rejectUnauthorized: false }, () => {
        sock.write('GET /ws HTTP/1.1\r\nHost: tiny.localhost\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n'
          + 'Sec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n');
      });
      let got = '';
      sock.on('data', (d) => {
        got += d;
        if (got.includes('\r\n\r\n') && !got.includes('ping-1')) sock.write('ping-1');
        if (got.includes('ping-1')) { sock.destroy(); resolve(got); }
      });
      sock.on('error', reject);
      sock.setTimeout(5000, () => { sock.destroy(); reject(new Error(`no echo: ${got}`)); });
    });
    assert.match(echoed, /^HTTP\/1\.1 101 /);
    assert.match(echoed, /^x-seen-forwarded-proto: https\r$/mi); // HAProxy sends header names in lower case
    assert.match(echoed, /\r\n\r\nping-1$/);
    const info = await curlJson('/v3/info');
    assert.equal(info.name, 'cfscale-local');
    assert.deepEqual(info.custom, { router_https_url: `https://127.0.0.1:${CFG.routerTlsPort}` });
    assert.equal(await cflOk('router-url', '--https'), `https://127.0.0.1:${CFG.routerTlsPort}`);
  });

  await t.test('X-Cf-App-Instance pins a request to one instance', async () => {
    for (let i = 0; i < 4; i++) {
      const r = await get('tiny.localhost', '/', { 'X-Cf-App-Instance': `${guid}:1` });
      assert.equal(r.headers['x-instance-index'], '1');
    }
    assert.equal((await get('tiny.localhost', '/', { 'X-Cf-App-Instance': 'nope:0' })).status, 400);
  });

  await t.test('update-route: least-connection by a graceful reload, shown by cf curl; pins unaffected', async () => {
    const cfgFile = path.join(CFG.haproxyDir, 'haproxy.cfg');
    const backendOf = (text) => /^backend app_tiny\n {2}balance (\w+)$/m.exec(text)[1];
    assert.equal(backendOf(fs.readFileSync(cfgFile, 'utf8')), 'roundrobin');
    await ok('update-route', 'localhost', '--hostname', 'tiny', '-o', 'loadbalancing=least-connection');
    assert.equal(backendOf(fs.readFileSync(cfgFile, 'utf8')), 'leastconn');
    const routes = await curlJson(`/v3/apps/${guid}/routes`);
    assert.deepEqual(routes.resources.map((r) => [r.host, r.url, r.options]), [['tiny', 'tiny.localhost', { loadbalancing: 'least-connection' }]]);
    assert.equal(JSON.parse(fs.readFileSync(CFG.stateFile, 'utf8')).apps.tiny.routeOptions['tiny.localhost'].loadbalancing, 'least-connection', 'kept in the state');
    for (const i of [0, 1]) assert.equal((await get('tiny.localhost', '/', { 'X-Cf-App-Instance': `${guid}:${i}` })).headers['x-instance-index'], String(i));
    assert.equal((await w.cf('update-route', 'localhost', '--hostname', 'tiny', '-o', 'loadbalancing=hash')).code, 1);
    assert.equal(backendOf(fs.readFileSync(cfgFile, 'utf8')), 'leastconn', 'a refused update changes nothing');
    assert.equal((await w.cf('update-route', 'localhost', '--hostname', 'nope', '-r', 'loadbalancing')).code, 1);
    await ok('update-route', 'localhost', '--hostname', 'tiny', '-r', 'loadbalancing');
    assert.equal(backendOf(fs.readFileSync(cfgFile, 'utf8')), 'roundrobin');
    assert.equal((await get('tiny.localhost', '/')).status, 200);
  });

  let resultsDbUrl;
  const tmpOf = (i) => path.join(HOME, 'instances', 'tiny', String(i), 'tmp');
  await t.test('instances get the CF environment', async () => {
    const env = JSON.parse((await get('tiny.localhost', '/env', { 'X-Cf-App-Instance': `${guid}:0` })).body);
    const env1 = JSON.parse((await get('tiny.localhost', '/env', { 'X-Cf-App-Instance': `${guid}:1` })).body);
    assert.deepEqual([env.TMPDIR, env.TMP, env.TEMP], [tmpOf(0), tmpOf(0), tmpOf(0)], 'own temp dir');
    assert.equal(env1.TMPDIR, tmpOf(1));
    assert.ok(fs.statSync(env.TMPDIR).isDirectory() && fs.statSync(env1.TMPDIR).isDirectory());
    assert.equal(env.CF_INSTANCE_INDEX, '0');
    assert.equal(env.MEMORY_LIMIT, '96m');
    const binding = JSON.parse(env.VCAP_SERVICES).postgres[0];
    assert.equal(binding.name, 'results-db');
    const [bindingGuid] = (await curlJson(`/v3/service_credential_bindings?app_guids=${guid}`)).resources.map((b) => b.guid);
    assert.deepEqual((await curlJson(`/v3/service_credential_bindings/${bindingGuid}/details`)).credentials, binding.credentials,
      'VCAP_SERVICES holds the binding\'s credentials');
    resultsDbUrl = binding.credentials.uri;
    assert.equal(JSON.parse(env.VCAP_APPLICATION).application_id, guid);
  });

  await t.test('router access log in Gorouter layout', async () => {
    const r = await get('tiny.localhost', '/rtr', { 'X-Correlation-ID': 'rtr-check' });
    const id = r.headers['x-vcap-request-id'];
    const line = await until('RTR line', async () => (await ok('logs', 'tiny', '--recent')).split('\n').find((l) => l.includes(id)));
    assert.match(line, /^ {3}\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d\d\+0000 \[RTR\/0\] OUT tiny\.localhost - \[\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{9}Z\] "GET \/rtr HTTP\/1\.1" 200 /);
    assert.match(line, new RegExp(`vcap_request_id:"${id}" response_time:\\d+\\.\\d{6} gorouter_time:\\d+\\.\\d{6} app_id:"${guid}" app_index:"${r.headers['x-instance-index']}"`));
    assert.match(line, /x_correlation_id:"rtr-check"$/);
    assert.match(await ok('logs', 'tiny', '--recent'), /\[APP\/PROC\/WEB\/\d\] OUT request GET \/rtr/);
  });

  await t.test('v3 stats shape', async () => {
    const v3 = await curlJson(`/v3/apps/${guid}/processes/web/stats`);
    assert.deepEqual(v3.resources.map((r) => [r.index, r.state]), [[0, 'RUNNING'], [1, 'RUNNING']]);
    const s = await until('a first sample', async () => (await stats(guid)).find((r) => r.usage.mem > 0));
    assert.equal(s.mem_quota, 96 * 1024 * 1024);
    assert.ok(s.usage.mem < s.mem_quota, `mem ${s.usage.mem}`);
    assert.match(s.usage.time, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|\+00:00)$/);
    assert.deepEqual((await curlJson('/v3/apps?names=tiny')).resources.map((a) => a.guid), [guid]);
  });

  await t.test('scale 2 → 3 → 1, keep-alive client connection survives it', async () => {
    const conn = (await get('tiny.localhost', '/')).localPort;
    await ok('scale', 'tiny', '-i', '3');
    await allRunning(guid, 3);
    const seen = new Set();
    for (let i = 0; i < 6; i++) seen.add((await get('tiny.localhost', '/')).headers['x-instance-index']);
    assert.deepEqual(seen, new Set(['0', '1', '2']));
    await ok('scale', 'tiny', '-i', '1');
    await allRunning(guid, 1);
    // A scale-in stops its instances as Diego does (SIGTERM, then the grace period): their disks
    // go once each has exited.
    await until('temp dirs of scaled-down indices removed', () => fs.readdirSync(path.join(HOME, 'instances', 'tiny')).join() === '0');
    for (let i = 0; i < 4; i++) assert.equal((await get('tiny.localhost', '/')).headers['x-instance-index'], '0');
    assert.equal((await get('tiny.localhost', '/')).localPort, conn, 'same client connection (no router reload)');
  });

  await t.test('SIGKILL of an instance: restarted, crash event recorded', async () => {
    const [{ pid }] = pidsOf(await cflOk('status'), 'tiny');
    const before = (await curlJson(`/v3/apps/${guid}/processes/web/stats`)).resources[0].instance_guid;
    fs.writeFileSync(path.join(tmpOf(0), 'spooled'), 'x');
    process.kill(pid, 'SIGKILL');
    const ev = await until('crash event', async () => (await curlJson(`/v3/audit_events?target_guids=${guid}&types=audit.app.process.crash`)).resources[0]);
    assert.equal(ev.type, 'audit.app.process.crash');
    assert.equal(ev.data.index, 0);
    assert.equal(ev.data.reason, 'CRASHED');
    assert.equal(ev.data.exit_description, 'APP/PROC/WEB: Exited with status 137');
    // CC's created_ats filter: whole seconds only, else the status line and error of CC.
    const since = `/v3/audit_events?target_guids=${guid}&types=audit.app.process.crash&created_ats[gte]=${ev.created_at}`;
    assert.deepEqual((await curlJson(since)).resources.map((e) => e.guid), [ev.guid]);
    const bad = await ok('curl', '-i', since.replace(/Z$/, '.000Z'));
    assert.match(bad, /^HTTP\/1\.1 400 Bad Request\r?\n/);
    assert.equal(JSON.parse(bad.slice(bad.indexOf('{'))).errors[0].title, 'CF-BadQueryParameter');
    await until('restart', async () => {
      const r = (await curlJson(`/v3/apps/${guid}/processes/web/stats`)).resources[0];
      return r.state === 'RUNNING' && r.instance_guid !== before;
    });
    assert.equal((await get('tiny.localhost', '/')).status, 200);
    assert.equal(fs.readFileSync(path.join(tmpOf(0), 'spooled'), 'utf8'), 'x', 'temp dir kept across the restart');
  });

  await t.test('beyond its memory limit an instance is OOM-killed and says so', async () => {
    const hog = await ok('app', 'hog', '--guid');
    get('hog.localhost', '/grow').catch(() => {});
    const ev = await until('oom event', async () => (await curlJson(`/v3/audit_events?target_guids=${hog}&types=audit.app.process.crash`)).resources[0]);
    assert.match(ev.data.exit_description, /\(out of memory\)$/);
    const c = new Client({ connectionString: resultsDbUrl });
    await c.connect();
    try {
      const rows = await until('instance_events row', async () => (await c.query("SELECT * FROM instance_events WHERE app = 'hog'")).rows[0]);
      assert.equal(rows.kind, 'oom');
      assert.equal(rows.platform, 'local');
      assert.equal(rows.round_id, null);
    } finally { await c.end(); }
  });

  await t.test('CPU quota holds: a busy loop at a 0.2-core quota shows about 0.2 cores', async () => {
    const busy = await ok('app', 'busy', '--guid');
    await setCpu(busy, '0.2');
    await sleep(1500);
    const samples = [];
    for (let i = 0; i < 4; i++) {
      samples.push(...(await stats(busy)).filter((r) => r.state === 'RUNNING'));
      await sleep(1000);
    }
    assert.ok(samples.length >= 2, 'samples');
    const avg = samples.reduce((s, r) => s + r.usage.cpu, 0) / samples.length;
    assert.equal(samples[0].cpu_quota, 0.2);
    assert.ok(avg > 0.05 && avg < 0.3, `cpu ${avg}`);
  });

  await t.test('router-usage: the router\'s CPU from its own cgroup grows with the requests it routes', async () => {
    const first = JSON.parse(await cflOk('router-usage'));
    const before = first.cpu_ns;
    assert.ok(Number.isInteger(before) && before > 0, `cpu_ns ${before}`);
    assert.equal(first.cpu_quota_cores, null, 'the router runs without a CPU quota');
    for (let i = 0; i < 200; i++) await get('tiny.localhost', '/');
    const after = JSON.parse(await cflOk('router-usage')).cpu_ns;
    assert.ok(after > before, `${before} → ${after}`);
  });

  await t.test('scale -m: the app restarts with the new memory limit (cf scale -m)', async () => {
    await ok('scale', 'tiny', '-m', '128M', '-f');
    // The new limit, and a first sample of the restarted instance under it.
    const s = await until('running with 128M', async () => {
      const r = (await curlJson(`/v3/apps/${guid}/processes/web/stats`)).resources[0];
      return r.state === 'RUNNING' && r.mem_quota === 128 * 1024 * 1024 && r.usage.mem > 0 && r;
    });
    assert.ok(s.usage.mem < s.mem_quota, `mem ${s.usage.mem}`);
    assert.equal((await get('tiny.localhost', '/')).status, 200);
  });

  await t.test('logs stream new lines until killed', async () => {
    const child = spawn(CF, ['logs', 'tiny'], { env: w.env });
    let out = '';
    child.stdout.on('data', (d) => { out += d; });
    try {
      // The client needs a moment to start tailing: ask until one request shows up.
      const ids = [];
      await until('streamed RTR line', async () => {
        ids.push((await get('tiny.localhost', '/streamed')).headers['x-vcap-request-id']);
        await sleep(300);
        return ids.some((id) => out.includes(`vcap_request_id:"${id}"`));
      }, 15000);
      assert.match(out, /\[APP\/PROC\/WEB\/0\] OUT request GET \/streamed/);
    } finally { child.kill('SIGKILL'); }
  });

  await t.test('lifecycle verbs: set-env + restart, stop, start, delete', async () => {
    await ok('set-env', 'tiny', 'FOO', 'bar baz');
    await ok('restart', 'tiny');
    const env = JSON.parse((await until('instance 0 back', async () => {
      const r = await get('tiny.localhost', '/env', { 'X-Cf-App-Instance': `${guid}:0` });
      return r.status === 200 && r.body;
    })));
    assert.equal(env.FOO, 'bar baz');
    assert.match(await ok('env', 'tiny'), /VCAP_SERVICES[\s\S]*User-Provided:\nBUSY: 0\nFOO: bar baz/);
    assert.deepEqual(await curlJson(`/v3/apps/${guid}/environment_variables`), {
      var: { BUSY: '0', FOO: 'bar baz' },
      links: { self: { href: `${w.api}/v3/apps/${guid}/environment_variables` }, app: { href: `${w.api}/v3/apps/${guid}` } },
    });
    assert.equal(JSON.parse((await w.cf('curl', '/v3/apps/nope/environment_variables')).stdout).errors[0].title, 'CF-ResourceNotFound');
    await ok('stop', 'tiny');
    // CC lists a stopped process's instances as DOWN (instances_stats_reporter.rb).
    assert.deepEqual((await stats(guid)).map((r) => [r.index, r.state, r.uptime]), [[0, 'DOWN', 0]]);
    assert.equal((await curlJson(`/v3/apps/${guid}`)).state, 'STOPPED');
    assert.equal((await get('tiny.localhost', '/')).status, 503);
    await ok('start', 'tiny');
    assert.equal((await get('tiny.localhost', '/')).status, 200);
    assert.ok(fs.existsSync(path.join(HOME, 'instances', 'busy', '0', 'tmp')));
    await ok('delete', 'busy', '-f');
    assert.equal(fs.existsSync(path.join(HOME, 'instances', 'busy')), false, 'delete removes the temp dirs');
    const gone = await w.cf('app', 'busy', '--guid');
    assert.equal(gone.code, 1);
    assert.match(gone.out, /App 'busy' not found/);
  });

  await t.test('a saturated instance: killed by an http check with the default 1 s timeout, kept by the manifests\' liveness settings', async () => {
    const cases = HC_CASES;
    const guids = {};
    const before = {};
    for (const name of Object.keys(cases)) {
      guids[name] = await ok('app', name, '--guid');
      before[name] = (await curlJson(`/v3/apps/${guids[name]}/processes/web/stats`)).resources[0].instance_guid;
    }
    const block = (host) => new Promise((resolve) => {
      const req = http.get({ host: '127.0.0.1', port: CFG.routerPort, path: '/block?ms=4000', agent: false, headers: { Host: host } }, (res) => { res.resume(); res.on('end', () => resolve(res.statusCode)); });
      req.on('error', () => resolve(null));
    });
    const [httpStatus, manifestStatus] = await Promise.all([block('hc-http.localhost'), block('hc-manifest.localhost')]);
    assert.equal(manifestStatus, 200, 'the blocked request completes');
    assert.notEqual(httpStatus, 200, 'the http-checked instance was killed mid-request');
    const ev = await until('unhealthy crash', async () => (await curlJson(`/v3/audit_events?target_guids=${guids['hc-http']}&types=audit.app.process.crash`)).resources[0]);
    assert.match(ev.data.exit_description, /^Instance became unhealthy: Failed to make HTTP request to '\/health' on port \d+: timed out after 1\.00 seconds$/);
    assert.deepEqual((await curlJson(`/v3/audit_events?target_guids=${guids['hc-manifest']}&types=audit.app.process.crash,app.crash`)).resources, [], 'no crash');
    const now = (await curlJson(`/v3/apps/${guids['hc-manifest']}/processes/web/stats`)).resources[0];
    assert.deepEqual([now.state, now.instance_guid], ['RUNNING', before['hc-manifest']], 'the same container still runs');
  });

  // The group got SIGTERM, so node heard it even when its parent never passed it on.
  await t.test('stop signals the instance\'s main process only, as Garden does', async () => {
    const cases = SIG_CASES;
    for (const name of Object.keys(cases)) await ok('stop', name);
    assert.match(await ok('logs', 'sig-exec', '--recent'), /OUT node got SIGTERM/, 'node as the main process gets it');
    assert.doesNotMatch(await ok('logs', 'sig-shell', '--recent'), /node got SIGTERM/, 'a child of a shell that does not pass it on does not');
  });

  await t.test('down leaves no process, cgroup or port behind', async () => {
    const status = await cflOk('status');
    // The CFS period the quotas use is shown (a round records it from here: round-doc.js).
    if (!/cgroups: +OFF/.test(status)) assert.match(status, /CPU mode quota, period 100000 µs\n/);
    const pids = pidsOf(status, 'tiny').concat(pidsOf(status, 'hog'));
    assert.equal(pids.length, 2);
    const daemonPid = Number(fs.readFileSync(CFG.pidFile, 'utf8'));
    const haproxyPid = Number(fs.readFileSync(path.join(CFG.haproxyDir, 'haproxy.pid'), 'utf8'));
    const pgPid = Number(fs.readFileSync(path.join(CFG.pgDir, 'data', 'postmaster.pid'), 'utf8').split('\n')[0]);
    const all = [daemonPid, haproxyPid, pgPid, ...pids.map((p) => p.pid)];
    assert.ok(all.every(alive), 'all alive before down');
    await cflOk('down');
    await until('processes gone', async () => all.every((p) => !alive(p)), 5000);
    assert.equal(fs.existsSync(path.join(HOME, 'instances')), false, 'temp dirs removed');
    for (const c of ['memory', 'cpu', 'cpuacct']) assert.equal(fs.existsSync(`/sys/fs/cgroup/${c}/cfscale-${CFG.homeHash}`), false, c);
    for (const port of [CFG.routerPort, CFG.pgPort, ...pids.map((p) => p.port)]) assert.ok(await portFree(port), `port ${port}`);
  });
});
