'use strict';
// credentials.test.js — lib/credentials.js: a PostgreSQL URL split for a tool (argv without
// the password, PGPASSWORD in the environment; what psql then does with them), and lines with
// a URL's password masked.
const test = require('node:test');
const assert = require('node:assert/strict');
const { pgTool, maskCredentials } = require('../lib/credentials');

test('pgTool: the URL without its password for argv, the password (decoded) as PGPASSWORD', () => {
  assert.deepEqual(pgTool('postgres://svc_db:p%40ss%2Fw@127.0.0.1:54320/results-db?sslmode=require'),
    { conninfo: 'postgres://svc_db@127.0.0.1:54320/results-db?sslmode=require', env: { PGPASSWORD: 'p@ss/w' } });
  assert.deepEqual(pgTool('postgresql://127.0.0.1/x'), { conninfo: 'postgresql://127.0.0.1/x', env: {} });
});

test('maskCredentials: every scheme://user:password@ masked, the rest as it was', () => {
  assert.equal(maskCredentials('node ingest.js --db postgres://svc_results_db:s3cr%2Ft@127.0.0.1:54320/results-db --round 1'),
    'node ingest.js --db postgres://svc_results_db:***@127.0.0.1:54320/results-db --round 1');
  assert.equal(maskCredentials('a https://u:p@h/x and postgres://v:q@h2:1/y'), 'a https://u:***@h/x and postgres://v:***@h2:1/y');
  for (const plain of ['postgres://u@h/db', 'http://127.0.0.1:8889/v3', 'mailto:a@b', 'user:pass']) assert.equal(maskCredentials(plain), plain);
});
