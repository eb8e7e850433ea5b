'use strict';
// bindings.test.js — the broker table (contract/bindings/*.json): the loadgen finds each
// document's binding as its results database and connects with the URL it builds, the
// way its control plane and sink do (pg with connectionString), to a real PostgreSQL
// serving TLS, encrypted exactly as the broker asks; a document missing a field stops
// the worker with one line naming the service and the field.
const test = require('node:test');
const assert = require('node:assert');
const pg = require('pg');
const { loadConfig } = require('../lib/config');
const table = require('../../contract/bindings/table.js');

let cluster;
test.before(() => { cluster = table.tlsCluster(); });
test.after(() => cluster.stop());

for (const c of table.loadCases()) {
  test(`${c.file}: ${c.broker}`, async () => {
    const env = { VCAP_SERVICES: table.render(c, cluster.at) };
    if (c.expect.error) {
      assert.throws(() => loadConfig(env), (err) => {
        assert.doesNotMatch(err.message, /\n/);
        for (const word of c.expect.error) assert.ok(err.message.includes(word), `"${err.message}" names ${word}`);
        return true;
      });
      return;
    }
    const { resultsUrl } = loadConfig(env);
    assert.strictEqual(new URL(resultsUrl).searchParams.get('sslmode'), c.expect.sslmode);
    const client = new pg.Client({ connectionString: resultsUrl, connectionTimeoutMillis: 5000 });
    try {
      if (c.expect.connectFails) {
        await assert.rejects(client.connect());
        return;
      }
      await client.connect();
      const { rows } = await client.query('SELECT ssl FROM pg_stat_ssl WHERE pid = pg_backend_pid()');
      assert.strictEqual(rows[0].ssl, c.expect.encrypted);
    } finally {
      await client.end().catch(() => {});
    }
  });
}
