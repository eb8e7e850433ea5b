'use strict';
// bindings.test.js — the broker table (contract/bindings/*.json): node-app picks each
// document's binding and connects to a real PostgreSQL serving TLS with both drivers
// (pg-native and pure JS), encrypted exactly as the broker asks; a document missing a
// field stops start-up with one line naming the service and the field.

const test = require('node:test');
const assert = require('node:assert/strict');
const { loadConfig } = require('./config');
const { openAdStore } = require('./ad-store');
const table = require('../contract/bindings/table.js');

const DRIVERS = [{ name: 'native', native: true }, { name: 'javascript', native: false }];
const newCtx = () => ({ poolWaitUs: 0, dbUs: 0 });

let cluster;

test.before(() => {
  cluster = table.tlsCluster();
});

test.after(() => cluster.stop());

for (const c of table.loadCases()) {
  test(`${c.file}: ${c.broker}`, async (t) => {
    const env = { VCAP_SERVICES: table.render(c, cluster.at), CONTROL_TOKEN: 'x'.repeat(32) };
    if (c.expect.error) {
      assert.throws(() => loadConfig(env), (err) => {
        assert.doesNotMatch(err.message, /\n/);
        for (const word of c.expect.error) assert.ok(err.message.includes(word), `"${err.message}" names ${word}`);
        return true;
      });
      return;
    }
    const config = loadConfig(env);
    assert.equal(config.db.sslmode, c.expect.sslmode);
    for (const { name, native } of DRIVERS) {
      await t.test(name, async () => {
        const db = openAdStore({ ...config, dbPoolSize: 1 }, { logDriver: false, native });
        try {
          const q = db.query(newCtx(), { text: 'SELECT ssl FROM pg_stat_ssl WHERE pid = pg_backend_pid()' });
          if (c.expect.connectFails) {
            await assert.rejects(q);
            return;
          }
          const { rows } = await q;
          assert.equal(rows[0].ssl, c.expect.encrypted);
        } finally {
          await db.end();
        }
      });
    }
  });
}
