// The local Cloud Controller under bad input, written from CC's documented limits
// (docs/cf-platform.md §17, §23): every write endpoint gets at least 40 malformed, oversized
// and out-of-range requests. Each must be answered, never reset, with a 4xx — CC's error
// document, or nginx's 413 page for a body over 15 MiB — and leave the state as it was
// (state.json, events.jsonl and the listings compared after every request). Then the platform
// is stopped and started again and reads the same state. Also: the names CC accepts that are
// no file names work end to end, and `{"instances": "3"}` scales as CC's numericality takes it.
// One app (the tiny fixture), one service, one key, a route of its own; under the heavy lock.
'use strict';

const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const http = require('node:http');
const path = require('node:path');
const { cfCliWorld } = require('./fixtures/cf-cli-world');
const { ENDPOINTS, GENERIC, rel, str, CONTROL, MiB, BODY_LIMIT, UPLOAD_LIMIT, JSON_TYPE } = require('./cc-api-fuzz-cases');

const w = cfCliWorld();
const { cfOk, curlJson } = w;
const ids = {};
let token;

/** One request; resolves {status, type, body} or {reset: message} — never rejects. */
function send(method, url, body, type = JSON_TYPE) {
  return new Promise((resolve) => {
    const headers = { authorization: token, ...(body === undefined ? {} : { 'content-type': type }) };
    const req = http.request({ host: '127.0.0.1', port: w.apiPort, method, path: url, headers }, (res) => {
      const chunks = [];
      res.on('data', (d) => chunks.push(d));
      res.on('end', () => resolve({ status: res.statusCode, type: String(res.headers['content-type'] || ''), body: Buffer.concat(chunks).toString('utf8') }));
      res.on('error', (e) => resolve({ reset: e.message }));
    });
    req.on('error', (e) => resolve({ reset: e.message }));
    req.end(body);
  });
}

// What must not change when a request is refused: the saved state and what the API lists.
const LISTINGS = ['/v3/apps', '/v3/processes', '/v3/routes', '/v3/service_instances', '/v3/service_credential_bindings',
  '/v3/packages', '/v3/audit_events?per_page=5000'];
async function snapshot() {
  const files = ['state.json', 'events.jsonl'].map((f) => fs.readFileSync(path.join(w.env.CFSCALE_HOME, f), 'utf8'));
  const lists = [];
  for (const url of LISTINGS) lists.push((await send('GET', url)).body);
  return JSON.stringify([files, lists]);
}

const isCcError = (r) => {
  try {
    const doc = JSON.parse(r.body);
    return Array.isArray(doc.errors) && doc.errors.length > 0
      && doc.errors.every((e) => Number.isInteger(e.code) && /^CF-/.test(e.title) && typeof e.detail === 'string');
  } catch {
    return false;
  }
};
// nginx's 413 (no CC error document on a foundation either).
const isTooLarge = (r) => r.status === 413 && /^text\/html/.test(r.type) && r.body.includes('413 Request Entity Too Large');

test('a platform with one app, one service, a key and a route of its own', async () => {
  await w.login();
  await cfOk('create-service', 'postgres', 'local', 'results-db');
  await cfOk('create-service-key', 'results-db', 'fuzz-key');
  const vars = path.join(w.home, 'vars.yml');
  fs.writeFileSync(vars, 'name: tiny\nmemory: 64M\ninstances: 1\ndomain: localhost\nservices: [results-db]\nbusy: "0"\n');
  await cfOk('push', 'tiny', '-f', 'local-platform/test/fixtures/tiny-app/manifest.yml', '--vars-file', vars);
  await cfOk('create-route', 'localhost', '--hostname', 'fuzz-loose');
  ids.app = await w.guid('tiny');
  ids.si = (await curlJson('/v3/service_instances?names=results-db')).resources[0].guid;
  ids.route = (await curlJson(`/v3/apps/${ids.app}/routes`)).resources[0].guid;
  ids.space = (await curlJson('/v3/spaces?names=local')).resources[0].guid;
  ids.domain = (await curlJson('/v3/domains')).resources[0].guid;
  ids.plan = (await curlJson('/v3/service_plans')).resources[0].guid;
  ids.pkg = (await curlJson(`/v3/packages?app_guids=${ids.app}`)).resources[0].guid;
  ids.droplet = (await curlJson(`/v3/apps/${ids.app}/droplets/current`)).guid;
  token = JSON.parse(fs.readFileSync(path.join(w.cfHome, '.cf', 'config.json'), 'utf8')).AccessToken;
});

/** The body and its content type as sent. */
function encode(body, type) {
  if (Buffer.isBuffer(body) || typeof body === 'string') return [body, type];
  if (body && body.raw !== undefined) return [body.raw, body.type];
  return [JSON.stringify(body), type];
}

const counts = { cases: 0, status4xx: 0, status5xx: 0, resets: 0, changed: 0 };

test('every write endpoint: at least 40 bad requests each, every one a 4xx, none a reset, nothing changed', { timeout: 600000 }, async () => {
  const baseline = await snapshot();
  const wrong = [];
  for (const [method, url, specific, type = JSON_TYPE] of ENDPOINTS(ids)) {
    const bodies = type === JSON_TYPE ? [...GENERIC(), ...specific] : [...GENERIC().filter((b) => Buffer.isBuffer(b)), ...specific];
    assert.ok(bodies.length >= 40, `${method} ${url}: ${bodies.length} cases`);
    for (const body of bodies) {
      const [payload, ctype] = encode(body, type);
      const r = await send(method, url, payload, ctype);
      counts.cases++;
      const what = `${method} ${url.slice(0, 50)} ${String(payload).slice(0, 60).replace(/\s+/g, ' ')}`;
      if (r.reset) { counts.resets++; wrong.push(`${what} → reset: ${r.reset}`); continue; }
      if (r.status >= 500) counts.status5xx++;
      if (r.status >= 400 && r.status < 500) counts.status4xx++;
      const ok = r.status >= 400 && r.status < 500 && (isCcError(r) || isTooLarge(r));
      if (!ok) wrong.push(`${what} → ${r.status} ${r.body.slice(0, 160)}`);
      const limit = /\/upload$/.test(url) ? UPLOAD_LIMIT : BODY_LIMIT;
      if (Buffer.isBuffer(payload) && payload.length > limit && !isTooLarge(r)) wrong.push(`${what} → ${r.status}, not nginx's 413`);
      if (await snapshot() !== baseline) {
        counts.changed++;
        wrong.push(`${what} → ${r.status}: the state changed`);
        break; // every later comparison would fail on this change
      }
    }
  }
  process.stderr.write(`cc-api fuzz: ${counts.cases} cases, ${counts.status4xx} 4xx, ${counts.status5xx} 5xx, `
    + `${counts.resets} resets, ${counts.changed} state changes after a refusal\n`);
  assert.deepEqual(wrong, []);
  assert.equal(counts.status5xx, 0);
});

test('regressions: a 200 KB name and a name of control characters are 422 and no app; 30 MB is nginx\'s 413, not a reset', async () => {
  const space = rel('space', ids.space);
  const long = await send('POST', '/v3/apps', JSON.stringify({ name: str(200 * 1024), relationships: space }));
  assert.equal(long.status, 422);
  assert.equal(JSON.parse(long.body).errors[0].detail, 'Name is too long (maximum is 255 characters)');
  const ctl = await send('POST', '/v3/apps', JSON.stringify({ name: CONTROL, relationships: space }));
  assert.equal(ctl.status, 422);
  assert.deepEqual(JSON.parse(ctl.body).errors[0], { detail: 'name format', title: 'CF-UnprocessableEntity', code: 10008 });
  const big = await send('POST', '/v3/apps', Buffer.alloc(30 * MiB, 0x20));
  assert.ok(isTooLarge(big), `${big.status || big.reset}`);
  assert.deepEqual((await curlJson('/v3/apps')).resources.map((a) => a.name), ['tiny']);
});

test('{"instances": "3"} is a number to CC (Rails numericality, Sequel typecasts): it scales, and is saved as a number', async () => {
  const r = await send('POST', `/v3/processes/${ids.app}/actions/scale`, JSON.stringify({ instances: '2' }));
  assert.equal(r.status, 202, r.body);
  assert.equal(JSON.parse(r.body).instances, 2);
  const saved = JSON.parse(fs.readFileSync(path.join(w.env.CFSCALE_HOME, 'state.json'), 'utf8')).apps.tiny.instances;
  assert.equal(saved, 2);
  assert.equal((await send('POST', `/v3/processes/${ids.app}/actions/scale`, JSON.stringify({ instances: '1' }))).status, 202);
});

// Printable names CC takes that are no file, cgroup or HAProxy names (app-id.js).
const ODD_NAMES = ['a/b c', str(255, 'n'), 'ünïcödé 名前', '..', 'x;rm -rf /'];

test('names CC accepts that are no file names: created and listed (the restart below keeps them, then they are deleted)', async () => {
  const space = rel('space', ids.space);
  for (const name of ODD_NAMES) {
    const r = await send('POST', '/v3/apps', JSON.stringify({ name, relationships: space }));
    assert.equal(r.status, 201, `${name.slice(0, 20)}: ${r.body}`);
    assert.equal(JSON.parse(r.body).name, name);
  }
  const trimmed = await send('POST', '/v3/apps', JSON.stringify({ name: '  padded  ', relationships: space }));
  assert.equal(JSON.parse(trimmed.body).name, 'padded', 'stripped as CC strips it');
  const names = (await curlJson('/v3/apps?per_page=100')).resources.map((a) => a.name).sort();
  assert.deepEqual(names, [...ODD_NAMES, 'padded', 'tiny'].sort());
});

test('the platform stops and starts again and reads the same state', { timeout: 300000 }, async () => {
  const cfl = (verb) => w.run(path.join(w.repo, 'scripts', 'cfl'), [verb]);
  const listing = async () => Promise.all(['/v3/apps?per_page=100', '/v3/routes', '/v3/service_instances', '/v3/service_credential_bindings', '/v3/packages']
    .map(async (u) => (await curlJson(u)).resources.map((x) => [x.guid, x.name ?? x.url ?? x.type]).sort()));
  const before = await listing();
  const down = await cfl('down');
  assert.equal(down.code, 0, down.out);
  const up = await cfl('up');
  assert.equal(up.code, 0, up.out);
  assert.doesNotMatch((await cfl('status')).stdout, /held:|unreadable/);
  assert.deepEqual(await listing(), before);
  assert.match(await cfOk('app', 'tiny'), /#0 +(starting|running)/);
  for (const a of (await curlJson('/v3/apps?per_page=100')).resources.filter((x) => x.name !== 'tiny')) {
    assert.equal((await send('DELETE', `/v3/apps/${a.guid}`)).status, 202);
  }
  await w.until('only tiny left', async () => (await curlJson('/v3/apps')).resources.length === 1);
  process.stderr.write(`cc-api fuzz counts: cases ${counts.cases}, 4xx ${counts.status4xx}, 5xx ${counts.status5xx}, `
    + `resets ${counts.resets}, state changes after refusals ${counts.changed}\n`);
});
