'use strict';
const test = require('node:test');
const assert = require('node:assert');
const { loadConfig, planFromRound, maskUrl } = require('../lib/config');

const vcap = (binding) => JSON.stringify({ 'postgresql-db': [binding] });

const CASES = [
  ['uri first', { VCAP_SERVICES: vcap({ name: 'results-db', credentials: { uri: 'postgres://u:p@h:5432/d', hostname: 'other' } }) }, 'postgres://u:p@h:5432/d?sslmode=disable&uselibpqcompat=true'],
  ['host, port as string, dbname, user', { VCAP_SERVICES: vcap({ name: 'results-db', credentials: { host: 'h', port: '6543', dbname: 'd', user: 'u', password: 'p w' } }) }, 'postgres://u:p%20w@h:6543/d?sslmode=disable&uselibpqcompat=true'],
  ['hostname, name, username', { VCAP_SERVICES: vcap({ name: 'res', credentials: { hostname: 'h', port: 5432, name: 'd', username: 'u', password: 'p' } }), RESULTS_SERVICE_NAME: 'res' }, 'postgres://u:p@h:5432/d?sslmode=disable&uselibpqcompat=true'],
  ['another name, found by label', { VCAP_SERVICES: vcap({ name: 'db', label: 'postgresql-db', credentials: { uri: 'postgres://u:p@h/d?sslmode=require' } }) }, 'postgres://u:p@h:5432/d?sslmode=require&uselibpqcompat=true'],
  ['RESULTS_DATABASE_URL without VCAP_SERVICES', { RESULTS_DATABASE_URL: 'postgres://a@b/c' }, 'postgres://a@b:5432/c?sslmode=disable&uselibpqcompat=true'],
];
for (const [name, env, url] of CASES) {
  test(`config: results database from ${name}`, () => assert.strictEqual(loadConfig(env).resultsUrl, url));
}

test('config: errors name the variable', () => {
  assert.throws(() => loadConfig({}), /RESULTS_DATABASE_URL/);
  assert.throws(() => loadConfig({ VCAP_SERVICES: vcap({ name: 'x', credentials: {} }) }), /RESULTS_SERVICE_NAME/);
  assert.throws(() => loadConfig({ RESULTS_DATABASE_URL: 'postgres://a@b/c', LOADGEN_POLL_MS: '5s' }), /LOADGEN_POLL_MS/);
});

test('config: LOADGEN_TLS_INSECURE is true or false, off by default', () => {
  const base = { RESULTS_DATABASE_URL: 'postgres://a@b/c' };
  assert.strictEqual(loadConfig(base).tlsInsecure, false);
  assert.strictEqual(loadConfig({ ...base, LOADGEN_TLS_INSECURE: 'true' }).tlsInsecure, true);
  assert.strictEqual(loadConfig({ ...base, LOADGEN_TLS_INSECURE: 'false' }).tlsInsecure, false);
  assert.throws(() => loadConfig({ ...base, LOADGEN_TLS_INSECURE: 'yes' }), /^Error: LOADGEN_TLS_INSECURE must be true or false, got "yes"$/);
});

test('config: password masked in logs', () => {
  assert.strictEqual(maskUrl('postgres://u:secret@h:1/d'), 'postgres://u:***@h:1/d');
});

test('config: a round row becomes a plan; parallel and rate are per instance', () => {
  const row = { target_url: 'http://a', host_header: 'app.local', model: 'open', parallel: null, rate: 50, duration_ms: '60000',
    requests: null, timeout_ms: 2000, keepalive: false, scenario: 'mix', plan: { weights: { read: 1 }, id_min: 5, id_max: 9, seed: 7, connections: 12 } };
  const p = planFromRound(row, 3);
  assert.deepStrictEqual([p.model, p.rate, p.parallel, p.durationMs, p.keepalive, p.idMin, p.idMax, p.randomSeed, p.host],
    ['open', 50, 12, 60000, false, 5, 9, 10, 'app.local']);
  assert.throws(() => planFromRound({ ...row, scenario: 'dance' }, 0), /rounds.scenario/);
});

test('config: plan.target_urls spreads the instances round-robin over its entry points (DNS-like)', () => {
  const row = { target_url: 'https://127.0.0.1:8443', model: 'closed', parallel: 1, duration_ms: 1000, keepalive: false, scenario: 'hello',
    plan: { target_urls: ['https://127.0.0.1:8443', 'https://127.0.0.1:8444', 'https://127.0.0.1:8445'] } };
  assert.deepStrictEqual([0, 1, 2, 3, 4].map((i) => planFromRound(row, i).url),
    ['https://127.0.0.1:8443', 'https://127.0.0.1:8444', 'https://127.0.0.1:8445', 'https://127.0.0.1:8443', 'https://127.0.0.1:8444']);
  assert.strictEqual(planFromRound({ ...row, plan: {} }, 4).url, 'https://127.0.0.1:8443');
  assert.throws(() => planFromRound({ ...row, plan: { target_urls: [] } }, 0), /target_urls must be a non-empty list/);
});
