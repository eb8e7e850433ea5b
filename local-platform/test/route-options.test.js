// Tests of per-route load balancing on the local platform (route-options.js): manifest
// options, `update-route` arguments and rules, the HAProxy `balance` line (checked by
// `haproxy -c`), and a real HAProxy switched from round-robin to least-connection by a
// graceful reload (RouterSync), with two node:http backends on free ports.
'use strict';

const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const os = require('node:os');
const http = require('node:http');
const path = require('node:path');
const { freePortInRange } = require('../../lib/ports');
const { execFileSync } = require('node:child_process');
const { readManifest } = require('../lib/manifest');
const { buildConfig } = require('../lib/haproxy-config');
const { Router } = require('../lib/haproxy');
const { processAlive } = require('../../lib/process-checks');
const { RouterSync } = require('../lib/router-sync');
const { routeResource } = require('../lib/cf-api');
const { planRouteUpdate, pushedRouteOptions, appLoadbalancing } = require('../lib/route-options');

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'cfscale-local-lb-'));
test.after(() => fs.rmSync(tmp, { recursive: true, force: true }));

const GUID = '11111111-2222-3333-4444-555555555555';

function manifestWith(routesYaml) {
  const f = path.join(tmp, `m${Math.random().toString(36).slice(2)}.yml`);
  fs.writeFileSync(f, `applications:\n- name: a\n  path: .\n  command: run\n  routes:\n${routesYaml}`);
  return f;
}

test('manifest: routes[].options.loadbalancing read; hash and unknown values refused', () => {
  const cases = [
    ['  - route: a.localhost\n', {}, null],
    ['  - route: a.localhost\n    options:\n      loadbalancing: least-connection\n', { 'a.localhost': { loadbalancing: 'least-connection' } }, null],
    ['  - route: a.localhost\n    options:\n      loadbalancing: round-robin\n', { 'a.localhost': { loadbalancing: 'round-robin' } }, null],
    ['  - route: a.localhost\n    options:\n      loadbalancing: hash\n', null, /routes\[0\]\.options\.loadbalancing: hash is not supported by the local platform/],
    ['  - route: a.localhost\n    options:\n      loadbalancing: fastest\n', null, /loadbalancing must be round-robin or least-connection .*got "fastest"/],
    ['  - route: a.localhost\n    options:\n      hash_header: X-User\n', null, /options\.hash_header is not a route option the local platform knows/],
    ['  - route: a.localhost\n    options:\n      loadbalancing: least-connection\n  - route: b.localhost\n', null, /routes of a ask for different load balancing/],
  ];
  for (const [routes, want, err] of cases) {
    const f = manifestWith(routes);
    if (err) assert.throws(() => readManifest(f), err, routes);
    else assert.deepEqual(readManifest(f)[0].routeOptions, want, routes);
  }
});

test('haproxy config: balance per app; pinned backends unchanged; haproxy -c accepts it', () => {
  const app = (balance) => ({ name: 'node-app', guid: GUID, routes: ['node-app.localhost'], balance, slots: 8, instances: { 0: { port: 45901, ready: true } } });
  const pins = (text) => text.split('\n\n').filter((s) => s.startsWith('backend pin_')).join('\n\n');
  const texts = {};
  for (const balance of [undefined, 'roundrobin', 'leastconn']) {
    const text = buildConfig({ routerPort: 45990, logPort: 45991, adminSocket: path.join(tmp, 'admin.sock'), apps: [app(balance)] });
    const f = path.join(tmp, `haproxy-${balance}.cfg`);
    fs.writeFileSync(f, `${text}\n`);
    execFileSync('haproxy', ['-c', '-q', '-f', f]);
    assert.match(text, new RegExp(`^backend app_node-app\\n  balance ${balance || 'roundrobin'}\\n`, 'm'));
    texts[balance] = text;
  }
  assert.equal(pins(texts.leastconn), pins(texts.roundrobin));
  assert.equal((pins(texts.leastconn).match(/balance/g) || []).length, 0, 'pinned backends have one server, no algorithm');
});

test('update-route: -o sets, -r removes; cf-like errors for the rest', () => {
  const apps = [{ name: 'node-app', guid: GUID, routes: ['node-app.localhost'], routeOptions: {} }];
  const lc = planRouteUpdate(apps, { domain: 'localhost', hostname: 'node-app', options: ['loadbalancing=least-connection'] });
  assert.equal(lc.app, apps[0]);
  assert.equal(lc.url, 'node-app.localhost');
  assert.deepEqual(lc.routeOptions, { 'node-app.localhost': { loadbalancing: 'least-connection' } });
  const removed = planRouteUpdate([{ ...apps[0], routeOptions: lc.routeOptions }], { domain: 'localhost', hostname: 'node-app', removeOptions: ['loadbalancing'] });
  assert.deepEqual(removed.routeOptions, {});
  const bad = [
    [{ hostname: 'node-app', options: ['loadbalancing=hash'] }, /hash is not supported by the local platform/],
    [{ hostname: 'node-app', options: ['loadbalancing=random'] }, /must be round-robin or least-connection/],
    [{ hostname: 'node-app', options: ['loadbalancing'] }, /Route option 'loadbalancing' was specified incorrectly/],
    [{ hostname: 'node-app', options: ['timeout=5'] }, /route option "timeout" is not one the local platform knows/],
    [{ hostname: 'node-app', options: ['loadbalancing=round-robin'], removeOptions: ['loadbalancing'] }, /both set \(-o\) and removed \(-r\)/],
    [{ hostname: 'node-app' }, /No options were specified for the update of the Route node-app\.localhost/],
    [{ hostname: 'java-app', options: ['loadbalancing=round-robin'] }, /Error: Route with host 'java-app', domain 'localhost', and path '\/' not found\.$/],
    [{ hostname: 'node-app', path: '/x', options: ['loadbalancing=round-robin'] }, /route paths are not supported/],
  ];
  for (const [args, err] of bad) assert.throws(() => planRouteUpdate(apps, { domain: 'localhost', ...args }), err, JSON.stringify(args));
  assert.deepEqual(apps[0].routeOptions, {}, 'a plan changes nothing by itself');
});

test('push keeps the options of routes the app keeps, unless the manifest sets them', () => {
  const old = { routeOptions: { 'a.localhost': { loadbalancing: 'least-connection' }, 'gone.localhost': { loadbalancing: 'least-connection' } } };
  assert.deepEqual(pushedRouteOptions(old, { name: 'a', routes: ['a.localhost'], routeOptions: {} }), { 'a.localhost': { loadbalancing: 'least-connection' } });
  assert.deepEqual(pushedRouteOptions(old, { name: 'a', routes: ['a.localhost'], routeOptions: { 'a.localhost': { loadbalancing: 'round-robin' } } }), { 'a.localhost': { loadbalancing: 'round-robin' } });
  assert.deepEqual(pushedRouteOptions(undefined, { name: 'a', routes: ['b.localhost'], routeOptions: {} }), {});
});

test('/v3/apps/GUID/routes shows the route\'s algorithm', () => {
  const app = { name: 'node-app', guid: GUID, state: 'STARTED', routes: ['node-app.localhost'], routeOptions: {}, buildpack: 'nodejs_buildpack', instances: 1, memoryMb: 200, diskMb: 1024 };
  const lc = { ...app, routeOptions: { 'node-app.localhost': { loadbalancing: 'least-connection' } } };
  const r = routeResource(lc, 'node-app.localhost');
  assert.deepEqual([r.host, r.url, r.options], ['node-app', 'node-app.localhost', { loadbalancing: 'least-connection' }]);
  assert.deepEqual(routeResource(app, 'node-app.localhost').options, {});
  assert.equal(appLoadbalancing({ name: 'w', routes: [] }), 'round-robin');
});

// ---------------------------------------------------------------- a real HAProxy

const freePort = freePortInRange;

// A backend: answers with its index; /hold is answered only when released.
function backend(index) {
  const held = [];
  const server = http.createServer((req, res) => {
    const answer = () => { res.writeHead(200, { 'X-Instance-Index': String(index) }); res.end(); };
    if (req.url === '/hold') held.push(answer);
    else answer();
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve({ server, port: server.address().port, held })));
}

function get(port, urlPath, headers = {}) {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port, path: urlPath, agent: false, headers: { Host: 'node-app.localhost', ...headers } }, (res) => {
      res.resume();
      res.on('end', () => resolve({ status: res.statusCode, index: res.headers['x-instance-index'] }));
    });
    req.on('error', reject);
    req.setTimeout(10000, () => req.destroy(new Error(`GET ${urlPath}: timeout`)));
    req.end();
  });
}

async function until(what, fn, timeoutMs = 5000) {
  const end = Date.now() + timeoutMs;
  for (;;) {
    if (await fn()) return;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

// Streams the app's backend is serving now (runtime API `show stat`, column scur).
async function backendStreams(router) {
  const row = (await router.command('show stat')).split('\n').map((l) => l.split(','))
    .find((f) => f[0] === 'app_node-app' && f[1] === 'BACKEND');
  return Number(row[4]);
}

// With one request held on instance X, four quick ones: round-robin still sends half of
// them to X; least-connection sends all to the other instance. Each quick request waits
// until HAProxy has closed the one before (the client can have its answer first): a stream
// still counted on the other instance is a tie, which least-connection may break either way.
async function quickAfterHold(routerPort, backends, router) {
  const heldReq = get(routerPort, '/hold');
  await until('the held request to arrive', () => backends.some((b) => b.held.length === 1));
  const x = backends.findIndex((b) => b.held.length === 1);
  const quick = [];
  for (let i = 0; i < 4; i++) {
    await until('HAProxy to serve only the held request', async () => (await backendStreams(router)) === 1);
    quick.push((await get(routerPort, '/')).index);
  }
  backends[x].held.shift()();
  assert.equal((await heldReq).status, 200);
  return { x, onX: quick.filter((q) => q === String(x)).length };
}

test('a real HAProxy: update to least-connection reloads it gracefully; pins unaffected', { timeout: 60000 }, async () => {
  const backends = [await backend(0), await backend(1)];
  const routerPort = await freePort(45850, 45899);
  const logs = [];
  const router = new Router({ dir: path.join(tmp, 'haproxy'), routerPort, log: (m) => logs.push(m) });
  const app = { name: 'node-app', guid: GUID, instances: 2, routes: ['node-app.localhost'], routeOptions: {} };
  const sync = new RouterSync({
    router, log: (m) => logs.push(m), apps: () => [app],
    instances: () => backends.map((b, index) => ({ index, port: b.port, state: 'RUNNING' })),
  });
  sync.logPort = await freePort(45900, 45949); // nobody listens: the access log goes nowhere
  try {
    await sync.sync({ strict: true });
    assert.match(fs.readFileSync(router.cfgFile, 'utf8'), /balance roundrobin/);
    assert.equal((await quickAfterHold(routerPort, backends, router)).onX, 2, 'round-robin: half to the busy instance');

    // A request in flight across the reload still gets its answer (graceful reload).
    const inFlight = get(routerPort, '/hold');
    await until('the in-flight request to arrive', () => backends.some((b) => b.held.length === 1));
    const masterPid = router.masterPid;
    const oldWorker = await router.workerPid();
    app.routeOptions = planRouteUpdate([app], { domain: 'localhost', hostname: 'node-app', options: ['loadbalancing=least-connection'] }).routeOptions;
    const reloaded = sync.sync({ strict: true });
    // The reload returns once the old worker has answered what it had in flight.
    await new Promise((r) => setTimeout(r, 300));
    backends.find((b) => b.held.length === 1).held.shift()();
    await reloaded;
    assert.equal((await inFlight).status, 200);
    assert.equal(router.masterPid, masterPid, 'same master: reloaded, not restarted');
    // Regression: the reload returned while the old worker still took new connections
    // (with the old algorithm); now it returns once that worker is gone.
    assert.notEqual(await router.workerPid(), oldWorker, 'the new worker answers');
    assert.equal(processAlive(oldWorker), false, 'the old worker is gone');
    assert.deepEqual(logs.filter((l) => l.startsWith('router')), [`router listening on 127.0.0.1:${routerPort}`, `router reloaded (${router.cfgFile})`]);
    assert.match(fs.readFileSync(router.cfgFile, 'utf8'), /balance leastconn/);

    assert.equal((await quickAfterHold(routerPort, backends, router)).onX, 0, 'least-connection: none to the busy instance');
    for (const i of [0, 1]) assert.equal((await get(routerPort, '/', { 'X-Cf-App-Instance': `${GUID}:${i}` })).index, String(i), `pinned to ${i}`);

    await sync.sync({ strict: true });
    assert.equal(logs.filter((l) => l.startsWith('router reloaded')).length, 1, 'no reload when nothing changed');
    assert.equal((await quickAfterHold(routerPort, backends, router)).onX, 0, 'still least-connection');
  } finally {
    await sync.stop();
    for (const b of backends) { for (const h of b.held) h(); b.server.close(); }
  }
});
