'use strict';
// config.test.js — settings parsing and validation, VCAP_SERVICES lookup variants.

const test = require('node:test');
const assert = require('node:assert/strict');
const { spawnSync } = require('node:child_process');
const path = require('node:path');
const fs = require('node:fs');
const { loadConfig, describeConfig } = require('./config');
const { describeConnection } = require('./bindings');

const URL = 'postgres://app:secret@db.example:5432/app';
const TOKEN = 'Zm9vYmFyLWNvbnRyb2wtdG9rZW4tZm9yLXRlc3Rz';
const base = { DATABASE_URL: URL, CONTROL_TOKEN: TOKEN };

function vcap(...bindings) {
  const byLabel = {};
  for (const b of bindings) (byLabel[b.label] ??= []).push(b);
  return JSON.stringify(byLabel);
}
const results = { name: 'results-db', label: 'postgres', tags: ['postgres'], credentials: { uri: 'postgres://r:rpw@res:5432/results' } };

test('defaults with DATABASE_URL only', () => {
  const c = loadConfig(base);
  assert.deepEqual(
    { ...c, db: undefined },
    {
      port: 8080,
      instanceIndex: 0,
      appName: 'node-app',
      db: undefined,
      results: null,
      dbPoolSize: 10,
      dbPoolTimeoutMs: 2000,
      dbStatementTimeoutMs: 5000,
      timingsEnabled: true,
      timingsCapacity: 100000,
      timingsFlushOnExit: false,
      shutdownTimeoutMs: 8000,
      httpMaxHeaderBytes: 16384,
      httpHeaderTimeoutMs: 10000,
      httpIdleTimeoutMs: 95000,
      framework: 'raw',
      dbDriver: 'native',
      webConcurrency: 1,
      controlToken: TOKEN,
      controlOpen: false,
    },
  );
  assert.equal(describeConnection(c.db), 'postgres://app:***@db.example:5432/app?sslmode=disable');
  assert.equal(c.db.password, 'secret');
});

test('valid settings are taken as given', () => {
  const c = loadConfig({
    ...base,
    PORT: '9000',
    CF_INSTANCE_INDEX: '3',
    DB_POOL_SIZE: '90',
    DB_POOL_TIMEOUT_MS: '500',
    DB_STATEMENT_TIMEOUT_MS: '100',
    TIMINGS_ENABLED: 'false',
    TIMINGS_CAPACITY: '7',
    TIMINGS_FLUSH_ON_EXIT: 'true',
    SHUTDOWN_TIMEOUT_MS: '100',
    APP_FRAMEWORK: 'express',
    DB_DRIVER: 'js',
    WEB_CONCURRENCY: '4',
    RESULTS_DATABASE_URL: 'postgres://r@h/res',
    DB_SERVICE_NAME: '', // empty counts as unset
  });
  assert.equal(c.port, 9000);
  assert.equal(c.instanceIndex, 3);
  assert.equal(c.dbPoolSize, 90);
  assert.equal(c.dbPoolTimeoutMs, 500);
  assert.equal(c.dbStatementTimeoutMs, 100);
  assert.equal(c.timingsEnabled, false);
  assert.equal(c.timingsCapacity, 7);
  assert.equal(c.timingsFlushOnExit, true);
  assert.equal(c.shutdownTimeoutMs, 100);
  assert.equal(c.framework, 'express');
  assert.equal(c.dbDriver, 'js');
  assert.equal(c.webConcurrency, 4);
  assert.equal(describeConnection(c.results), 'postgres://r@h:5432/res?sslmode=disable');
});

test('invalid settings stop with one message naming the variable', async (t) => {
  const cases = [
    [{ DB_POOL_SIZE: 'abc' }, 'DB_POOL_SIZE must be an integer from 1 to 1000, got "abc"'],
    [{ DB_POOL_SIZE: '0' }, 'DB_POOL_SIZE must be an integer from 1 to 1000, got "0"'],
    [{ DB_POOL_SIZE: '1001' }, 'DB_POOL_SIZE must be an integer from 1 to 1000, got "1001"'],
    [{ DB_POOL_SIZE: '1.5' }, 'DB_POOL_SIZE must be an integer from 1 to 1000, got "1.5"'],
    [{ PORT: '65536' }, 'PORT must be an integer from 0 to 65535, got "65536"'],
    [{ PORT: '-1' }, 'PORT must be an integer from 0 to 65535, got "-1"'],
    [{ CF_INSTANCE_INDEX: 'x' }, 'CF_INSTANCE_INDEX must be an integer from 0 to 1000000, got "x"'],
    [{ DB_POOL_TIMEOUT_MS: '249' }, 'DB_POOL_TIMEOUT_MS must be an integer from 250 to 600000, got "249"'],
    [{ DB_STATEMENT_TIMEOUT_MS: '99' }, 'DB_STATEMENT_TIMEOUT_MS must be an integer from 100 to 600000, got "99"'],
    [{ DB_STATEMENT_TIMEOUT_MS: '600001' }, 'DB_STATEMENT_TIMEOUT_MS must be an integer from 100 to 600000, got "600001"'],
    [{ DB_STATEMENT_TIMEOUT_MS: '5s' }, 'DB_STATEMENT_TIMEOUT_MS must be an integer from 100 to 600000, got "5s"'],
    [{ DB_STATEMENT_TIMEOUT_MS: '-1' }, 'DB_STATEMENT_TIMEOUT_MS must be an integer from 100 to 600000, got "-1"'],
    [{ TIMINGS_CAPACITY: '10000001' }, 'TIMINGS_CAPACITY must be an integer from 1 to 10000000, got "10000001"'],
    [{ SHUTDOWN_TIMEOUT_MS: '99' }, 'SHUTDOWN_TIMEOUT_MS must be an integer from 100 to 600000, got "99"'],
    [{ HTTP_HEADER_TIMEOUT_MS: '3000', HTTP_IDLE_TIMEOUT_MS: '2999' }, 'HTTP_IDLE_TIMEOUT_MS must be >= HTTP_HEADER_TIMEOUT_MS (3000), got "2999"'],
    [{ HTTP_HEADER_TIMEOUT_MS: '100000' }, 'HTTP_IDLE_TIMEOUT_MS must be >= HTTP_HEADER_TIMEOUT_MS (100000), got "95000"'],
    [{ WEB_CONCURRENCY: '0' }, 'WEB_CONCURRENCY must be an integer from 1 to 256, got "0"'],
    [{ TIMINGS_ENABLED: 'yes' }, 'TIMINGS_ENABLED must be true or false, got "yes"'],
    [{ TIMINGS_FLUSH_ON_EXIT: '1' }, 'TIMINGS_FLUSH_ON_EXIT must be true or false, got "1"'],
    [{ APP_FRAMEWORK: 'koa' }, 'APP_FRAMEWORK must be one of raw, express, got "koa"'],
    [{ DB_DRIVER: 'pg-native' }, 'DB_DRIVER must be one of native, js, got "pg-native"'],
    [{ VCAP_APPLICATION: '{' }, 'VCAP_APPLICATION is not valid JSON'],
    [{ CONTROL_TOKEN: 'x'.repeat(31) }, 'CONTROL_TOKEN must be 32 to 256 characters, each a letter, a digit or one of - . _ ~ + / = (got 31 characters)'],
    [{ CONTROL_TOKEN: 'x'.repeat(257) }, 'CONTROL_TOKEN must be 32 to 256 characters, each a letter, a digit or one of - . _ ~ + / = (got 257 characters)'],
    [{ CONTROL_TOKEN: `${'x'.repeat(31)} ` }, 'CONTROL_TOKEN must be 32 to 256 characters, each a letter, a digit or one of - . _ ~ + / = (got 32 characters)'],
    [{ CONTROL_TOKEN: `${'x'.repeat(31)}é` }, 'CONTROL_TOKEN must be 32 to 256 characters, each a letter, a digit or one of - . _ ~ + / = (got 32 characters)'],
    [{ LOCAL_DEV_NO_CONTROL_TOKEN: 'yes' }, 'LOCAL_DEV_NO_CONTROL_TOKEN must be true or false, got "yes"'],
    [{ DATABASE_URL: undefined }, 'DATABASE_URL is required when VCAP_SERVICES is absent'],
    [{ VCAP_SERVICES: 'nope' }, 'VCAP_SERVICES is not valid JSON'],
    [{ VCAP_SERVICES: '[]' }, 'VCAP_SERVICES must be a JSON object of service arrays'],
  ];
  for (const [env, message] of cases) {
    await t.test(message, () => {
      assert.throws(() => loadConfig({ ...base, ...env }), { message });
    });
  }
});

test('VCAP_SERVICES lookup', async (t) => {
  const cases = [
    {
      name: 'uri first, by tag',
      vcap: vcap({ name: 'node-db', label: 'csb-aws-postgresql', tags: ['postgres'], credentials: { uri: URL, hostname: 'ignored' } }),
      db: 'postgres://app:***@db.example:5432/app?sslmode=disable',
    },
    {
      name: 'hostname and port as a string',
      vcap: vcap({
        name: 'node-db',
        label: 'postgresql-db',
        tags: [],
        credentials: { hostname: 'h1', port: '6543', name: 'd1', username: 'u1', password: 'p1' },
      }),
      db: 'postgres://u1:***@h1:6543/d1?sslmode=disable',
    },
    {
      name: 'a9s style: host, dbname/user, numeric port',
      vcap: vcap({ name: 'pg', label: 'a9s-postgresql13', tags: ['sql'], credentials: { host: 'h2', port: 5433, dbname: 'd2', user: 'u2', password: 'p2' } }),
      db: 'postgres://u2:***@h2:5433/d2?sslmode=disable',
    },
    {
      name: 'database key, default port',
      vcap: vcap({ name: 'pg', label: 'x', tags: ['PostgreSQL'], credentials: { hostname: 'h3', database: 'd3', user: 'u3', password: 'p3' } }),
      db: 'postgres://u3:***@h3:5432/d3?sslmode=disable',
    },
    {
      name: 'by name (DB_SERVICE_NAME) over an earlier tagged binding',
      env: { DB_SERVICE_NAME: 'java-db' },
      vcap: vcap(
        { name: 'node-db', label: 'postgres', tags: ['postgres'], credentials: { uri: 'postgres://n:np@node/n' } },
        { name: 'java-db', label: 'postgres', tags: ['postgres'], credentials: { uri: 'postgres://j:jp@java/j' } },
      ),
      db: 'postgres://j:***@java:5432/j?sslmode=disable',
    },
    {
      name: 'by tag, skipping the results binding and non-postgres ones',
      vcap: vcap(results, { name: 'cache', label: 'redis', tags: ['redis'], credentials: { uri: 'redis://x' } }, { name: 'node-db', label: 'user-provided', tags: ['postgres'], credentials: { uri: 'postgres://n:np@node/n' } }),
      db: 'postgres://n:***@node:5432/n?sslmode=disable',
      results: 'postgres://r:***@res:5432/results?sslmode=disable',
    },
    {
      name: 'results binding under another name',
      env: { RESULTS_SERVICE_NAME: 'res2' },
      vcap: vcap({ ...results, name: 'res2' }, { name: 'node-db', label: 'postgres', credentials: { uri: 'postgres://n:np@node/n' } }),
      db: 'postgres://n:***@node:5432/n?sslmode=disable',
      results: 'postgres://r:***@res:5432/results?sslmode=disable',
    },
    {
      name: 'no results binding: RESULTS_DATABASE_URL is used',
      env: { RESULTS_DATABASE_URL: 'postgres://f:fp@fallback/f' },
      vcap: vcap({ name: 'node-db', label: 'postgres', credentials: { uri: 'postgres://n:np@node/n' } }),
      db: 'postgres://n:***@node:5432/n?sslmode=disable',
      results: 'postgres://f:***@fallback:5432/f?sslmode=disable',
    },
  ];
  for (const c of cases) {
    await t.test(c.name, () => {
      const config = loadConfig({ DATABASE_URL: 'postgres://not-used', CONTROL_TOKEN: TOKEN, ...c.env, VCAP_SERVICES: c.vcap });
      assert.equal(describeConnection(config.db), c.db);
      assert.equal(describeConnection(config.results), c.results ?? 'none');
    });
  }
});

test('VCAP_SERVICES errors name the variable', async (t) => {
  const nodeDb = { name: 'node-db', label: 'postgres', credentials: { uri: 'postgres://n:np@node/n' } };
  const cases = [
    [{ DB_SERVICE_NAME: 'missing-db' }, vcap(nodeDb), 'DB_SERVICE_NAME: no binding named "missing-db" in VCAP_SERVICES'],
    [{}, vcap(results), 'DB_SERVICE_NAME: not set and VCAP_SERVICES has no postgres binding (tag or label) besides the results one'],
    [{}, '{}', 'DB_SERVICE_NAME: not set and VCAP_SERVICES has no postgres binding (tag or label) besides the results one'],
    [{ RESULTS_SERVICE_NAME: 'nope' }, vcap(nodeDb), 'RESULTS_SERVICE_NAME: no binding named "nope" in VCAP_SERVICES'],
    [{}, vcap({ name: 'pg', label: 'postgres', credentials: { username: 'u' } }), 'VCAP_SERVICES binding "pg": credentials have no host (uri, jdbcUrl or hostname|host|hosts)'],
    [{}, vcap({ name: 'pg', label: 'postgres', credentials: { host: 'h', port: 'x', name: 'd', user: 'u', password: 'p' } }), 'VCAP_SERVICES binding "pg": port must be an integer from 1 to 65535, got "x"'],
  ];
  for (const [env, raw, message] of cases) {
    await t.test(message, () => {
      assert.throws(() => loadConfig({ CONTROL_TOKEN: TOKEN, ...env, VCAP_SERVICES: raw }), { message });
    });
  }
});

test('CONTROL_TOKEN: unset, the app starts closed unless LOCAL_DEV_NO_CONTROL_TOKEN=true; every allowed character and both length edges taken; never in the settings line', () => {
  for (const env of [{}, { CONTROL_TOKEN: '' }, { LOCAL_DEV_NO_CONTROL_TOKEN: 'false' }]) {
    const c = loadConfig({ DATABASE_URL: URL, ...env });
    assert.deepEqual([c.controlToken, c.controlOpen], [null, false], JSON.stringify(env));
    assert.match(describeConfig(c), / controlToken=none \(control endpoints closed\)$/);
  }
  const open = loadConfig({ DATABASE_URL: URL, LOCAL_DEV_NO_CONTROL_TOKEN: 'true' });
  assert.deepEqual([open.controlToken, open.controlOpen], [null, true]);
  const guarded = loadConfig({ ...base, LOCAL_DEV_NO_CONTROL_TOKEN: 'true' });
  assert.deepEqual([guarded.controlToken, guarded.controlOpen], [TOKEN, false], 'a token given still guards them');
  assert.throws(() => loadConfig({ ...base, LOCAL_DEV_NO_CONTROL_TOKEN: 'yes' }), { message: 'LOCAL_DEV_NO_CONTROL_TOKEN must be true or false, got "yes"' });
  for (const token of ['a'.repeat(32), 'Z'.repeat(256), 'AZaz09-._~+/=AZaz09-._~+/=AZaz09==']) {
    assert.equal(loadConfig({ ...base, CONTROL_TOKEN: token }).controlToken, token);
  }
  const line = describeConfig(loadConfig(base));
  assert.match(line, / controlToken=\*\*\*( |$)/);
  assert.ok(!line.includes(TOKEN));
  assert.match(describeConfig(open), / controlToken=none \(LOCAL_DEV_NO_CONTROL_TOKEN/);
});

test('node-app/settings.json is the settings spec contract/settings.json (the copy CF pushes)', () => {
  const spec = path.join(__dirname, '..', 'contract', 'settings.json');
  assert.equal(fs.readFileSync(path.join(__dirname, 'settings.json'), 'utf8'), fs.readFileSync(spec, 'utf8'));
});

test('every integer setting of the spec: default when unset, both edges accepted, one past either refused', () => {
  const spec = require('./settings.json').settings.filter((s) => s.type === 'integer' && s.apps !== 'java');
  const problems = [];
  for (const s of spec) {
    // A setting that must not be below another: that other at its minimum.
    const others = Object.fromEntries(spec.filter((o) => o.notBelow === s.name).map((o) => [o.name, String(o.max)]));
    const env = (v) => ({ ...base, ...others, ...(s.notBelow ? { [s.notBelow]: String(spec.find((o) => o.name === s.notBelow).min) } : {}), [s.name]: v });
    const key = Object.keys(loadConfig(base)).find((k) => loadConfig(env(String(s.min)))[k] === s.min && loadConfig(env(String(s.max)))[k] === s.max);
    if (key === undefined) { problems.push(`${s.name}: no config field takes ${s.min} and ${s.max}`); continue; }
    if (loadConfig(base)[key] !== s.default) problems.push(`${s.name}: default ${loadConfig(base)[key]}, spec ${s.default}`);
    for (const bad of [s.min - 1, s.max + 1]) {
      const message = `${s.name} must be an integer from ${s.min} to ${s.max}, got "${bad}"`;
      try { loadConfig(env(String(bad))); problems.push(`${s.name}=${bad} accepted`); } catch (err) { if (err.message !== message) problems.push(`${s.name}=${bad}: ${err.message}`); }
    }
  }
  assert.deepEqual(problems, []);
});

test('APP_NAME: explicit, else VCAP_APPLICATION.application_name, else node-app', () => {
  const vcapApp = JSON.stringify({ application_name: 'node-app-blue' });
  assert.equal(loadConfig({ ...base, APP_NAME: 'mine', VCAP_APPLICATION: vcapApp }).appName, 'mine');
  assert.equal(loadConfig({ ...base, VCAP_APPLICATION: vcapApp }).appName, 'node-app-blue');
  assert.equal(loadConfig({ ...base, VCAP_APPLICATION: '{}' }).appName, 'node-app');
});

test('the settings line masks passwords', () => {
  const line = describeConfig(
    loadConfig({
      CONTROL_TOKEN: TOKEN,
      VCAP_SERVICES: vcap(results, { name: 'node-db', label: 'postgres', credentials: { hostname: 'h', name: 'd', username: 'u', password: 'hunter2' } }),
    }),
  );
  assert.match(line, /db=postgres:\/\/u:\*\*\*@h:5432\//);
  assert.match(line, /results=postgres:\/\/r:\*\*\*@res:5432\/results/);
  assert.doesNotMatch(line, /hunter2|rpw/);
});

test('server.js exits 1 with one line naming a bad variable', () => {
  const r = spawnSync(process.execPath, [path.join(__dirname, 'server.js')], {
    env: { PATH: process.env.PATH, DATABASE_URL: URL, CONTROL_TOKEN: TOKEN, DB_POOL_SIZE: 'abc' },
    encoding: 'utf8',
  });
  assert.equal(r.status, 1);
  assert.equal(r.stderr, 'node-app: DB_POOL_SIZE must be an integer from 1 to 1000, got "abc"\n');
  assert.equal(r.stdout, '');
});
