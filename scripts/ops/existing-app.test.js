'use strict';
// existing-app.test.js — scale.sh and push.sh on an app they did not push (a plain `cf push`),
// against a fake cf CLI (test-support/fake-cf.js) on `--platform cf`: an app without a
// CONTROL_TOKEN gets one, said in one line, the token never on a command line and its body
// file private; a wait for RUNNING instances stops at the first crash that repeats, with the
// instance's last error line and the command that shows more, not after a fixed timeout.
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { spawnSync } = require('node:child_process');

const ROOT = path.resolve(__dirname, '../..');
const TOKEN_RE = /^[A-Za-z0-9_-]{43}$/;
const NO_TOKEN_LINE = (cmd, app, then) => `${cmd}: ${app} has no CONTROL_TOKEN (a plain cf push sets none; its control endpoints answer 401): giving it one, then ${then}`;
// Far below run-round's and scale.sh's 180 s timeout: the wait must end at the repeated crash.
const CRASH_STOP_MS = 20000;

const dirs = [];
test.after(() => { for (const d of dirs) fs.rmSync(d, { recursive: true, force: true }); });

/** A fake foundation with `apps` (NAME: { env, instances, crashing }); run(script, args) runs a script against it. */
function foundation(apps) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cfscale-existing-app-'));
  dirs.push(dir);
  const bin = path.join(dir, 'bin');
  fs.mkdirSync(bin);
  fs.writeFileSync(path.join(bin, 'cf'), `#!/usr/bin/env bash\nexec node ${JSON.stringify(path.join(ROOT, 'scripts/test-support/fake-cf.js'))} "$@"\n`, { mode: 0o755 });
  fs.mkdirSync(path.join(dir, '.cf'));
  fs.writeFileSync(path.join(dir, '.cf/config.json'), JSON.stringify({ SpaceFields: { GUID: 'space-guid' } }));
  const stateFile = path.join(dir, 'state.json');
  const callsFile = path.join(dir, 'calls.jsonl');
  fs.writeFileSync(stateFile, JSON.stringify({ apps }));
  fs.writeFileSync(callsFile, '');
  const env = {
    ...process.env, PATH: `${bin}:${process.env.PATH}`, CF_HOME: dir, FAKE_CF_STATE: stateFile, FAKE_CF_CALLS: callsFile,
    CFSCALE_VARS_FILE: path.join(ROOT, 'manifests/vars-example.yml'), PLATFORM: '', DEBUG: '',
  };
  return {
    run(script, args) {
      const t0 = Date.now();
      const r = spawnSync(path.join(ROOT, 'scripts', script), [...args, '--platform', 'cf'], { cwd: ROOT, env, encoding: 'utf8', timeout: 120000 });
      return { code: r.status, stdout: r.stdout, stderr: r.stderr, ms: Date.now() - t0 };
    },
    state: () => JSON.parse(fs.readFileSync(stateFile, 'utf8')),
    calls: () => fs.readFileSync(callsFile, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l)),
  };
}

/** Problems of how the token travelled: on no command line, its body file mode 0600. */
function tokenTravel(f, token) {
  const problems = [];
  for (const c of f.calls()) {
    if (c.argv.some((a) => a.includes(token))) problems.push(`the token on a command line: cf ${c.argv.join(' ')}`);
    if (c.bodyMode !== undefined && c.bodyMode !== 0o600) problems.push(`the body file of cf ${c.argv.join(' ')} has mode ${c.bodyMode.toString(8)}`);
  }
  return problems;
}

test('scale.sh: an app pushed without a CONTROL_TOKEN gets one and a restart after the scale, one line says so, the token on no command line', () => {
  const f = foundation({ 'node-app': { env: { DB_SERVICE_NAME: 'node-db' }, instances: 1, crashing: null } });
  const r = f.run('scale.sh', ['node-app', '-i', '2']);
  assert.equal(r.code, 0, r.stderr);
  const app = f.state().apps['node-app'];
  assert.match(app.env.CONTROL_TOKEN ?? '', TOKEN_RE);
  assert.equal(app.env.DB_SERVICE_NAME, 'node-db', 'the other variables kept');
  assert.equal(app.instances, 2);
  assert.deepEqual(r.stderr.split('\n').filter((l) => l.includes('CONTROL_TOKEN')), [NO_TOKEN_LINE('scale', 'node-app', 'restarting it')]);
  const changes = f.calls().map((c) => c.argv).filter((a) => a[0] === 'scale' || a.includes('PATCH') || a.includes('POST'));
  const bodyFile = changes[0][5].slice(1);
  assert.deepEqual(changes.map((a) => a.join(' ')), [
    `curl -X PATCH /v3/apps/guid-node-app/environment_variables -d @${bodyFile}`,
    'scale node-app -i 2',
    'curl -X POST /v3/apps/guid-node-app/actions/restart',
  ]);
  assert.deepEqual(tokenTravel(f, app.env.CONTROL_TOKEN), []);
  assert.equal(fs.existsSync(bodyFile), false, 'the body file is removed');
  assert.ok(!r.stdout.includes(app.env.CONTROL_TOKEN) && !r.stderr.includes(app.env.CONTROL_TOKEN), 'the token in the output');

  const again = f.run('scale.sh', ['node-app', '-i', '2']);
  assert.equal(again.code, 0, again.stderr);
  assert.doesNotMatch(again.stderr, /CONTROL_TOKEN/, 'an app with a token is left as it is');
  assert.equal(f.state().apps['node-app'].env.CONTROL_TOKEN, app.env.CONTROL_TOKEN);
  assert.equal(f.calls().filter((c) => c.argv.includes('POST')).length, 1, 'no second restart');
});

test('push.sh: an app pushed without a CONTROL_TOKEN gets one before its push, one line says so; with one it gets a fresh one, silently', () => {
  const f = foundation({ 'node-app': { env: {}, instances: 1, crashing: null } });
  const r = f.run('push.sh', ['node-app']);
  assert.equal(r.code, 0, r.stderr);
  const first = f.state().apps['node-app'].env.CONTROL_TOKEN;
  assert.match(first ?? '', TOKEN_RE);
  assert.deepEqual(r.stderr.split('\n').filter((l) => l.includes('CONTROL_TOKEN')), [NO_TOKEN_LINE('push', 'node-app', 'pushing it')]);
  const argvs = f.calls().map((c) => c.argv);
  assert.ok(argvs.findIndex((a) => a.includes('PATCH')) < argvs.findIndex((a) => a[0] === 'push'), 'the token before the push');
  assert.ok(argvs.find((a) => a[0] === 'push').includes('--redact-env'));

  const again = f.run('push.sh', ['node-app']);
  assert.equal(again.code, 0, again.stderr);
  assert.doesNotMatch(again.stderr, /CONTROL_TOKEN/);
  const second = f.state().apps['node-app'].env.CONTROL_TOKEN;
  assert.match(second, TOKEN_RE);
  assert.notEqual(second, first, 'a fresh token at every push');
  assert.deepEqual([...tokenTravel(f, first), ...tokenTravel(f, second)], []);
});

test('scale.sh: a wait for RUNNING stops at the first crash that repeats, with the last error line and the command for more', () => {
  const line = 'java-app: DB_POOL_SIZE must be an integer from 1 to 1000, got "abc"';
  const f = foundation({ 'java-app': { env: { CONTROL_TOKEN: 'x'.repeat(43) }, instances: 1, crashing: { index: 1, line } } });
  const r = f.run('scale.sh', ['java-app', '-i', '2']);
  assert.equal(r.code, 1, r.stderr);
  assert.ok(r.ms < CRASH_STOP_MS, `stopped after ${r.ms} ms`);
  assert.deepEqual(r.stderr.trimEnd().split('\n'), [
    'scale: java-app instance 1 crashed 2 times: not waiting for it (APP/PROC/WEB: Exited with status 1)',
    `scale: its last error line: ${line}`,
    'scale: more: cf logs java-app --recent',
  ]);
});
