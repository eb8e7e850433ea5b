// Integration test of the local platform: a real daemon, HAProxy, PostgreSQL and cgroups,
// driven by the real cf CLI (fixtures/cf-cli-world.js) with a tiny node:http fixture app
// (fixtures/tiny-app); `scripts/cfl` only for what cf has no verb for (status, router-usage).
'use strict';

const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const { platformWorld, FIXTURE, UUID_RE } = require('./fixtures/platform-world');
const R = require('./platform-router-cases');
const I = require('./platform-instance-cases');

const pw = platformWorld();
const { w, ok, cfAside, varsFile, push, extraManifests, allRunning } = pw;

// One platform for every case: the apps of later cases are pushed at once with the first.
test('local platform end to end', { timeout: 240000 }, async (t) => {
  pw.begin();
  const { HOME } = pw;
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
  const ctx = { pw, guid, state: {} };
  await t.test('round-robin by Host, X-Vcap-Request-Id on request and response', () => R.roundRobin(ctx));
  await t.test('HTTPS on the router\'s TLS port: self-signed, the same routes, X-Forwarded-Proto https, WebSocket upgrades pass; /v3/info says where', () => R.routerHttps(ctx));
  await t.test('X-Cf-App-Instance pins a request to one instance', () => R.pinnedInstance(ctx));
  await t.test('update-route: least-connection by a graceful reload, shown by cf curl; pins unaffected', () => R.updateRoute(ctx));
  await t.test('instances get the CF environment', () => I.cfEnvironment(ctx));
  await t.test('router access log in Gorouter layout', () => R.routerAccessLog(ctx));
  await t.test('v3 stats shape', () => I.statsShape(ctx));
  await t.test('scale 2 → 3 → 1, keep-alive client connection survives it', () => I.scaleInstances(ctx));
  await t.test('SIGKILL of an instance: restarted, crash event recorded', () => I.killedInstance(ctx));
  await t.test('beyond its memory limit an instance is OOM-killed and says so', () => I.oomKill(ctx));
  await t.test('CPU quota holds: a busy loop at a 0.2-core quota shows about 0.2 cores', () => I.cpuQuota(ctx));
  await t.test('router-usage: the router\'s CPU from its own cgroup grows with the requests it routes', () => R.routerUsage(ctx));
  await t.test('scale -m: the app restarts with the new memory limit (cf scale -m)', () => I.scaleMemory(ctx));
  await t.test('logs stream new lines until killed', () => I.logsStream(ctx));
  await t.test('lifecycle verbs: set-env + restart, stop, start, delete', () => I.lifecycleVerbs(ctx));
  await t.test('a saturated instance: killed by an http check with the default 1 s timeout, kept by the manifests\' liveness settings', () => I.saturatedInstance(ctx));
  await t.test('stop signals the instance\'s main process only, as Garden does', () => I.stopSignals(ctx));
  await t.test('down leaves no process, cgroup or port behind', () => I.downLeavesNothing(ctx));
});
