// Bad input never takes the local platform down (local-platform/README.md "Conformance"):
// every Cloud Controller endpoint the platform serves gets malformed, oversized and
// out-of-range input; each answer must be one of CC's 4xx error documents, the daemon must
// answer afterwards, and the saved state (state.json, events.jsonl) must be byte-identical.
// One app (the tiny fixture) and one service exist, so guids are real. Under the heavy lock.
'use strict';

const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const { cfCliWorld } = require('./fixtures/cf-cli-world');

const w = cfCliWorld();
const { cfOk, curlJson } = w;
const ids = {};
let token;

const api = (method, url, body, type = 'application/json') => w.http(method, url, {
  port: w.apiPort, body, headers: { authorization: token, ...(body === undefined ? {} : { 'content-type': type }) },
});
const saved = () => ['state.json', 'events.jsonl'].map((f) => fs.readFileSync(path.join(w.env.CFSCALE_HOME, f), 'utf8'));

test('a platform with one app and one service', async () => {
  await w.login();
  await cfOk('create-service', 'postgres', 'local', 'results-db');
  const vars = path.join(w.home, 'vars.yml');
  fs.writeFileSync(vars, 'name: tiny\nmemory: 64M\ninstances: 1\ndomain: localhost\nservices: [results-db]\nbusy: "0"\n');
  await cfOk('push', 'tiny', '-f', 'local-platform/test/fixtures/tiny-app/manifest.yml', '--vars-file', vars);
  ids.app = await w.guid('tiny');
  ids.si = (await curlJson('/v3/service_instances?names=results-db')).resources[0].guid;
  ids.route = (await curlJson(`/v3/apps/${ids.app}/routes`)).resources[0].guid;
  ids.space = (await curlJson('/v3/spaces?names=local')).resources[0].guid;
  ids.pkg = (await curlJson(`/v3/packages?app_guids=${ids.app}`)).resources[0].guid;
  token = JSON.parse(fs.readFileSync(path.join(w.cfHome, '.cf', 'config.json'), 'utf8')).AccessToken;
});

// Bodies no endpoint may accept: not JSON, not an object, wrong types, out of range, huge.
const deep = `${'['.repeat(100000)}${']'.repeat(100000)}`;
const BODIES = [
  'not json{', '[]', 'null', '"text"', '12', deep,
  JSON.stringify({ instances: -1 }), JSON.stringify({ instances: 1e308 }), JSON.stringify({ instances: 2 ** 31 }),
  JSON.stringify({ instances: '3; rm -rf /' }), JSON.stringify({ instances: 1.5 }), JSON.stringify({ memory_in_mb: 0 }),
  JSON.stringify({ memory_in_mb: 2 ** 40 }), JSON.stringify({ disk_in_mb: -5 }), JSON.stringify({ instances: [1] }),
  JSON.stringify({ var: { PORT: '1' } }), JSON.stringify({ var: 'x' }), JSON.stringify({ var: { A: { b: 1 } } }),
  JSON.stringify({ health_check: { type: 'ping' } }), JSON.stringify({ health_check: { data: { timeout: -1 } } }),
  JSON.stringify({ name: '' }), JSON.stringify({ name: 'x'.repeat(5 * 1024 * 1024) }), JSON.stringify({ unknown: 1 }),
  JSON.stringify({ options: { loadbalancing: 'hash' } }), JSON.stringify({ destinations: 'all' }),
  JSON.stringify({ type: 'key', relationships: { service_instance: { data: { guid: 'nope' } } } }),
  JSON.stringify({ data: { guid: 'nope' } }), JSON.stringify({ host: '../../etc', relationships: {} }),
];
// [method, path]: every mutating endpoint that takes a body, with real guids.
const WRITES = () => [
  ['POST', '/v3/apps'], ['PATCH', `/v3/apps/${ids.app}/environment_variables`],
  ['POST', `/v3/processes/${ids.app}/actions/scale`], ['POST', `/v3/apps/${ids.app}/processes/web/actions/scale`],
  ['PATCH', `/v3/processes/${ids.app}`], ['PATCH', `/v3/apps/${ids.app}/relationships/current_droplet`],
  ['POST', '/v3/routes'], ['PATCH', `/v3/routes/${ids.route}`], ['POST', `/v3/routes/${ids.route}/destinations`],
  ['POST', '/v3/service_instances'], ['POST', '/v3/service_credential_bindings'], ['POST', '/v3/packages'],
  ['POST', '/v3/builds'], ['POST', `/v3/spaces/${ids.space}/actions/apply_manifest`],
  ['POST', `/v3/spaces/${ids.space}/manifest_diff`], ['POST', `/v3/packages/${ids.pkg}/upload`],
];
// Queries no list may accept, and paths with out-of-range parts.
const READS = () => [
  '/v3/apps?page=0', '/v3/apps?per_page=99999999999', '/v3/apps?page=-1&per_page=abc', '/v3/apps?order_by=%27;drop',
  '/v3/apps?no_such=1', '/v3/audit_events?created_ats[gt]=yesterday', '/v3/audit_events?order_by=-name',
  '/v3/routes?bogus[x]=1', '/v3/apps/%E0%A4%A', `/v3/apps/${'a'.repeat(8000)}`,
];
// log-cache answers a bad read with its gRPC gateway's 500 and code 2 (envelope-store.js).
const LOG_CACHE_READS = ['/api/v1/read/x?limit=99999999', '/api/v1/read/x?start_time=abc'];
const DELETES = () => [
  `/v3/apps/${ids.app}/processes/web/instances/-1`, `/v3/apps/${ids.app}/processes/web/instances/99999999999`,
  `/v3/apps/${ids.app}/processes/web/instances/abc`, `/v3/apps/${ids.app}/processes/worker/instances/0`,
  `/v3/routes/${ids.route}/destinations/nope`, '/v3/apps/nope', '/v3/service_instances/nope',
];

const isCcError = (r) => {
  const doc = JSON.parse(r.body);
  return Array.isArray(doc.errors) && doc.errors.every((e) => Number.isInteger(e.code) && /^CF-/.test(e.title) && typeof e.detail === 'string');
};

test('every write endpoint refuses every bad body with a CC 4xx; the saved state is unchanged', async () => {
  const before = saved();
  const wrong = [];
  for (const [method, url] of WRITES()) {
    for (const body of BODIES) {
      const r = await api(method, url, body);
      if (!(r.status >= 400 && r.status < 500 && isCcError(r))) wrong.push(`${method} ${url} ${body.slice(0, 40)} → ${r.status} ${r.body.slice(0, 120)}`);
    }
  }
  assert.deepEqual(wrong, []);
  assert.deepEqual(saved(), before);
});

test('bad queries, paths and deletes: CC\'s 4xx; the state is unchanged; the platform still serves', async () => {
  const before = saved();
  const wrong = [];
  const check = (what, r) => { if (!(r.status >= 400 && r.status < 500)) wrong.push(`${what} → ${r.status} ${r.body.slice(0, 120)}`); };
  for (const url of READS()) check(`GET ${url.slice(0, 60)}`, await api('GET', url));
  for (const url of DELETES()) check(`DELETE ${url}`, await api('DELETE', url));
  for (const url of LOG_CACHE_READS) {
    const r = await api('GET', url);
    if (!(r.status === 500 && JSON.parse(r.body).code === 2)) wrong.push(`GET ${url} → ${r.status} ${r.body.slice(0, 120)}`);
  }
  assert.deepEqual(wrong, []);
  assert.deepEqual(saved(), before);
  assert.equal((await api('GET', `/v3/apps/${ids.app}`)).status, 200);
  assert.match(await cfOk('app', 'tiny'), /#0 +running/);
});

test('a body over the limit is cut off, not read into memory; the daemon answers after', async () => {
  const r = await new Promise((resolve) => {
    const req = require('node:http').request({ host: '127.0.0.1', port: w.apiPort, method: 'POST', path: '/v3/apps', headers: { authorization: token, 'content-type': 'application/json' } }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode));
    });
    req.on('error', () => resolve('closed'));
    const chunk = Buffer.alloc(1024 * 1024, 0x20);
    let sent = 0;
    const more = () => { while (sent < 64) { sent += 1; if (!req.write(chunk)) return req.once('drain', more); } return req.end(); };
    more();
  });
  assert.ok(r === 'closed' || r === 413, `got ${r}`);
  assert.equal((await api('GET', `/v3/apps/${ids.app}`)).status, 200);
});

// A state the daemon cannot run: the count a typo once saved, then a file that is not JSON.
test('a saved state beyond the quota, or unreadable, never stops the boot: held and reported by cfl status', async () => {
  const cfl = (verb) => w.run(path.join(w.repo, 'scripts', 'cfl'), [verb]);
  const stateFile = path.join(w.env.CFSCALE_HOME, 'state.json');
  assert.equal((await cfl('down')).code, 0);
  const state = JSON.parse(fs.readFileSync(stateFile, 'utf8'));
  state.apps.tiny.instances = 100000;
  fs.writeFileSync(stateFile, JSON.stringify(state));
  const up = await cfl('up');
  assert.equal(up.code, 0, up.out);
  assert.match((await cfl('status')).stdout, /held: +tiny: memory quota_exceeded, app_instance_limit app_instance_limit_exceeded/);
  assert.match(await cfOk('apps'), /tiny +started +web:0\/100000/);
  await cfOk('scale', 'tiny', '-i', '1');
  assert.match(await cfOk('app', 'tiny'), /#0 +(starting|running)/, 'a scale within the quota releases it');

  assert.equal((await cfl('down')).code, 0);
  fs.writeFileSync(stateFile, '{"apps": [');
  const again = await cfl('up');
  assert.equal(again.code, 0, again.out);
  assert.match((await cfl('status')).stdout, /held: +\(state\): state file .* is unreadable: .*; kept as .*state\.json\.unreadable-\d+, started empty/);
  assert.match(await cfOk('apps'), /No apps found/);
});
