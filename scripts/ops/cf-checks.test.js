'use strict';
// cf-checks.test.js — the cf-side checks that are pure logic over a file or a command's
// output, so they need no Cloud Controller: the cf CLI version a feature needs, where the cf
// CLI keeps its plugin config and its SSLDisabled, CC's error documents behind `cf curl`,
// and whether a Node app's node_modules would be uploaded. The same checks run inside the
// scripts against the local platform in test/cf-local.test.js.
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { spawnSync } = require('node:child_process');

const { parseCfVersion, cfCliShortfall } = require('./cf-version');
const { pluginConfigPath, pluginInstalled } = require('./stats-source');
const { cfSslDisabled } = require('./tls');
const { cfJsonOf } = require('./target');
const { nodeModulesProblem } = require('./node-modules');

const ROOT = path.resolve(__dirname, '../..');
const REAL_CF = path.join(ROOT, '.tools/bin/cf');

const dirs = [];
test.after(() => { for (const d of dirs) fs.rmSync(d, { recursive: true, force: true }); });
function tmpDir() {
  const d = fs.mkdtempSync(path.join(os.tmpdir(), 'cfscale-cf-checks-'));
  dirs.push(d);
  return d;
}

test('cfCliShortfall: --loadbalancing needs cf CLI >= 8.9.1; what was found instead', async (t) => {
  const cases = [
    ['cf version 8.9.0+e0ec1b0.2024-11-05', 0, 'this is 8.9.0'],
    ['cf version 7.7.13+a9f8a7c.2024-07-26', 0, 'this is 7.7.13'],
    ['cf version 0.0.0-unknown-version', 0, 'cannot tell from "cf version 0.0.0-unknown-version"'],
    ['cf version 8.10.0-rc.1', 0, 'cannot tell from "cf version 8.10.0-rc.1"'],
    ['', 1, 'cf version failed'],
    ['cf version 8.9.1+3fc1a57.2024-12-04', 0, ''],
    ['cf version 8.10.0+0b2f8a2.2025-01-30', 0, ''],
    ['cf version 9.0.0', 0, ''],
  ];
  for (const [stdout, code, want] of cases) {
    await t.test(`${JSON.stringify(stdout)} exit ${code}`, () => {
      assert.equal(cfCliShortfall({ code, stdout: `${stdout}\n` }, '8.9.1'), want);
    });
  }
});

test('the real cf CLI\'s `cf version` line parses as its release', { skip: !fs.existsSync(REAL_CF) && 'cf not built (scripts/setup.sh builds .tools/bin/cf)' }, () => {
  const v = spawnSync(REAL_CF, ['version'], { encoding: 'utf8', env: { ...process.env, CF_HOME: tmpDir(), CF_COLOR: 'false' } });
  assert.equal(v.status, 0, v.stderr);
  assert.deepEqual(parseCfVersion(v.stdout), [8, 17, 0], v.stdout);
  assert.equal(cfCliShortfall({ code: 0, stdout: v.stdout }, '8.9.1'), '');
});

test('the statistics plugin is looked up in CF_PLUGIN_HOME, then CF_HOME, then HOME (the cf CLI\'s rule)', async (t) => {
  const home = tmpDir();
  const empty = tmpDir();
  fs.mkdirSync(path.join(home, '.cf/plugins'), { recursive: true });
  fs.writeFileSync(path.join(home, '.cf/plugins/config.json'),
    JSON.stringify({ Plugins: { Statistics: { Location: '/x/statistics', Version: { Major: 1 } } } }));
  const cases = [
    ['HOME', { HOME: home }, home],
    ['CF_HOME over HOME', { CF_HOME: home, HOME: empty }, home],
    ['CF_PLUGIN_HOME over CF_HOME', { CF_PLUGIN_HOME: empty, CF_HOME: home, HOME: home }, empty],
    ['CF_PLUGIN_HOME', { CF_PLUGIN_HOME: home, CF_HOME: empty, HOME: empty }, home],
    ['an empty CF_HOME is unset', { CF_HOME: '', HOME: home }, home],
  ];
  for (const [name, env, where] of cases) {
    await t.test(name, () => {
      assert.equal(pluginConfigPath(env), path.join(where, '.cf/plugins/config.json'));
      assert.equal(pluginInstalled(env), where === home);
    });
  }
  await t.test('a config that lists other plugins only, or no Plugins object', () => {
    const other = tmpDir();
    fs.mkdirSync(path.join(other, '.cf/plugins'), { recursive: true });
    for (const doc of [{ Plugins: { 'app-autoscaler-plugin': {} } }, { Plugins: [] }, {}, 'not json']) {
      fs.writeFileSync(path.join(other, '.cf/plugins/config.json'), typeof doc === 'string' ? doc : JSON.stringify(doc));
      assert.equal(pluginInstalled({ HOME: other }), false, JSON.stringify(doc));
    }
  });
});

test('SSLDisabled is read from $CF_HOME/.cf/config.json, else $HOME/.cf/config.json', async (t) => {
  const withSsl = tmpDir();
  const without = tmpDir();
  const none = tmpDir();
  fs.mkdirSync(path.join(withSsl, '.cf'));
  fs.writeFileSync(path.join(withSsl, '.cf/config.json'), JSON.stringify({ SpaceFields: { GUID: 's' }, SSLDisabled: true }));
  fs.mkdirSync(path.join(without, '.cf'));
  fs.writeFileSync(path.join(without, '.cf/config.json'), JSON.stringify({ SpaceFields: { GUID: 's' } }));
  const cases = [
    ['SSLDisabled in $HOME', { HOME: withSsl }, true],
    ['SSLDisabled in $CF_HOME', { CF_HOME: withSsl, HOME: none }, true],
    ['CF_HOME without SSLDisabled wins over HOME with it', { CF_HOME: without, HOME: withSsl }, false],
    ['no config', { HOME: none }, false],
  ];
  for (const [name, env, want] of cases) await t.test(name, () => assert.equal(cfSslDisabled(env), want));
});

test('cfJsonOf: the document of a `cf curl`, or one message for a failure, a CC error document or non-JSON', async (t) => {
  const P = '/v3/apps/x';
  const cases = [
    ['a resource', { code: 0, stdout: '{"guid":"x"}\n' }, { guid: 'x' }],
    ['a list', { code: 0, stdout: '{"resources":[]}' }, { resources: [] }],
    ['cf curl failed', { code: 1, stdout: '' }, /^cf curl \/v3\/apps\/x failed$/],
    // cf curl exits 0 on CC's errors (it prints the body): the document decides.
    ['CC\'s error document', { code: 0, stdout: '{"errors":[{"detail":"App not found","title":"CF-ResourceNotFound","code":10010}]}' },
      /^cf curl \/v3\/apps\/x: CF-ResourceNotFound 10010: App not found$/],
    ['two errors', { code: 0, stdout: '{"errors":[{"title":"A","code":1,"detail":"a"},{"detail":"b"}]}' },
      /^cf curl \/v3\/apps\/x: A 1: a; error : b$/],
    ['HTML of a proxy', { code: 0, stdout: '<html>502 Bad Gateway</html>\n' }, /^cf curl \/v3\/apps\/x: not JSON: <html>502 Bad Gateway<\/html>$/],
    ['null', { code: 0, stdout: 'null' }, /not JSON: null$/],
    ['empty', { code: 0, stdout: '' }, /not JSON: $/],
  ];
  for (const [name, r, want] of cases) {
    await t.test(name, () => {
      if (want instanceof RegExp) assert.throws(() => cfJsonOf(P, r), { message: want });
      else assert.deepEqual(cfJsonOf(P, r), want);
    });
  }
});

test('nodeModulesProblem: a cf push of a Node app stops when its modules would not be uploaded (node-gyp would download headers while staging)', async (t) => {
  const lock = {
    lockfileVersion: 3,
    packages: {
      '': { name: 'app' },
      'node_modules/pg-native': {},
      'node_modules/pg-native/node_modules/libpq': {},
      'node_modules/autocannon': { dev: true },
      'node_modules/fsevents': { optional: true },
    },
  };
  const installed = ['pg-native', 'pg-native/node_modules/libpq'];
  const cases = [
    { name: 'installed (production-only)', installed, want: '' },
    { name: 'not installed', installed: [], want: /^\S+\/node-app\/node_modules lacks 2 package\(s\) of package-lock\.json \(first: pg-native\): run npm ci in \S+\/node-app; cf push must upload installed node_modules .*§12\)$/ },
    { name: 'a nested module missing', installed: ['pg-native'], want: /node_modules lacks 1 package\(s\) of package-lock\.json \(first: libpq\)/ },
    { name: 'no lock file', installed, noLock: true, want: /^\S+\/node-app\/package-lock\.json missing or unreadable: run npm install in \S+\/node-app / },
    { name: '.cfignore excludes node_modules', installed, cfignore: 'test/\nnode_modules/\n', want: /^\S+\/node-app\/\.cfignore excludes node_modules \("node_modules\/"\): remove that line/ },
    { name: 'not a Node app (no package.json)', noPackage: true, installed: [], want: '' },
  ];
  for (const c of cases) {
    await t.test(c.name, () => {
      const dir = tmpDir();
      fs.mkdirSync(path.join(dir, 'm'));
      fs.writeFileSync(path.join(dir, 'm/node-app.yml'), 'applications:\n- name: node-app\n  path: ../node-app\n');
      const app = path.join(dir, 'node-app');
      fs.mkdirSync(app);
      if (!c.noPackage) fs.writeFileSync(path.join(app, 'package.json'), '{"name":"app"}');
      if (!c.noLock) fs.writeFileSync(path.join(app, 'package-lock.json'), JSON.stringify(lock));
      if (c.cfignore) fs.writeFileSync(path.join(app, '.cfignore'), c.cfignore);
      for (const m of c.installed) {
        fs.mkdirSync(path.join(app, 'node_modules', m), { recursive: true });
        fs.writeFileSync(path.join(app, 'node_modules', m, 'package.json'), '{}');
      }
      const got = nodeModulesProblem(path.join(dir, 'm/node-app.yml'));
      if (typeof c.want === 'string') assert.equal(got, c.want);
      else assert.match(got, c.want);
    });
  }
});
