'use strict';
// bindings.test.js — the scripts' side of the broker table (contract/bindings/*.json):
// tunnel-info.js turns each document into the tunnel's URL, and ops/results-db.js connects with
// it to a real PostgreSQL serving TLS (the test cluster stands in for the far end of the
// tunnel), encrypted as the broker asks. Also: the copies of bindings.js are one file.
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const { spawnSync } = require('node:child_process');
const { connect } = require('../ops/results-db');
const table = require('../../contract/bindings/table');

const ROOT = path.join(__dirname, '..', '..');
const COPIES = ['node-app/bindings.js', 'loadgen/lib/bindings.js'];

let cluster;
test.before(() => { cluster = table.tlsCluster(); });
test.after(() => cluster.stop());

test('bindings.js is one file: node-app and the loadgen hold its copy, stamped', () => {
  const source = fs.readFileSync(path.join(ROOT, 'lib/bindings.js'), 'utf8');
  for (const f of COPIES) {
    const text = fs.readFileSync(path.join(ROOT, f), 'utf8');
    assert.ok(text === `// generated from lib/bindings.js by node contract/readme-tables.js --write: edit lib/bindings.js\n${source}`,
      `${f} is not lib/bindings.js stamped: run node contract/readme-tables.js --write`);
  }
});

function tunnelInfo(vcap, service, localPort) {
  const doc = { environment_variables: { CHISEL_AUTH: 'tunnel:pw', CHISEL_KEY: 'seed' }, system_env_json: { VCAP_SERVICES: JSON.parse(vcap) } };
  const r = spawnSync(process.execPath, [path.join(__dirname, 'tunnel-info.js'), '--service', service, '--local-port', String(localPort)],
    { input: JSON.stringify(doc), encoding: 'utf8' });
  return { code: r.status, out: r.stdout.trim(), err: r.stderr.trim() };
}

for (const c of table.loadCases()) {
  test(`${c.file}: ${c.broker}`, async () => {
    const r = tunnelInfo(table.render(c, cluster.at), c.service, cluster.at.port);
    if (c.expect.error) {
      assert.equal(r.code, 1);
      assert.equal(r.err.split('\n').length, 1);
      for (const word of c.expect.error) assert.ok(r.err.includes(word), `"${r.err}" names ${word}`);
      return;
    }
    assert.equal(r.code, 0, r.err);
    const { url, target } = JSON.parse(r.out);
    assert.match(target, new RegExp(`:${cluster.at.port}$`));
    // Through the tunnel the host is 127.0.0.1: verify-full checks the chain only (tunnel-info.js).
    const sslmode = c.expect.sslmode === 'verify-full' ? 'verify-ca' : c.expect.sslmode;
    assert.equal(new URL(url).searchParams.get('sslmode'), sslmode);
    // A verify-full case that fails on the host name connects through the tunnel; others still fail.
    const hostOnly = c.expect.sslmode === 'verify-full';
    if (c.expect.connectFails && !hostOnly) {
      await assert.rejects(connect(url, 'bindings-test'));
      return;
    }
    const client = await connect(url, 'bindings-test');
    try {
      const { rows } = await client.query('SELECT ssl FROM pg_stat_ssl WHERE pid = pg_backend_pid()');
      assert.equal(rows[0].ssl, c.expect.connectFails ? true : c.expect.encrypted);
    } finally {
      await client.end();
    }
  });
}

test('sslmode as the broker asks: explicit first, then CA, require_ssl or jdbcUrl ssl=true, else disable', async (t) => {
  const b = require('../../lib/bindings');
  const CA = '-----BEGIN CERTIFICATE-----\nx\n-----END CERTIFICATE-----\n';
  const base = { uri: 'postgres://u:p@h/d' };
  const cases = [
    ['nothing asked', base, 'disable'],
    ['uri sslmode', { uri: 'postgres://u:p@h/d?sslmode=require' }, 'require'],
    ['uri sslmode over credentials.sslmode', { uri: 'postgres://u:p@h/d?sslmode=disable', sslmode: 'require' }, 'disable'],
    ['credentials.sslmode', { ...base, sslmode: 'require' }, 'require'],
    ['jdbcUrl sslmode', { ...base, jdbcUrl: 'jdbc:postgresql://h/d?sslmode=require' }, 'require'],
    ['require_ssl', { ...base, require_ssl: true }, 'require'],
    ['jdbcUrl ssl=true', { ...base, jdbcUrl: 'jdbc:postgresql://h/d?ssl=true' }, 'require'],
    ['a CA alone', { ...base, sslrootcert: CA }, 'verify-ca'],
    ['require with a CA verifies the chain (libpq)', { ...base, sslmode: 'require', cacrt: CA }, 'verify-ca'],
    ['tls.ca', { uri: 'postgres://u:p@h/d?sslmode=verify-full', tls: { ca: CA } }, 'verify-full'],
  ];
  for (const [name, credentials, want] of cases) {
    await t.test(name, () => assert.equal(b.connectionFromBinding({ name: 'x', credentials }).sslmode, want));
  }
  assert.throws(() => b.connectionFromBinding({ name: 'x', credentials: { ...base, sslmode: 'verify-full' } }),
    { message: 'VCAP_SERVICES binding "x": sslmode verify-full needs a CA certificate (sslrootcert) in the credentials' });
  assert.throws(() => b.connectionFromBinding({ name: 'x', credentials: { ...base, sslmode: 'strict' } }),
    /sslmode must be one of disable, allow, prefer, require, verify-ca, verify-full, got "strict"/);
  const js = b.pgConfig({ host: 'h', port: 1, database: 'd', user: 'u', password: 'p', sslmode: 'require', ca: null });
  assert.deepEqual(js.ssl, { rejectUnauthorized: false });
  const native = b.pgConfig({ host: 'h', port: 1, database: 'd', user: 'u', password: 'p', sslmode: 'disable', ca: null }, { native: true });
  assert.deepEqual(native.ssl, { sslmode: 'disable' });
});

test('client certificate: sslcert with sslkey presented by both drivers and in the URL; one alone is not', () => {
  const b = require('../../lib/bindings');
  const CERT = '-----BEGIN CERTIFICATE-----\nc\n-----END CERTIFICATE-----\n';
  const KEY = '-----BEGIN RSA PRIVATE KEY-----\nk\n-----END RSA PRIVATE KEY-----\n';
  const conn = b.connectionFromBinding({ name: 'x', credentials: { uri: 'postgres://u:p@h/d?sslmode=require', sslcert: CERT, sslkey: KEY } });
  assert.equal(conn.cert, CERT);
  assert.equal(conn.key, KEY);
  assert.deepEqual(b.pgConfig(conn).ssl, { rejectUnauthorized: false, cert: CERT, key: KEY });
  const native = b.pgConfig(conn, { native: true }).ssl;
  assert.equal(fs.readFileSync(native.sslkey, 'utf8'), KEY);
  assert.equal(fs.statSync(native.sslkey).mode & 0o777, 0o600, 'libpq refuses a key others can read');
  assert.equal(fs.readFileSync(native.sslcert, 'utf8'), CERT);
  const url = new URL(b.toUrl(conn));
  assert.equal(url.searchParams.get('sslkey'), native.sslkey);
  const back = b.connectionFromUrl(b.toUrl(conn), 'DATABASE_URL');
  assert.deepEqual([back.cert, back.key], [CERT, KEY]);
  assert.match(b.describeConnection(conn), /\(client certificate\)$/);
  const certOnly = b.connectionFromBinding({ name: 'x', credentials: { uri: 'postgres://u:p@h/d?sslmode=require', sslcert: CERT } });
  assert.deepEqual([certOnly.cert, certOnly.key], [null, null]);
  assert.throws(() => b.connectionFromUrl(`postgres://u@h/d?sslcert=${encodeURIComponent(native.sslcert)}`, 'DATABASE_URL'),
    { message: 'DATABASE_URL: sslcert and sslkey go together' });
});

test('several hosts: hosts gives the first; a uri or jdbcUrl naming several is refused with one line', () => {
  const b = require('../../lib/bindings');
  const fields = { port: 5432, name: 'd', username: 'u', password: 'p' };
  assert.equal(b.connectionFromBinding({ name: 'x', credentials: { ...fields, hosts: ['pg-0', 'pg-1'] } }).host, 'pg-0');
  assert.equal(b.connectionFromBinding({ name: 'x', credentials: { ...fields, host: 'master', hosts: ['pg-0', 'pg-1'] } }).host, 'master');
  for (const [key, url] of [['uri', 'postgres://u:p@h1:5432,h2:5433/db'], ['jdbcUrl', 'jdbc:postgresql://h1:5432,h2:5433/db?user=u&password=p']]) {
    assert.throws(() => b.connectionFromBinding({ name: 'm', credentials: { [key]: url } }), {
      message: `VCAP_SERVICES binding "m": credentials.${key} names several hosts (h1:5432,h2:5433); cfscale connects to one: give one host, or hosts (the first is used)`,
    });
  }
  assert.equal(b.connectionFromBinding({ name: 'x', credentials: { uri: 'postgres://u:p@h/d?options=a,b' } }).host, 'h');
});
