// End to end with the real cf CLI: the study's elimination step (study §5.2.3) — a second
// copy of the app with its own database, `cf map-route` onto the first app's route, the
// router sending that route's requests to the instances of both apps (docs/cf-platform.md
// §16), `cf unmap-route` taking the copy off again; `cf delete-route`. Apps: the tiny
// fixture, each bound to its own service instance (its own database). Under the heavy lock.
'use strict';

const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const { cfCliWorld } = require('./fixtures/cf-cli-world');

const w = cfCliWorld();
const { cfOk, curlJson } = w;

const push = async (name, db) => {
  const vars = path.join(w.home, `vars-${name}.yml`);
  fs.writeFileSync(vars, `name: ${name}\nmemory: 64M\ninstances: 1\ndomain: localhost\nservices: [${db}]\nbusy: "0"\n`);
  await cfOk('push', name, '-f', 'local-platform/test/fixtures/tiny-app/manifest.yml', '--vars-file', vars);
};
// The app names that answer `n` requests to the route (each reports its VCAP_APPLICATION).
const answering = async (n) => {
  const names = new Set();
  for (let i = 0; i < n; i++) {
    const r = await w.http('GET', '/env', { port: w.routerPort, host: 'first.localhost' });
    assert.equal(r.status, 200, r.body);
    names.add(JSON.parse(JSON.parse(r.body).VCAP_APPLICATION).application_name);
  }
  return [...names].sort();
};

test('a second copy with its own database, mapped onto the first app\'s route, takes half the requests; unmapped, none', async () => {
  await w.login();
  await cfOk('create-service', 'postgres', 'local', 'first-db');
  await cfOk('create-service', 'postgres', 'local', 'second-db');
  await push('first', 'first-db');
  await push('second', 'second-db');
  const env = async (app) => (await curlJson(`/v3/apps/${await w.guid(app)}/env`)).system_env_json.VCAP_SERVICES.postgres[0].name;
  assert.equal(await env('first'), 'first-db');
  assert.equal(await env('second'), 'second-db');
  assert.deepEqual(await answering(4), ['first']);

  const out = await cfOk('map-route', 'second', 'localhost', '--hostname', 'first');
  assert.match(out, /Mapping route first\.localhost to app second in org local \/ space local as admin\.\.\.\nOK/);
  const route = (await curlJson('/v3/routes?hosts=first')).resources;
  assert.equal(route.length, 1, 'one route, two destinations');
  const first = await w.guid('first');
  const second = await w.guid('second');
  assert.deepEqual(route[0].destinations.map((d) => d.app.guid), [first, second]);
  // Round-robin over one instance of each: consecutive requests alternate.
  assert.deepEqual(await answering(4), ['first', 'second']);
  assert.match(await cfOk('map-route', 'second', 'localhost', '--hostname', 'first'), /App 'second' is already mapped to route 'first\.localhost'\. Nothing has been updated\./);
  assert.match(await cfOk('apps'), /second +started +web:1\/1 +first\.localhost, second\.localhost/);

  const un = await cfOk('unmap-route', 'second', 'localhost', '--hostname', 'first');
  assert.match(un, /Removing route first\.localhost from app second in org local \/ space local as admin\.\.\.\nOK/);
  assert.deepEqual(await answering(4), ['first']);
  assert.deepEqual((await curlJson('/v3/routes?hosts=first')).resources[0].destinations.map((d) => d.app.guid), [first]);
  assert.match(await cfOk('unmap-route', 'second', 'localhost', '--hostname', 'first'), /Route to be unmapped is not currently mapped to the application\./);
  // The second app keeps its own route.
  const r = await w.http('GET', '/env', { port: w.routerPort, host: 'second.localhost' });
  assert.equal(JSON.parse(JSON.parse(r.body).VCAP_APPLICATION).application_name, 'second');
});

test('map-route onto a new route creates it (POST /v3/routes); unmapped from its last app it stays, without destinations', async () => {
  const out = await cfOk('map-route', 'second', 'localhost', '--hostname', 'fresh');
  assert.match(out, /Creating route fresh\.localhost for org local \/ space local as admin\.\.\.\nOK\n+Mapping route fresh\.localhost to app second/);
  const r = await w.http('GET', '/env', { port: w.routerPort, host: 'fresh.localhost' });
  assert.equal(JSON.parse(JSON.parse(r.body).VCAP_APPLICATION).application_name, 'second');
  await cfOk('unmap-route', 'second', 'localhost', '--hostname', 'fresh');
  const routes = (await curlJson('/v3/routes?hosts=fresh')).resources;
  assert.equal(routes.length, 1);
  assert.deepEqual(routes[0].destinations, []);
  assert.equal((await w.http('GET', '/env', { port: w.routerPort, host: 'fresh.localhost' })).status, 404);
  const again = await w.cf('create-route', 'localhost', '--hostname', 'fresh');
  assert.equal(again.code, 0, again.out);
  assert.match(again.out, /Route already exists with host 'fresh' for domain 'localhost'\./);
  assert.match(await cfOk('create-route', 'localhost', '--hostname', 'other'), /Route other\.localhost has been created\./);
  assert.match(await cfOk('map-route', 'first', 'localhost', '--hostname', 'fresh'), /Mapping route fresh\.localhost to app first/);
  assert.doesNotMatch(await cfOk('map-route', 'first', 'localhost', '--hostname', 'fresh'), /Creating route/);
});

test('CC\'s errors: a destination of an unknown app, an unknown destination', async () => {
  const guid = (await curlJson('/v3/routes?hosts=first')).resources[0].guid;
  const bad = await w.cf('curl', '-X', 'POST', `/v3/routes/${guid}/destinations`, '-d', '{"destinations":[{"app":{"guid":"nope"}}]}');
  assert.match(bad.stdout, /App\(s\) with guid\(s\) \\"nope\\" do not exist\./);
  const gone = await w.cf('curl', '-X', 'DELETE', `/v3/routes/${guid}/destinations/nope`);
  assert.match(gone.stdout, /Unable to unmap route from destination\. Ensure the route has a destination with this guid\./);
});

test('cf delete-route: the route and every mapping to it go (CC\'s DELETE /v3/routes/:guid, a job); unknown: nothing to do', async () => {
  const first = await w.guid('first');
  assert.ok((await curlJson(`/v3/apps/${first}/routes`)).resources.some((r) => r.url === 'fresh.localhost'), 'fresh is mapped to first');
  assert.match(await cfOk('delete-route', 'localhost', '--hostname', 'fresh', '-f'), /Deleting route fresh\.localhost\.\.\.\nOK/);
  assert.deepEqual((await curlJson('/v3/routes?hosts=fresh')).resources, []);
  assert.ok(!(await curlJson(`/v3/apps/${first}/routes`)).resources.some((r) => r.url === 'fresh.localhost'), 'unmapped from first');
  assert.equal((await w.http('GET', '/env', { port: w.routerPort, host: 'fresh.localhost' })).status, 404);
  assert.deepEqual(await answering(2), ['first'], 'first keeps its own route');
  // A route no app is mapped to.
  await cfOk('delete-route', 'localhost', '--hostname', 'other', '-f');
  assert.deepEqual((await curlJson('/v3/routes?hosts=other')).resources, []);
  const none = await w.cf('delete-route', 'localhost', '--hostname', 'other', '-f');
  assert.equal(none.code, 0, none.out);
  assert.match(none.out, /Unable to delete\. Route with host 'other', domain 'localhost', and path '\/' not found\./);
  const unknown = JSON.parse((await w.cf('curl', '-X', 'DELETE', '/v3/routes/nope')).stdout);
  assert.deepEqual([unknown.errors[0].code, unknown.errors[0].title, unknown.errors[0].detail], [10010, 'CF-ResourceNotFound', 'Route not found']);
});
