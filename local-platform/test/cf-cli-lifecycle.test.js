// End to end with the real cf CLI against the local Cloud Controller: an app's life after
// the push — its manifest_diff, cf apps / app, logs (--recent and streaming, from the local
// log-cache), update-route -o loadbalancing, set-env / env, restart-app-instance, a crash in
// the audit events (and the user's terminate_instance), STG lines of the push, service keys,
// the local CPU quota annotation, pages of a list followed by the CLI, stop / start /
// restart, bind / unbind / delete-service, delete. The app is the tiny fixture
// (local-platform/test/fixtures/tiny-app), 2 instances. Under the heavy lock.
'use strict';

const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const { spawn } = require('node:child_process');
const { cfCliWorld } = require('./fixtures/cf-cli-world');
// The scripts read what the cf CLI prints from this platform with the same parsers as on CF:
// pinned here, on the real CLI's output.
const { parseRtrLine } = require('../../scripts/parsers/rtr-parser');
const { statsRows } = require('../../scripts/parsers/stats-parser');

const w = cfCliWorld();
const { cf, cfOk, curlJson, until } = w;
const APP = 'tiny';
let guid;
let host;

const viaRouter = (urlPath, headers = {}) => w.http('GET', urlPath, { port: w.routerPort, host, headers });
const stats = async () => (await curlJson(`/v3/apps/${guid}/processes/web/stats`)).resources;
const allRunning = async (n) => until(`${n} RUNNING`, async () => {
  const s = await stats();
  return s.length === n && s.every((r) => r.state === 'RUNNING');
});
// The router may learn of a RUNNING instance a moment later, as Gorouter does
// (docs/cf-platform.md §5): ask until the instance answers.
const instanceEnv = async (i) => JSON.parse(await until(`instance ${i} through the router`, async () => {
  const r = await viaRouter('/env', { 'X-Cf-App-Instance': `${guid}:${i}` });
  return r.status === 200 && r.body;
}));

test('push the tiny app with 2 instances; cf apps and cf app show them running', async () => {
  await w.login();
  await cfOk('create-service', 'postgres', 'local', 'results-db');
  const vars = path.join(w.home, 'vars.yml');
  fs.writeFileSync(vars, `name: ${APP}\nmemory: 64M\ninstances: 1\ndomain: localhost\nservices: []\nbusy: "0"\n`);
  await cfOk('push', APP, '-f', 'local-platform/test/fixtures/tiny-app/manifest.yml', '--vars-file', vars, '-i', '2');
  guid = await w.guid(APP);
  host = (await curlJson(`/v3/apps/${guid}/routes`)).resources[0].url;
  await allRunning(2);
  assert.match(await cfOk('apps'), new RegExp(`${APP} +started +web:2/2 +${host.replace(/\./g, '\\.')}`));
  const app = await cfOk('app', APP);
  assert.match(app, /#0 +running/);
  assert.match(app, /#1 +running/);
  const { rows, skipped } = statsRows(await curlJson(`/v3/apps/${guid}/processes/web/stats`), { platform: 'local' });
  assert.deepEqual(skipped, []);
  assert.deepEqual(rows.map((r) => [r.instance_index, r.state, r.source, r.mem_quota_bytes]), [[0, 'RUNNING', 'v3', 64 * 1024 * 1024], [1, 'RUNNING', 'v3', 64 * 1024 * 1024]]);
});

test('manifest_diff (what cf push prints before it applies): CC\'s diff of each app against the space', async () => {
  const space = (await curlJson('/v3/spaces?names=local')).resources[0].guid;
  // A manifest is YAML to CC (JSON is YAML); any other Content-Type is 400 (docs/cf-platform.md §23).
  const yaml = ['-H', 'Content-Type: application/x-yaml'];
  const diff = async (apps) => (await curlJson('-X', 'POST', `/v3/spaces/${space}/manifest_diff`, ...yaml, '-d', JSON.stringify({ applications: apps }))).diff;
  assert.deepEqual(await diff([{ name: APP, instances: 2, memory: '64M', env: { BUSY: '0' } }]), [], 'what the app has is no change');
  assert.deepEqual(await diff([{ name: APP, instances: 3, memory: '128M', env: { BUSY: '1', NEW: 'x' }, stack: 'cflinuxfs4' }]), [
    { op: 'replace', path: '/applications/0/instances', was: 2, value: 3 },
    { op: 'replace', path: '/applications/0/env/BUSY', was: '0', value: '1' },
    { op: 'add', path: '/applications/0/env/NEW', value: 'x' },
  ], 'memory only inside processes, as CC');
  assert.deepEqual(await diff([{ name: APP, processes: [{ type: 'web', memory: '128M', instances: 2 }] }]), [
    { op: 'replace', path: '/applications/0/processes/0/memory', was: '64M', value: '128M' },
  ]);
  assert.deepEqual(await diff([{ name: 'fresh', instances: 1 }]), [
    { op: 'add', path: '/applications/0/name', value: 'fresh' },
    { op: 'add', path: '/applications/0/instances', value: 1 },
  ], 'a new app: every key is an add');
  const bad = JSON.parse((await cf('curl', '-X', 'POST', `/v3/spaces/${space}/manifest_diff`, ...yaml, '-d', '{"applications":[]}')).stdout);
  assert.equal(bad.errors[0].detail, "Cannot parse manifest with no 'applications' field.");
  const json = JSON.parse((await cf('curl', '-X', 'POST', `/v3/spaces/${space}/manifest_diff`, '-d', '{"applications":[{"name":"x"}]}')).stdout);
  assert.deepEqual(json.errors[0], { detail: 'Bad request: Content-Type must be yaml', title: 'CF-BadRequest', code: 1004 });
});

test('cf logs --recent prints RTR lines with vcap_request_id and the app\'s own lines, in CF\'s layout', async () => {
  const r = await viaRouter('/recent-marker');
  assert.equal(r.status, 200);
  const id = r.headers['x-vcap-request-id'];
  const out = await until('the request in cf logs --recent', async () => {
    const o = await cfOk('logs', APP, '--recent');
    return o.includes(id) && o.includes('request GET /recent-marker') && o;
  });
  const rtr = out.split('\n').find((l) => l.includes(id));
  assert.match(rtr, /^ {3}\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d\d\+0000 \[RTR\/0\] OUT /);
  assert.match(rtr, new RegExp(`vcap_request_id:"${id}"`));
  const row = parseRtrLine(rtr);
  assert.deepEqual([row.method, row.path, row.status, row.vcap_request_id], ['GET', '/recent-marker', 200, id]);
  assert.ok([0, 1].includes(row.app_index) && row.response_time_us >= 0 && row.gorouter_time_us >= 0, JSON.stringify(row));
  assert.match(out, /\[APP\/PROC\/WEB\/[01]\] OUT request GET \/recent-marker/);
});

test('cf logs (streaming) prints a request made after it started', async () => {
  const child = spawn(path.join(w.repo, '.tools', 'bin', 'cf'), ['logs', APP], { env: w.env });
  let out = '';
  child.stdout.on('data', (d) => { out += d; });
  try {
    await until('cf logs to connect', async () => out.includes('Retrieving logs'), 30000);
    await until('the streamed line', async () => {
      await viaRouter('/stream-marker');
      return out.includes('request GET /stream-marker');
    }, 30000);
  } finally {
    child.kill('SIGINT');
  }
});

test('cf update-route -o loadbalancing=least-connection sets the option; hash is refused as CC does without its feature flag', async () => {
  const dot = host.indexOf('.');
  const [hostname, domain] = [host.slice(0, dot), host.slice(dot + 1)];
  assert.match(await cfOk('update-route', domain, '--hostname', hostname, '-o', 'loadbalancing=least-connection'), /has been updated/);
  assert.deepEqual((await curlJson(`/v3/apps/${guid}/routes`)).resources[0].options, { loadbalancing: 'least-connection' });
  const bad = await cf('update-route', domain, '--hostname', hostname, '-o', 'loadbalancing=hash');
  assert.equal(bad.code, 1);
  assert.match(bad.out, /Options Loadbalancing must be one of 'round-robin, least-connection' if present/);
  await cfOk('update-route', domain, '--hostname', hostname, '-r', 'loadbalancing');
  assert.deepEqual((await curlJson(`/v3/apps/${guid}/routes`)).resources[0].options, {});
});

test('cf set-env, cf env, cf restart: the instances see the variable', async () => {
  await cfOk('set-env', APP, 'GREETING', 'hello');
  assert.match(await cfOk('env', APP), /GREETING: hello/);
  await cfOk('restart', APP);
  await allRunning(2);
  assert.equal((await instanceEnv(1)).GREETING, 'hello');
});

test('cf restart-app-instance restarts one instance (a new instance guid); a crash is an audit.app.process.crash event', async () => {
  const [before0, before1] = [(await instanceEnv(0)).CF_INSTANCE_GUID, (await instanceEnv(1)).CF_INSTANCE_GUID];
  await cfOk('restart-app-instance', APP, '1');
  await allRunning(2);
  assert.notEqual((await instanceEnv(1)).CF_INSTANCE_GUID, before1);
  assert.equal((await instanceEnv(0)).CF_INSTANCE_GUID, before0);
  // CC records the user's restart (process_event_repository.rb record_terminate).
  const term = (await curlJson(`/v3/audit_events?target_guids=${guid}&types=audit.app.process.terminate_instance`)).resources;
  assert.equal(term.length, 1);
  assert.deepEqual([term[0].actor.type, term[0].actor.name, term[0].data.process_type, term[0].data.process_index], ['user', 'admin', 'web', 1]);
  assert.match(await cfOk('logs', APP, '--recent'), /\[API\/0\] OUT Terminating process: "web", index: "1"/);

  await viaRouter('/die', { 'X-Cf-App-Instance': `${guid}:0` }).catch(() => {});
  const events = await until('a crash event', async () => {
    const e = await curlJson(`/v3/audit_events?target_guids=${guid}&types=audit.app.process.crash`);
    return e.resources.length && e;
  });
  assert.equal(events.resources[0].data.index, 0);
  await allRunning(2);
});

test('the push left staging lines (STG) in the app\'s log', async () => {
  assert.match(await cfOk('logs', APP, '--recent'), /\[STG\/0\] OUT Staged with nodejs_buildpack: droplet [0-9a-f-]{36}/);
});

test('cf create-service-key / service-key: the instance\'s credentials; a taken name is "already exists", as the CLI says it', async () => {
  await cfOk('create-service-key', 'results-db', 'k1');
  const again = await cfOk('create-service-key', 'results-db', 'k1');
  assert.match(again, /Service key k1 already exists/);
  const keyGuid = (await cfOk('service-key', 'results-db', 'k1', '--guid')).trim();
  const { credentials } = await curlJson(`/v3/service_credential_bindings/${keyGuid}/details`);
  assert.match(credentials.uri, /^postgres:\/\/svc_results_db:[^@]+@127\.0\.0\.1:\d+\/results-db$/);
  assert.match(await cfOk('service-key', 'results-db', 'k1'), /"uri": "postgres:/);
  const keys = await curlJson('/v3/service_credential_bindings?type=key');
  assert.deepEqual(keys.resources.map((k) => [k.name, k.type]), [['k1', 'key']]);
  const bad = await curlJson('/v3/service_credential_bindings?type=route');
  assert.equal(bad.errors[0].code, 10005);
  await cfOk('delete-service-key', 'results-db', 'k1', '-f');
  assert.equal((await curlJson('/v3/service_credential_bindings?type=key')).resources.length, 0);
});

test('the local CPU quota is a process annotation (cf curl -X PATCH /v3/processes/GUID); a bad one is CC\'s 422', async () => {
  const patch = (v) => curlJson('-X', 'PATCH', `/v3/processes/${guid}`, '-d', JSON.stringify({ metadata: { annotations: { 'cfscale.local/cpu-quota': v } } }));
  assert.deepEqual((await patch('0.3')).metadata.annotations, { 'cfscale.local/cpu-quota': '0.3' });
  assert.ok((await stats()).every((s) => s.cpu_quota === 0.3));
  const bad = await patch('lots');
  assert.equal(bad.errors[0].code, 10008);
  assert.match(bad.errors[0].detail, /must be a number of cores >= 0\.01 or "none"/);
  assert.deepEqual((await patch(null)).metadata.annotations, {});
});

test('lists come in pages of per_page (CC: 50 by default, 5000 at most); the CLI follows next', async () => {
  const one = await curlJson('/v3/service_plans?per_page=1');
  assert.equal(one.pagination.total_results, 1);
  const events = await curlJson(`/v3/audit_events?target_guids=${guid}&per_page=1`);
  assert.equal(events.resources.length, 1);
  assert.ok(events.pagination.total_results >= 2);
  assert.match(events.pagination.next.href, /[?&]page=2&per_page=1/);
  assert.equal((await curlJson('/v3/apps?per_page=5001')).errors[0].detail, 'The query parameter is invalid: Per page must be between 1 and 5000');
});

test('cf stop (DOWN), cf start (RUNNING again)', async () => {
  await cfOk('stop', APP);
  assert.deepEqual((await stats()).map((r) => r.state), ['DOWN', 'DOWN']);
  assert.match(await cfOk('apps'), new RegExp(`${APP} +stopped +web:0/2`));
  await cfOk('start', APP);
  await allRunning(2);
});

test('cf bind-service / unbind-service / delete / delete-service', async () => {
  await cfOk('bind-service', APP, 'results-db');
  assert.match(await cfOk('services'), new RegExp(`results-db +postgres +local +${APP}`));
  await cfOk('restart', APP);
  await allRunning(2);
  assert.equal(JSON.parse((await instanceEnv(0)).VCAP_SERVICES).postgres[0].name, 'results-db');
  await cfOk('unbind-service', APP, 'results-db');
  await cfOk('delete', APP, '-f');
  assert.match(await cfOk('apps'), /No apps found/);
  assert.equal((await viaRouter('/')).status, 404);
  await cfOk('delete-service', 'results-db', '-f');
  assert.doesNotMatch(await cfOk('services'), /results-db/);
});
