'use strict';
// tunnel-info.js on v3 app env documents: binding look-up and credential variants
// (docs/cf-platform.md §4, docs/bindings.md), run as the real CLI.

const test = require('node:test');
const assert = require('node:assert/strict');
const { spawnSync } = require('node:child_process');
const path = require('node:path');

const BIN = path.join(__dirname, 'tunnel-info.js');
const CA = '-----BEGIN CERTIFICATE-----\nMIIBtest\n-----END CERTIFICATE-----\n';

function run(doc, args = ['--local-port', '15432']) {
  const r = spawnSync(process.execPath, [BIN, ...args], { input: typeof doc === 'string' ? doc : JSON.stringify(doc), encoding: 'utf8' });
  return { code: r.status, out: r.stdout ? r.stdout.trim() : '', err: r.stderr.trim() };
}

function envDoc(bindings, ev = { CHISEL_AUTH: 'tunnel:pw', CHISEL_KEY: 'seed' }) {
  return { environment_variables: ev, staging_env_json: {}, running_env_json: {}, application_env_json: {},
    system_env_json: { VCAP_SERVICES: bindings } };
}

test('tunnel info from the app env', async (t) => {
  const cases = [
    { name: 'uri with sslmode', bindings: { 'csb-aws-postgresql': [{ name: 'results-db', credentials: { uri: 'postgres://u:p%40ss@db.aws.example:5432/results?sslmode=require' } }] },
      want: { auth: 'tunnel:pw', key: 'seed', target: 'db.aws.example:5432', url: 'postgres://u:p%40ss@127.0.0.1:15432/results?sslmode=require' } },
    { name: 'verify-full checks the chain only through the tunnel', bindings: { p: [{ name: 'results-db', credentials: { uri: 'postgres://u:p@db.example/r?sslmode=verify-full', sslrootcert: CA } }] },
      want: { auth: 'tunnel:pw', key: 'seed', target: 'db.example:5432', url: /^postgres:\/\/u:p@127\.0\.0\.1:15432\/r\?sslmode=verify-ca&sslrootcert=.*cfscale-ca-[0-9a-f]+\.pem$/ } },
    { name: 'docs example: hostname and string port', bindings: { postgres: [{ name: 'results-db', credentials: { hostname: 'h', port: '6000', name: 'r', username: 'u', password: 'p w' } }] },
      want: { auth: 'tunnel:pw', key: 'seed', target: 'h:6000', url: 'postgres://u:p%20w@127.0.0.1:15432/r?sslmode=disable' } },
    { name: 'a9s: host, numeric port, dbname', bindings: { a9s: [{ name: 'results-db', credentials: { host: 'h2', port: 5433, dbname: 'd', user: 'u', password: 'p' } }] },
      want: { auth: 'tunnel:pw', key: 'seed', target: 'h2:5433', url: 'postgres://u:p@127.0.0.1:15432/d?sslmode=disable' } },
    { name: 'by instance name when the binding has no name', bindings: { p: [{ instance_name: 'results-db', credentials: { uri: 'postgres://u:p@h3/x' } }] },
      want: { auth: 'tunnel:pw', key: 'seed', target: 'h3:5432', url: 'postgres://u:p@127.0.0.1:15432/x?sslmode=disable' } },
    { name: 'the other database is not taken', bindings: { p: [{ name: 'node-db', credentials: { uri: 'postgres://u:p@h/x' } }] },
      err: /no binding named results-db/ },
    { name: 'no bindings at all', bindings: undefined, err: /no binding named results-db/ },
    { name: 'no host', bindings: { p: [{ name: 'results-db', credentials: { port: '1' } }] }, err: /binding "results-db": credentials have no host/ },
  ];
  for (const c of cases) {
    await t.test(c.name, () => {
      const r = run(envDoc(c.bindings));
      if (c.err) {
        assert.equal(r.code, 1);
        assert.match(r.err, c.err);
      } else {
        assert.equal(r.code, 0, r.err);
        const got = JSON.parse(r.out);
        if (c.want.url instanceof RegExp) {
          assert.match(got.url, c.want.url);
          assert.deepEqual({ ...got, url: 0 }, { ...c.want, url: 0 });
        } else {
          assert.deepEqual(got, c.want);
        }
      }
    });
  }
});

test('missing credentials and bad input: one line, exit 1', async (t) => {
  const b = { p: [{ name: 'results-db', credentials: { uri: 'postgres://u:p@h/x' } }] };
  const cases = [
    { name: 'no CHISEL_AUTH', doc: envDoc(b, { CHISEL_KEY: 'k' }), err: /no CHISEL_AUTH/ },
    { name: 'no CHISEL_KEY', doc: envDoc(b, { CHISEL_AUTH: 'a:b' }), err: /no CHISEL_KEY/ },
    { name: 'not JSON', doc: 'Getting env variables for app chisel...', err: /not the JSON/ },
    { name: 'bad local port', doc: envDoc(b), args: ['--local-port', '0'], err: /--local-port/ },
    { name: 'unknown flag', doc: envDoc(b), args: ['--nope'], err: /unknown option/ },
  ];
  for (const c of cases) {
    await t.test(c.name, () => {
      const r = run(c.doc, c.args);
      assert.equal(r.code, 1);
      assert.match(r.err, c.err);
      assert.equal(r.err.split('\n').length, 1);
    });
  }
});
