'use strict';
// cf-local-tunnel.js — tunnel.sh on cf in cf-local.test.js's world: the chisel app from
// manifests/chisel.yml (built from chisel/ by the platform's go build), its route on the local
// domain. The API is the foundation stand-in: the client dials https://ROUTE, which nothing
// here resolves: the proof fails (exit 2), which is what these cases need; the tunnel carrying
// traffic is journey.e2e.test.js's (through the router, the local API as a cf target) and
// tunnel.e2e.test.js's (local).
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const { start, until, alive, lines, sleep } = require('./cf-local-scripts');

/** The tunnel's vars file, state directory and call logs in world w; its runs fill in first and unbound. */
function tunnelFixture(w) {
  const tunnel = {
    vars: path.join(w.dir, 'tunnel-vars.yml'), state: path.join(w.dir, 'tunnel'), localPort: '',
    // The runs that wait long for the cf CLI's polls run beside other cases, their cf calls in a log of their own.
    first: null, unbound: null, log: (name) => path.join(w.dir, `tunnel-calls-${name}.log`),
  };
  tunnel.env = (extra = {}) => w.env({
    CFSCALE_VARS_FILE: tunnel.vars, CFSCALE_TUNNEL_DIR: tunnel.state, CFSCALE_TUNNEL_TIMEOUT_SEC: '2', ...extra,
  });
  return tunnel;
}

/** ctx: { w, tunnel, run } (run: cf-local-scripts.js scriptsIn(w).run) */
function tunnelTests({ w, tunnel, run }) {
  test('tunnel.sh --platform cf: the cf calls, and what stops it', async (t) => {
    const { vars, state } = tunnel;
    const run1 = () => run('tunnel.sh', ['--platform', 'cf', '--local-port', tunnel.localPort], tunnel.env());
    const failsProof = (res) => {
      assert.equal(res.code, 2, res.stderr);
      assert.match(res.stderr, /the tunnel does not carry traffic: psql SELECT 1 failed/);
      assert.ok(!fs.existsSync(state), 'state removed, client stopped');
    };
    const guid = await w.guid('chisel');
    await t.test('absent: pushed (its manifest binds results-db), looked up by cf curl; exit 2 when psql cannot pass, nothing left', () => {
      failsProof(tunnel.first);
      assert.deepEqual(fs.readFileSync(tunnel.log('first'), 'utf8').trim().split('\n'), [
        'oauth-token',
        'app chisel --guid',
        `push -f manifests/chisel.yml --vars-file ${vars}`,
        'app chisel --guid',
        `curl /v3/apps/${guid}/env`,
        `curl /v3/apps/${guid}/routes`,
        'curl /v3/info',
      ]);
    });
    await t.test('unbound: bound and restarted, its env looked up again', async () => {
      failsProof(await tunnel.unbound);
      assert.deepEqual(fs.readFileSync(tunnel.log('unbound'), 'utf8').trim().split('\n'), [
        'oauth-token',
        'app chisel --guid',
        `curl /v3/apps/${guid}/env`,
        'bind-service chisel results-db',
        'restart chisel',
        `curl /v3/apps/${guid}/env`,
        `curl /v3/apps/${guid}/routes`,
        'curl /v3/info',
      ]);
    });
    await t.test('regression: a SIGTERM while the proof waits stops the client this run started (exit 143)', async () => {
      const c = start('tunnel.sh', ['--platform', 'cf', '--local-port', tunnel.localPort], tunnel.env({ CFSCALE_TUNNEL_TIMEOUT_SEC: '60' }));
      const pidFile = path.join(state, 'client.pid');
      await until('the client', () => fs.existsSync(pidFile) && fs.readFileSync(pidFile, 'utf8').trim() !== '');
      await sleep(300); // inside the proof's wait
      const clientPid = Number(fs.readFileSync(pidFile, 'utf8'));
      c.child.kill('SIGTERM');
      const res = await c.done;
      assert.ok(res.code === 143 || res.signal === 'SIGTERM', `exit ${res.code} ${res.signal}: ${res.stderr}`);
      assert.ok(!alive(clientPid), 'the chisel client still runs');
      assert.ok(!fs.existsSync(state), 'state removed');
    });
    const lacks = [
      ['no CHISEL_AUTH (a failure inside tunnel-info)', ['unset-env', 'chisel', 'CHISEL_AUTH'], ['set-env', 'chisel', 'CHISEL_AUTH', 'tunnel:CHANGE-ME'],
        /^tunnel-info: the chisel app has no CHISEL_AUTH/],
      ['no route', ['unmap-route', 'chisel', 'localhost', '--hostname', 'chisel'], ['map-route', 'chisel', 'localhost', '--hostname', 'chisel'],
        /^tunnel: chisel has no route: cf map-route chisel DOMAIN --hostname HOST \(chisel-host of the vars file\)$/],
    ];
    for (const [name, lack, restore, msg] of lacks) {
      await t.test(`what the app lacks ends the run with one line, exit 1, no state left: ${name}`, async () => {
        await w.cf(...lack);
        try {
          const res = run1();
          assert.equal(res.code, 1, res.stderr);
          assert.match(res.stderr.trim(), msg);
          assert.equal(lines(res.stderr).length, 1, res.stderr);
          assert.equal(res.stdout, '');
          assert.ok(!fs.existsSync(state), 'state removed');
        } finally {
          await w.cf(...restore);
        }
      });
    }
  });
}

module.exports = { tunnelFixture, tunnelTests };
