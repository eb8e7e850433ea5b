// results-url.test.js — the report's and the experiments' results-database URL means what it means to libpq and psql:
// sslmode=require encrypts without verifying, verify-ca checks the chain against
// sslrootcert, disable is plain. Against a TLS cluster of its own (scripts/pg-cluster.sh --tls).
'use strict';
const { test, before, after } = require('node:test');
const assert = require('node:assert/strict');
const { execFileSync } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { connect, REPO_ROOT } = require('./results-url.js');
const { portRange, randomFreePort } = require('../../lib/ports');

const PG_CLUSTER = path.join(REPO_ROOT, 'scripts/pg-cluster.sh');
let dir;
let url;

before(async () => {
  const port = await randomFreePort(...portRange('cf'));
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cfscale-report-tls-'));
  fs.chmodSync(dir, 0o755);
  url = execFileSync(PG_CLUSTER, ['start', '--dir', dir, '--port', String(port), '--tls'], { encoding: 'utf8' }).trim();
});

after(() => {
  if (dir) execFileSync(PG_CLUSTER, ['stop', '--dir', dir]);
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
