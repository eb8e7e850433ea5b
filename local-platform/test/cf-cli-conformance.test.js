// End to end with the real cf CLI: the commands of a first hour on a foundation answer as
// Cloud Controller's source says (local-platform/README.md "Conformance"): the foundation's
// read commands, scale answered at once, CC's quota errors, CC's validation of set-env and
// health checks, list query parameters, the app's audit events newest first and kept across
// a daemon restart, restage after it, the manifest's processes / random-route / readiness
// check, and cf delete keeping the app's routes. The tiny fixture app. Under the heavy lock.
'use strict';

const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const { cfCliWorld } = require('./fixtures/cf-cli-world');

const w = cfCliWorld();
const { cf, cfOk, curlJson, until } = w;
const APP = 'tiny';
const CFL = path.join(w.repo, 'scripts', 'cfl');
let guid;

const manifest = (name, extra) => {
  const f = path.join(w.home, `${name}.yml`);
  fs.writeFileSync(f, `applications:\n- name: ${name}\n  path: ${path.join(w.repo, 'local-platform/test/fixtures/tiny-app')}\n  memory: 64M\n  buildpacks: [nodejs_buildpack]\n  command: exec node server.js\n${extra}`);
  return f;
};
const running = (app, n) => until(`${n} RUNNING`, async () => {
  const s = (await curlJson(`/v3/apps/${await w.guid(app)}/processes/web/stats`)).resources;
  return s.length === n && s.every((r) => r.state === 'RUNNING');
});
const instances = async () => (await curlJson(`/v3/processes/${guid}`)).instances;

test('push the tiny app (1 instance) with a results-db', async () => {
  await w.login();
  await cfOk('create-service', 'postgres', 'local', 'results-db');
  await cfOk('push', APP, '-f', manifest(APP, '  routes: [{route: tiny.localhost}]\n'));
  guid = await w.guid(APP);
  await running(APP, 1);
});

// [cf arguments, what the output must show]: each failed with "endpoint not found" before.
const READS = [
  [['routes'], /local +tiny +localhost .* tiny /],
  [['service', 'results-db'], /name: +results-db[\s\S]*Showing bound apps/],
  [['buildpacks'], /1 +nodejs_buildpack +cflinuxfs4 +true +false +READY/],
  [['feature-flags'], /service_instance_sharing +disabled/],
  [['org', 'local'], /quota: +local/],
  [['space', 'local'], /running security groups:/],
  [['quotas'], /local +\d+(\.\d+)?[MGT] +\d+(\.\d+)?[MGT] +unlimited +unlimited +allowed +\d+ /],
  [['org-quota', 'local'], /app instances: +\d+/],
  [['space-quotas'], /No space quotas found/],
  [['ssh-enabled', APP], /ssh support is disabled for app 'tiny'[\s\S]*ssh is disabled globally/],
];
for (const [args, shows] of READS) {
  test(`cf ${args.join(' ')} works as on CF`, async () => assert.match(await cfOk(...args), shows));
}

test('cf scale -i 2 answers at once (CC: 202, Diego starts the instance after)', async () => {
  const t0 = Date.now();
  await cfOk('scale', APP, '-i', '2');
  assert.ok(Date.now() - t0 < 3000, `took ${Date.now() - t0} ms`);
  assert.equal(await instances(), 2);
  await running(APP, 2);
});

// [cf arguments, CC's message]: refused, nothing changed, the platform still answers.
const REFUSED = [
  [['scale', APP, '-i', '100000'], /app_instance_limit app_instance_limit_exceeded/],
  [['scale', APP, '-m', '100000G', '-f'], /memory quota_exceeded, memory instance_memory_limit_exceeded/],
  [['scale', APP, '-k', '100G', '-f'], /disk_quota too much disk requested \(requested 102400 MB - must be less than 2048 MB\)/],
  [['set-env', APP, 'PORT', '9'], /Var cannot set PORT/],
  [['set-env', APP, 'VCAP_X', '1'], /Var cannot start with VCAP_/],
];
for (const [args, message] of REFUSED) {
  test(`cf ${args.join(' ')} is refused with CC's error`, async () => {
    const r = await cf(...args);
    assert.equal(r.code, 1, r.out);
    assert.match(r.out, message);
    assert.equal(await instances(), 2);
    assert.equal((await curlJson(`/v3/processes/${guid}`)).memory_in_mb, 64);
    assert.doesNotMatch(await cfOk('env', APP), /PORT: 9|VCAP_X/);
  });
}

test('cf set-health-check http --endpoint: the process\'s health check (CC: effective at the next start)', async () => {
  await cfOk('set-health-check', APP, 'http', '--endpoint', '/health');
  assert.deepEqual((await curlJson(`/v3/processes/${guid}`)).health_check.type, 'http');
  const bad = JSON.parse(await cfOk('curl', '-X', 'PATCH', `/v3/processes/${guid}`, '-d', '{"health_check":{"type":"ping"}}'));
  assert.equal(bad.errors[0].detail, 'Health check type must be "port", "process", or "http"');
});

// [path, what CC answers]: filters, order_by, and CC's 400 for what a list does not know.
const QUERIES = [
  [() => `/v3/apps?guids=${guid || 'GUID'}`, (d) => assert.deepEqual(d.resources.map((a) => a.name), [APP])],
  [() => '/v3/apps?guids=no-such-guid', (d) => assert.deepEqual(d.resources, [])],
  [() => '/v3/feature_flags?order_by=-name&per_page=1', (d) => assert.equal(d.resources[0].name, 'user_org_creation')],
  [() => '/v3/apps?foo=1', (d) => assert.match(d.errors[0].detail, /^The query parameter is invalid: Unknown query parameter\(s\): 'foo'\. Valid parameters are: 'page', 'per_page', 'order_by'/)],
  [() => '/v3/audit_events?order_by=name', (d) => assert.equal(d.errors[0].detail, "The query parameter is invalid: Order by can only be: 'created_at', 'updated_at'")],
];
for (const [url, check] of QUERIES) {
  test(`cf curl ${url()}`, async () => check(await curlJson(url())));
}

test('cf events: the app\'s life, newest first, with actor and CC\'s descriptions', async () => {
  const out = await cfOk('events', APP);
  const types = [...out.matchAll(/^\S+ +(audit\.\S+|app\.\S+) +(\S+)/gm)].map((m) => [m[1], m[2]]);
  assert.deepEqual(types[0], ['audit.app.process.update', 'admin'], 'set-health-check came last');
  for (const t of ['audit.app.create', 'audit.app.apply_manifest', 'audit.app.process.scale', 'audit.app.restart', 'audit.app.build.create']) {
    assert.ok(types.some(([x]) => x === t), `${t} in\n${out}`);
  }
  assert.match(out, /audit\.app\.process\.scale +admin +instances: 2/);
  const times = [...out.matchAll(/^(\d{4}-\S+)/gm)].map((m) => Date.parse(m[1].replace(/(\d\d)(\d\d)$/, '$1:$2')));
  assert.deepEqual(times, [...times].sort((a, b) => b - a), 'newest first');
});

test('after cfl down / up: the events are kept, cf restage stages the kept package', async () => {
  const before = (await curlJson(`/v3/audit_events?target_guids=${guid}&per_page=5000`)).resources.length;
  assert.equal((await w.run(CFL, ['down'])).code, 0);
  assert.equal((await w.run(CFL, ['up'])).code, 0);
  assert.equal((await curlJson(`/v3/audit_events?target_guids=${guid}&per_page=5000`)).resources.length, before);
  assert.match(await cfOk('restage', APP), /#0 +running/);
  assert.ok((await curlJson(`/v3/audit_events?target_guids=${guid}&types=audit.app.build.create`)).resources.length >= 2);
});

test('manifest: random-route, the web process\'s keys and a readiness check are honoured', async () => {
  await cfOk('push', 'rr', '-f', manifest('rr', '  random-route: true\n  processes:\n  - type: web\n    instances: 1\n    readiness-health-check-type: http\n    readiness-health-check-http-endpoint: /health\n'));
  const rr = await w.guid('rr');
  const [route] = (await curlJson(`/v3/apps/${rr}/routes`)).resources;
  assert.match(route.url, /^rr-[a-z]+-[a-z]+-[a-z]{2}\.localhost$/);
  const proc = await curlJson(`/v3/processes/${rr}`);
  assert.deepEqual(proc.readiness_health_check, { type: 'http', data: { invocation_timeout: 1, interval: 30, endpoint: '/health' } });
  await until('routable', async () => (await curlJson(`/v3/processes/${rr}/stats`)).resources[0].routable === true);
  assert.equal((await w.http('GET', '/health', { port: w.routerPort, host: route.url })).status, 200);
});

test('manifest: a process other than web is refused with CC\'s error naming it; nothing is created', async () => {
  const r = await cf('push', 'wk', '-f', manifest('wk', '  processes:\n  - type: worker\n    command: sleep 1000\n'));
  assert.equal(r.code, 1, r.out);
  assert.match(r.out, /For application 'wk': Process "worker": the local platform runs only the web process/);
  assert.doesNotMatch(await cfOk('apps'), /\bwk\b/);
});

test('cf delete keeps the app\'s routes, as CC does; cf delete-route removes one', async () => {
  const url = (await curlJson(`/v3/apps/${await w.guid('rr')}/routes`)).resources[0].url;
  await cfOk('delete', 'rr', '-f');
  assert.match(await cfOk('routes'), new RegExp(`local +${url.split('.')[0]} +localhost`));
  await cfOk('delete-route', 'localhost', '--hostname', url.split('.')[0], '-f');
  assert.doesNotMatch(await cfOk('routes'), new RegExp(url.split('.')[0]));
});
