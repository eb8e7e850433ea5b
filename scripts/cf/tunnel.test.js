'use strict';
// scripts/tunnel.sh without a platform: arguments, --stop with nothing running, and the
// exact commands --dry-run prints (it runs none: no cf needed). Its cf calls on cf, and what
// the chisel app may lack: test/cf-local.test.js.

const test = require('node:test');
const assert = require('node:assert/strict');
const { spawnSync } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { processAlive } = require('../../lib/process-checks');

const TUNNEL = path.resolve(__dirname, '..', 'tunnel.sh');

function run(args, env = {}) {
  const r = spawnSync(TUNNEL, args, { encoding: 'utf8', env: { ...process.env, ...env } });
  return { code: r.status, out: r.stdout, err: r.stderr.trim() };
}

test('bad arguments: one line, exit 1', async (t) => {
  const cases = [
    [['--local-port', 'x'], /--local-port must be a port number, got "x"/],
    [['--local-port', '70000'], /--local-port must be a port number/],
    [['--local-port'], /--local-port needs a value/],
    [['--nope'], /unknown option: --nope/],
    [['--platform', 'k8s', '--dry-run'], /--platform must be local or cf/],
  ];
  for (const [args, msg] of cases) {
    await t.test(args.join(' '), () => {
      const r = run(args);
      assert.equal(r.code, 1);
      assert.match(r.err, msg);
      assert.equal(r.err.split('\n').length, 1);
    });
  }
});

test('--stop with no tunnel is fine', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cfscale-cf-tunnel-'));
  const r = run(['--stop'], { CFSCALE_TUNNEL_DIR: path.join(dir, 'none') });
  fs.rmSync(dir, { recursive: true, force: true });
  assert.equal(r.code, 0);
  assert.match(r.err, /no tunnel running/);
});

/** A CF_HOME whose cf config has SSLDisabled as given (undefined: no config at all). */
function cfHome(sslDisabled) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cfscale-cf-tunnel-home-'));
  if (sslDisabled !== undefined) {
    fs.mkdirSync(path.join(dir, '.cf'));
    fs.writeFileSync(path.join(dir, '.cf/config.json'), JSON.stringify({ SSLDisabled: sslDisabled }));
  }
  test.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  return dir;
}

test('--dry-run for cf prints the exact commands and runs none', () => {
  const r = run(['--platform', 'cf', '--dry-run', '--local-port', '15999'], { PATH: `/nonexistent:${process.env.PATH}`, CF_HOME: cfHome() });
  assert.equal(r.code, 0, r.err);
  const cf = r.out.split('\n').filter((l) => l.startsWith('cf '));
  assert.deepEqual(cf, [
    'cf app chisel --guid',
    'cf push -f manifests/chisel.yml --vars-file manifests/vars.yml',
    'cf bind-service chisel results-db',
    'cf restart chisel',
    'cf curl /v3/apps/GUID/env',
    'cf curl /v3/apps/GUID/routes',
  ]);
  assert.match(r.out, /chisel client --fingerprint FINGERPRINT --keepalive 25s https:\/\/ROUTE 127\.0\.0\.1:15999:DBHOST:DBPORT/);
  assert.doesNotMatch(r.out, /--auth/, 'the password never goes on the command line');
});

test('--skip-ssl-validation: the chisel client skips TLS verification (--tls-skip-verify); default: the cf CLI\'s SSLDisabled', async (t) => {
  const CLIENT = 'AUTH=USER:PASS .tools/bin/chisel client --fingerprint FINGERPRINT --keepalive 25s';
  const cases = [
    ['the flag (the cf CLI verifies: the API\'s certificate is valid)', ['--skip-ssl-validation'], false, `${CLIENT} --tls-skip-verify https://ROUTE 127.0.0.1:15999:DBHOST:DBPORT`],
    ['SSLDisabled in $CF_HOME/.cf/config.json', [], true, `${CLIENT} --tls-skip-verify https://ROUTE 127.0.0.1:15999:DBHOST:DBPORT`],
    ['neither', [], false, `${CLIENT} https://ROUTE 127.0.0.1:15999:DBHOST:DBPORT`],
  ];
  for (const [name, args, ssl, want] of cases) {
    await t.test(name, () => {
      const r = run(['--platform', 'cf', '--dry-run', '--local-port', '15999', ...args], { CF_HOME: cfHome(ssl) });
      assert.equal(r.code, 0, r.err);
      assert.deepEqual(r.out.split('\n').filter((l) => l.includes('chisel client')), [want]);
    });
  }
});

test('regression: a server left by a run that died is stopped by the next run', async () => {
  const net = require('node:net');
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cfscale-cf-tunnel-'));
  const state = path.join(dir, 'tunnel');
  fs.mkdirSync(state);
  // an orphan (not our child: a zombie of ours would look alive to kill -0)
  const stale = { pid: Number(spawnSync('sh', ['-c', 'sleep 60 >/dev/null 2>&1 & echo $!'], { encoding: 'utf8' }).stdout) };
  fs.writeFileSync(path.join(state, 'server.pid'), String(stale.pid));
  const busy = net.createServer().listen(0, '127.0.0.1');
  await new Promise((r) => busy.once('listening', r));
  try {
    const r = run(['--platform', 'local', '--local-port', String(busy.address().port)], { CFSCALE_TUNNEL_DIR: state });
    assert.equal(r.code, 1);
    assert.match(r.err, /is in use: pick another with --local-port/);
    assert.match(r.err, new RegExp(`stopped pid ${stale.pid} \\(server\\)`));
    assert.ok(!processAlive(stale.pid), `pid ${stale.pid} still runs`);
    assert.ok(!fs.existsSync(state), 'state removed');
  } finally {
    busy.close();
    try { process.kill(stale.pid); } catch { /* gone */ }
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('--help prints the help of tunnel.sh on stdout, exit 0', () => {
  const r = run(['--help']);
  assert.equal(r.code, 0, r.err);
  assert.match(r.out, /^Usage: scripts\/tunnel\.sh \[--platform local\|cf\] \[--local-port N\] \[--skip-ssl-validation\] \[--dry-run\]$/m);
  assert.match(r.out, /Exit: 0 ok, 1 usage\/configuration, 2 the tunnel does not carry traffic/);
  assert.doesNotMatch(r.out, /set -euo|exec node/);
});

// platform-ports: no platform starts in this file (DRY_RUN, an empty CFSCALE_HOME).
test('DRY_RUN=1 for local prints the exact commands and runs none', () => {
  const r = run(['--platform', 'local', '--local-port', '15998'], { DRY_RUN: '1', CFSCALE_HOME: '', PATH: `/nonexistent:${process.env.PATH}` });
  assert.equal(r.code, 0, r.err);
  assert.deepEqual(r.out.trim().split('\n'), [
    'scripts/cfl up',
    'scripts/cfl login',
    'cf service-key results-db cfscale-scripts --guid',
    '# when the key is missing: cf create-service-key results-db cfscale-scripts',
    'cf curl /v3/service_credential_bindings/GUID/details',
    'PORT=PORT HOST=127.0.0.1 CHISEL_AUTH=tunnel:RANDOM CHISEL_KEY=RANDOM VCAP_SERVICES=\'{"postgres":[{"name":"results-db","credentials":{"uri":"URL"}}]}\' .tools/bin/chisel-server',
    'AUTH=tunnel:RANDOM .tools/bin/chisel client --fingerprint FINGERPRINT --keepalive 25s http://127.0.0.1:PORT 127.0.0.1:15998:DBHOST:DBPORT',
    "psql postgres://DBUSER:DBPASS@127.0.0.1:15998/DBNAME -Atqc 'SELECT 1'",
  ]);
});

test('regression: an empty or garbled pid file is no process (kill(0) would signal our own group)', async (t) => {
  for (const content of ['', '0', '-1', 'abc']) {
    await t.test(JSON.stringify(content), () => {
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cfscale-port-tunnel-'));
      const state = path.join(dir, 'tunnel');
      fs.mkdirSync(state);
      fs.writeFileSync(path.join(state, 'client.pid'), content);
      fs.writeFileSync(path.join(state, 'server.pid'), content);
      try {
        const r = run(['--stop'], { CFSCALE_TUNNEL_DIR: state });
        assert.equal(r.code, 0, r.err);
        assert.doesNotMatch(r.err, /stopped pid/);
        assert.ok(!fs.existsSync(state), 'state removed');
      } finally {
        fs.rmSync(dir, { recursive: true, force: true });
      }
    });
  }
});
