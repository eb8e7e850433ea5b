// End to end with the real cf CLI: rolling deployments on the local Cloud Controller
// (lib/deployments.js, cc-api/deployments.js) — `cf restart --strategy rolling`, `cf push
// --strategy rolling --max-in-flight 2`, `--no-wait` then `cf scale` refused and `cf
// cancel-deployment`, CC's 422s for bad deployment requests. The tiny fixture app, 2
// instances. Under the heavy lock.
'use strict';

const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const { cfCliWorld } = require('./fixtures/cf-cli-world');

const w = cfCliWorld();
const { cf, cfOk, curlJson, until } = w;
const APP = 'tiny';
const MANIFEST = 'local-platform/test/fixtures/tiny-app/manifest.yml';
let guid;
let vars;

const stats = async () => (await curlJson(`/v3/apps/${guid}/processes/web/stats`)).resources;
const running = async (n) => until(`${n} RUNNING`, async () => {
  const s = await stats();
  return s.length === n && s.every((r) => r.state === 'RUNNING') && s;
});
const deployments = async () => (await curlJson(`/v3/deployments?app_guids=${guid}`)).resources;
const post = async (body) => JSON.parse((await cf('curl', '-X', 'POST', '/v3/deployments', '-d', JSON.stringify(body))).stdout);

test('push the tiny app with 2 instances', async () => {
  await w.login();
  vars = path.join(w.home, 'vars.yml');
  fs.writeFileSync(vars, `name: ${APP}\nmemory: 64M\ninstances: 2\ndomain: localhost\nservices: []\nbusy: "0"\n`);
  await cfOk('push', APP, '-f', MANIFEST, '--vars-file', vars);
  guid = await w.guid(APP);
  await running(2);
});

test('cf restart --strategy rolling: a deployment rolls new instances in, then the app runs 2 again, all new', async () => {
  const before = (await running(2)).map((r) => r.instance_guid);
  const out = await cfOk('restart', APP, '--strategy', 'rolling');
  assert.match(out, /Waiting for app to deploy/);
  const after = await running(2);
  assert.equal(after.filter((r) => before.includes(r.instance_guid)).length, 0, 'every instance is new');
  const [d] = await deployments();
  assert.deepEqual([d.status.value, d.status.reason, d.strategy, d.options.max_in_flight], ['FINALIZED', 'DEPLOYED', 'rolling', 1]);
  assert.equal(d.new_processes.length, 1);
  assert.equal((await curlJson(`/v3/processes/${d.new_processes[0].guid}`)).instances, 2, "the deployment's process is the web process now");
  assert.equal((await curlJson(`/v3/apps/${guid}/processes`)).resources.length, 1);
  const events = await curlJson(`/v3/audit_events?target_guids=${guid}&types=audit.app.deployment.create`);
  assert.equal(events.resources.length, 1);
  assert.match(await cfOk('events', APP), /audit\.app\.deployment\.create/);
});

test('cf push --strategy rolling --max-in-flight 2: the new droplet in both instances at once', async () => {
  const droplet = (await curlJson(`/v3/apps/${guid}/droplets/current`)).guid;
  await cfOk('push', APP, '-f', MANIFEST, '--vars-file', vars, '--strategy', 'rolling', '--max-in-flight', '2');
  const d = (await deployments()).pop();
  assert.deepEqual([d.status.reason, d.options.max_in_flight, d.previous_droplet.guid], ['DEPLOYED', 2, droplet]);
  assert.notEqual(d.droplet.guid, droplet);
  assert.equal((await curlJson(`/v3/apps/${guid}/droplets/current`)).guid, d.droplet.guid);
  await running(2);
});

test('while a deployment is under way (--no-wait): two web processes, cf scale refused, cf cancel-deployment brings the old one back', async () => {
  const before = (await running(2)).map((r) => r.instance_guid);
  // New instances that run but never pass their readiness check: the deployment cannot
  // progress (CC rolls only routable ones), whatever the timing.
  const ready = (type, endpoint) => cfOk('curl', '-X', 'PATCH', `/v3/processes/${guid}`, '-d',
    JSON.stringify({ readiness_health_check: { type, ...(endpoint ? { data: { endpoint } } : {}) } }));
  await ready('http', '/not-ready');
  await cfOk('restart', APP, '--strategy', 'rolling', '--no-wait');
  const [d] = (await curlJson(`/v3/deployments?app_guids=${guid}&status_values=ACTIVE`)).resources;
  assert.ok(d, 'an active deployment');
  assert.equal((await curlJson(`/v3/apps/${guid}/processes`)).resources.length, 2, 'the old web process and the new one');
  const scale = await cf('scale', APP, '-i', '3');
  assert.notEqual(scale.code, 0);
  assert.match(scale.out, /Cannot scale this process while a deployment is in flight\./);
  assert.match(await cfOk('cancel-deployment', APP), /OK/);
  const done = await until('the deployment canceled', async () => {
    const x = await curlJson(`/v3/deployments/${d.guid}`);
    return x.status.value === 'FINALIZED' && x;
  });
  assert.equal(done.status.reason, 'CANCELED');
  const after = await running(2);
  assert.ok(after.some((r) => before.includes(r.instance_guid)), 'old instances run again');
  assert.equal((await curlJson(`/v3/apps/${guid}/processes`)).resources.length, 1);
  const again = await cf('curl', '-X', 'POST', `/v3/deployments/${d.guid}/actions/cancel`);
  assert.match(again.stdout, /Cannot cancel a deployment with status: FINALIZED and reason: CANCELED/);
  await ready('process');
});

test("POST /v3/deployments: CC's 422s for a bad request", async () => {
  const app = { app: { data: { guid } } };
  const cases = [
    [{ relationships: app, options: { max_in_flight: 0 } }, 'Max in flight must be an integer greater than 0'],
    [{ relationships: app, strategy: 'blue-green' }, "Strategy 'blue-green' is not a supported deployment strategy"],
    [{ relationships: app, options: { color: 'red' } }, 'Options has unsupported key(s): color'],
    [{ relationships: app, droplet: { guid: 'nope' } }, 'Unable to assign current droplet. Ensure the droplet exists and belongs to this app.'],
    [{ relationships: { app: { data: { guid: 'nope' } } } }, 'Unable to use app. Ensure that the app exists and you have access to it.'],
    [{ relationships: app, extra: 1 }, "Unknown field(s): 'extra'"],
  ];
  for (const [body, detail] of cases) {
    const doc = await post(body);
    assert.equal(doc.errors?.[0]?.detail, detail, JSON.stringify(body));
    assert.equal(doc.errors[0].code, 10008);
  }
  assert.equal((await deployments()).filter((d) => d.status.value === 'ACTIVE').length, 0, 'none was made');
  const missing = JSON.parse((await cf('curl', '/v3/deployments/nope')).stdout);
  assert.equal(missing.errors[0].detail, 'Deployment not found');
});
