// results-url.test.js — the report's and the experiments' results-database URL means what it means to libpq and psql:
// sslmode=require encrypts without verifying, verify-ca checks the chain against
// sslrootcert, disable is plain. Against a TLS cluster of its own (pg-cluster.js --tls).
'use strict';
const { test, before, after } = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { connect } = require('./results-url.js');
const { portRange, randomFreePort } = require('../../lib/ports');

const pgCluster = require('../../local-platform/lib/pg-cluster.js');
let dir;
let url;

before(async () => {
  const port = await randomFreePort(...portRange('cf'));
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cfscale-report-tls-'));
  fs.chmodSync(dir, 0o755);
  url = pgCluster.start(dir, { port, tls: true });
});

after(() => {
  if (dir) pgCluster.stop(dir);
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

async function sslOf(query) {
  const c = await connect(`${url}?${query}`);
  try {
    return (await c.query('SELECT ssl FROM pg_stat_ssl WHERE pid = pg_backend_pid()')).rows[0].ssl;
  } finally {
    await c.end();
  }
}

test('sslmode=require encrypts without verifying the certificate', async () => {
  assert.equal(await sslOf('sslmode=require'), true);
});

test('sslmode=disable is a plain connection', async () => {
  assert.equal(await sslOf('sslmode=disable'), false);
});

test('sslmode=verify-ca checks the chain against sslrootcert', async () => {
  assert.equal(await sslOf(`sslmode=verify-ca&sslrootcert=${encodeURIComponent(path.join(dir, 'tls/ca.crt'))}`), true);
  await assert.rejects(sslOf('sslmode=verify-full'));
});
