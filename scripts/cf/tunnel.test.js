'use strict';
// scripts/tunnel.sh without a platform: arguments, --stop with nothing running, and the
// exact commands --dry-run prints for CF (it runs none: no cf needed).

const test = require('node:test');
const assert = require('node:assert/strict');
const { spawnSync } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { portRange } = require('../test/ports');

const [CF_PORT_MIN, CF_PORT_MAX] = portRange('cf');
/** A local port for the tunnel client in the CF side's range (`cf` in ports.json). */
const localPort = () => String(CF_PORT_MIN + Math.floor(Math.random() * (CF_PORT_MAX - CF_PORT_MIN + 1)));

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
    assert.throws(() => process.kill(stale.pid, 0), /ESRCH/);
    assert.ok(!fs.existsSync(state), 'state removed');
  } finally {
    busy.close();
    try { process.kill(stale.pid); } catch { /* gone */ }
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

// A fake cf on PATH: answers the look-ups tunnel.sh makes and records every call. The
// app starts absent and unbound, so the push and bind branches run; the route leads
// nowhere, so the proof fails: exit 2, and nothing is left running.
const FAKE_CF = `#!/usr/bin/env bash
echo "cf $*" >>"$FAKE_DIR/calls"
case "$1 $2" in
  "oauth-token "*) echo bearer x ;;
  "app chisel") [[ -f "$FAKE_DIR/pushed" ]] && echo 0d0e-guid || { echo "App 'chisel' not found." >&2; exit 1; } ;;
  "push -f") touch "$FAKE_DIR/pushed" ;;
  "bind-service chisel") touch "$FAKE_DIR/bound" ;;
  "restart chisel") ;;
  "curl /v3/apps/0d0e-guid/env")
    vcap='{}'
    [[ -f "$FAKE_DIR/bound" ]] && vcap='{"csb-postgres":[{"name":"results-db","credentials":{"uri":"postgres://u:p@db.example:5432/results"}}]}'
    echo "{\\"environment_variables\\":{\\"CHISEL_AUTH\\":\\"tunnel:pw\\",\\"CHISEL_KEY\\":\\"seed\\"},\\"system_env_json\\":{\\"VCAP_SERVICES\\":$vcap}}" ;;
  "curl /v3/apps/0d0e-guid/routes") echo '{"resources":[{"url":"127.0.0.1:1"}]}' ;;
  *) echo "fake cf: unexpected: $*" >&2; exit 1 ;;
esac
`;

test('cf: push when absent, bind when unbound, look-ups by cf curl, exit 2 when psql cannot pass', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cfscale-cf-tunnel-'));
  fs.writeFileSync(path.join(dir, 'cf'), FAKE_CF, { mode: 0o755 });
  try {
    const r = run(['--platform', 'cf', '--local-port', localPort()], {
      PATH: `${dir}:${process.env.PATH}`, FAKE_DIR: dir, CFSCALE_TUNNEL_DIR: path.join(dir, 'tunnel'),
      CFSCALE_VARS_FILE: 'manifests/vars-example.yml', CFSCALE_TUNNEL_TIMEOUT_SEC: '2',
    });
    assert.equal(r.code, 2, r.err);
    assert.match(r.err, /the tunnel does not carry traffic: psql SELECT 1 failed/);
    assert.deepEqual(fs.readFileSync(path.join(dir, 'calls'), 'utf8').trim().split('\n'), [
      'cf oauth-token',
      'cf app chisel --guid',
      'cf push -f manifests/chisel.yml --vars-file manifests/vars-example.yml',
      'cf app chisel --guid',
      'cf curl /v3/apps/0d0e-guid/env',
      'cf bind-service chisel results-db',
      'cf restart chisel',
      'cf curl /v3/apps/0d0e-guid/env',
      'cf curl /v3/apps/0d0e-guid/routes',
    ]);
    assert.ok(!fs.existsSync(path.join(dir, 'tunnel')), 'state removed, client stopped');
  } finally {
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

test('DRY_RUN=1 for local prints the exact commands and runs none', () => {
  const r = run(['--platform', 'local', '--local-port', '15998'], { DRY_RUN: '1', CFSCALE_HOME: '', PATH: `/nonexistent:${process.env.PATH}` });
  assert.equal(r.code, 0, r.err);
  assert.deepEqual(r.out.trim().split('\n'), [
    'scripts/cfl up',
    '# unless CF_HOME=.state/local/cf-home is logged in there already:',
    'cf login -a "$(scripts/cfl api-url)" -u admin -p admin -o local -s local --skip-ssl-validation',
    'cf service-key results-db cfscale-scripts --guid',
    '# when the key is missing: cf create-service-key results-db cfscale-scripts',
    'cf curl /v3/service_credential_bindings/GUID/details',
    'PORT=PORT HOST=127.0.0.1 CHISEL_AUTH=tunnel:RANDOM CHISEL_KEY=RANDOM VCAP_SERVICES=\'{"postgres":[{"name":"results-db","credentials":{"uri":"URL"}}]}\' .tools/bin/chisel-server',
    'AUTH=tunnel:RANDOM .tools/bin/chisel client --fingerprint FINGERPRINT --keepalive 25s http://127.0.0.1:PORT 127.0.0.1:15998:DBHOST:DBPORT',
    "psql postgres://DBUSER:DBPASS@127.0.0.1:15998/DBNAME -Atqc 'SELECT 1'",
  ]);
});

// A fake cf with a pushed, bound app whose env and routes documents are files in FAKE_DIR.
const FAKE_CF_DOCS = `#!/usr/bin/env bash
echo "cf $*" >>"$FAKE_DIR/calls"
case "$1 $2" in
  "oauth-token "*) echo bearer x ;;
  "app chisel") echo 0d0e-guid ;;
  "curl /v3/apps/0d0e-guid/env") cat "$FAKE_DIR/env.json" ;;
  "curl /v3/apps/0d0e-guid/routes") cat "$FAKE_DIR/routes.json" ;;
  *) echo "fake cf: unexpected: $*" >&2; exit 1 ;;
esac
`;

test('cf: what the app lacks ends the run with one line, exit 1, no state left', async (t) => {
  const bound = { csb: [{ name: 'results-db', credentials: { uri: 'postgres://u:p@db.example:5432/results' } }] };
  const env = (ev, vcap = bound) => ({ environment_variables: ev, system_env_json: { VCAP_SERVICES: vcap } });
  const keys = { CHISEL_AUTH: 'tunnel:pw', CHISEL_KEY: 'seed' };
  const routes = { resources: [{ url: 'chisel.example.com' }] };
  const cases = [
    ['no CHISEL_AUTH (a failure inside tunnel-info)', env({ CHISEL_KEY: 'seed' }), routes,
      /^tunnel-info: the chisel app has no CHISEL_AUTH/],
    ['no route', env(keys), { resources: [] }, /^tunnel: chisel has no route: cf map-route chisel DOMAIN --hostname HOST \(chisel-host of the vars file\)$/],
    ['a CF error document', { errors: [{ title: 'CF-ResourceNotFound', code: 10010, detail: 'App not found' }] }, routes,
      /^tunnel: cf curl \/v3\/apps\/0d0e-guid\/env: CF-ResourceNotFound 10010: App not found$/],
  ];
  for (const [name, envDoc, routesDoc, msg] of cases) {
    await t.test(name, () => {
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cfscale-port-tunnel-'));
      fs.writeFileSync(path.join(dir, 'cf'), FAKE_CF_DOCS, { mode: 0o755 });
      fs.writeFileSync(path.join(dir, 'env.json'), JSON.stringify(envDoc));
      fs.writeFileSync(path.join(dir, 'routes.json'), JSON.stringify(routesDoc));
      try {
        const r = run(['--platform', 'cf', '--local-port', localPort()], {
          PATH: `${dir}:${process.env.PATH}`, FAKE_DIR: dir, CFSCALE_TUNNEL_DIR: path.join(dir, 'tunnel'),
        });
        assert.equal(r.code, 1, r.err);
        assert.match(r.err, msg);
        assert.equal(r.err.split('\n').length, 1, r.err);
        assert.equal(r.out, '');
        assert.ok(!fs.existsSync(path.join(dir, 'tunnel')), 'state removed');
      } finally {
        fs.rmSync(dir, { recursive: true, force: true });
      }
    });
  }
});

test('regression: a SIGTERM while the proof waits stops the client this run started (exit 143)', async () => {
  const { spawn } = require('node:child_process');
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cfscale-port-tunnel-'));
  fs.writeFileSync(path.join(dir, 'cf'), FAKE_CF, { mode: 0o755 });
  const state = path.join(dir, 'tunnel');
  let clientPid = null;
  try {
    const child = spawn(TUNNEL, ['--platform', 'cf', '--local-port', localPort()], {
      env: { ...process.env, PATH: `${dir}:${process.env.PATH}`, FAKE_DIR: dir, CFSCALE_TUNNEL_DIR: state,
        CFSCALE_VARS_FILE: 'manifests/vars-example.yml', CFSCALE_TUNNEL_TIMEOUT_SEC: '60' },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let err = '';
    child.stderr.on('data', (d) => { err += d; });
    const closed = new Promise((resolve) => { child.on('close', (code, signal) => resolve({ code, signal })); });
    const pidFile = path.join(state, 'client.pid');
    for (let i = 0; i < 200 && !fs.existsSync(pidFile); i++) await new Promise((r) => { setTimeout(r, 50); });
    assert.ok(fs.existsSync(pidFile), `the client never started: ${err}`);
    await new Promise((r) => { setTimeout(r, 300); }); // inside the proof's wait
    clientPid = Number(fs.readFileSync(pidFile, 'utf8'));
    child.kill('SIGTERM');
    const { code, signal } = await closed;
    assert.ok(code === 143 || signal === 'SIGTERM', `exit ${code} ${signal}: ${err}`);
    assert.throws(() => process.kill(clientPid, 0), /ESRCH/, 'the chisel client still runs');
    assert.ok(!fs.existsSync(state), 'state removed');
  } finally {
    if (clientPid) try { process.kill(clientPid, 'SIGKILL'); } catch { /* gone */ }
    fs.rmSync(dir, { recursive: true, force: true });
  }
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
