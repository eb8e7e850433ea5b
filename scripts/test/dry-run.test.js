'use strict';
// dry-run.test.js — what needs no Cloud Controller: the one-line usage errors (exit 1) of
// every script, the local platform's login and CPU quota lines, and the cf-side checks
// (preflight, plugin detection, TLS settings, node_modules) against a fake cf answering
// the few look-ups they make (fixtures/fake-cf.js). The command sequences with the real
// cf CLI answering from a Cloud Controller: dry-run-cli.e2e.test.js.
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const { spawnSync } = require('node:child_process');

const { makeWorld, removeWorlds, worldEnv, cfCalls, guidOf, READ_ONLY, ROOT } = require('./fake-cf-world');

test.after(removeWorlds);

function run(world, script, args, env = {}) {
  const res = spawnSync('bash', [path.join(ROOT, 'scripts', script), ...args], {
    encoding: 'utf8', env: { ...worldEnv(world), ...env },
  });
  return { code: res.status, stdout: res.stdout, stderr: res.stderr, calls: cfCalls(world) };
}

const lines = (s) => s.split('\n').filter(Boolean);
// The local platform's login, printed under --dry-run while its CF_HOME is not logged in
// (fake-cf-world: a CFSCALE_HOME of its own, the API on its default port).
const LOCAL_LOGIN = 'cf login -a http://127.0.0.1:8889 -u admin -p admin -o local -s local --skip-ssl-validation';

test('dry-run on the local platform: cfl up, the cf login to its API, then the same cf commands as on CF', async (t) => {
  const NODE = guidOf('node-app');
  const cases = [
    {
      name: 'teardown --all on the local platform: up, cf login to its API, the same cf deletes, down',
      state: {}, script: 'teardown.sh', args: ['--all', '--dry-run', '--platform', 'local'],
      want: () => ['scripts/cfl up', LOCAL_LOGIN, ...['node-app', 'java-app', 'loadgen'].map((a) => `cf delete ${a} -f`),
        ...['node-db', 'java-db', 'results-db'].map((s) => `cf delete-service ${s} -f`), 'scripts/cfl down'],
    },
    {
      name: 'collect-stats on the local platform: the same v3 poll through cf',
      state: { apps: { 'node-app': { instances: 1 } } }, script: 'collect-stats.sh', args: ['--app', 'node-app', '--round', '1', '--platform', 'local', '--dry-run'],
      want: () => [`cf curl /v3/apps/${NODE}/processes/web/stats`],
    },
    {
      name: 'scale on the local platform: up, login, the CPU quota as the process annotation, then cf scale',
      state: { apps: { 'node-app': { instances: 1 } } }, script: 'scale.sh', args: ['node-app', '-i', '2', '--cpu', '0.5', '--platform', 'local', '--dry-run'],
      want: () => ['scripts/cfl up', LOCAL_LOGIN,
        `cf curl -X PATCH /v3/processes/${NODE} -d '{"metadata":{"annotations":{"cfscale.local/cpu-quota":"0.5"}}}'`, 'cf scale node-app -i 2'],
    },
  ];
  for (const c of cases) {
    await t.test(c.name, () => {
      const world = makeWorld(c.state, { plugin: c.plugin });
      const res = run(world, c.script, c.args, c.env?.(world));
      assert.equal(res.code, 0, res.stderr);
      let got = lines(res.stdout);
      if (c.skipJava) got = got.filter((l) => !l.startsWith('mvn '));
      assert.deepEqual(got, c.want(world));
      const mutating = res.calls.filter((a) => !READ_ONLY.has(a[0]));
      assert.deepEqual(mutating, [], 'no mutating cf call under --dry-run');
    });
  }
});

test('usage errors: one line on stderr, exit 1, nothing run', async (t) => {
  const RR = ['--app', 'node-app', '--duration', '5s'];
  const cases = [
    ['run-round.sh', ['--duration', '5s'], /--app is required/],
    ['run-round.sh', ['--app', 'nope', '--duration', '5s'], /unknown app "nope"/],
    ['run-round.sh', ['--app', 'loadgen', '--duration', '5s'], /loadgen is the instrument/],
    ['run-round.sh', [...RR, '--parallel', '2', '--rate', '10'], /--parallel and --rate exclude each other/],
    ['run-round.sh', ['--app', 'node-app'], /one of --duration or --requests is required/],
    ['run-round.sh', [...RR, '--requests', '10'], /--duration and --requests exclude each other/],
    ['run-round.sh', ['--app', 'node-app', '--duration', '10x'], /--duration must be a duration like/],
    ['run-round.sh', ['--app', 'node-app', '--duration', '0s'], /--duration must be above 0/],
    ['run-round.sh', [...RR, '--warmup', '5s'], /--warmup must be shorter than --duration/],
    ['run-round.sh', [...RR, '--timeout', 'soon'], /--timeout must be a duration/],
    ['run-round.sh', [...RR, '--instances', '0'], /--instances must be a positive integer/],
    ['run-round.sh', [...RR, '--loadgens', 'two'], /--loadgens must be a positive integer/],
    ['run-round.sh', [...RR, '--rate', '-3'], /--rate must be a positive number/],
    ['run-round.sh', [...RR, '--scenario', 'dance'], /--scenario must be one of/],
    ['run-round.sh', [...RR, '--prewarm', 'lots'], /--prewarm must be a non-negative integer, got "lots"/],
    ['run-round.sh', [...RR, '--max-error-rate', '5'], /--max-error-rate must be a fraction/],
    ['run-round.sh', [...RR, '--stats-source', 'guess'], /--stats-source must be/],
    ['run-round.sh', [...RR, '--cpu', '1'], /--cpu is local only/],
    ['run-round.sh', [...RR, '--front-proxies', '0'], /--front-proxies must be a positive integer, got "0"/],
    ['run-round.sh', [...RR, '--front-proxies', '2'], /--front-proxies is local only/],
    ['run-round.sh', [...RR, '--platform', 'mars'], /--platform must be local or cf/],
    ['run-round.sh', [...RR, '--bogus', '1'], /unknown option: --bogus/],
    ['run-round.sh', [...RR, '--label'], /--label needs a value/],
    ['run-round.sh', [...RR, 'extra'], /unexpected argument: extra/],
    ['run-round.sh', [...RR, '--seed-ads', '-1'], /--seed-ads must be a non-negative integer, got "-1"/],
    ['run-round.sh', [...RR, '--max-wait', 'later'], /--max-wait must be a duration like 500ms, 10s, 2m or 1h, got "later"/],
    ['run-round.sh', ['--app', 'node-app', '--requests', '0'], /--requests must be a positive integer, got "0"/],
    ['run-round.sh', [...RR, '--timeout', '0s'], /--timeout must be above 0/],
    ['push.sh', ['node-app', 'java-app'], /one APP \(or all\) only, got "node-app" and "java-app"/],
    ['push.sh', ['node-app', '-i'], /-i needs a value/],
    ['scale.sh', ['node-app', '-i', '2', '--bogus'], /unknown option: --bogus/],
    ['push.sh', [], /APP is required/],
    ['push.sh', ['web'], /unknown app "web"/],
    ['push.sh', ['node-app', '-i', 'x'], /-i must be a positive integer/],
    ['scale.sh', ['node-app'], /-i N is required/],
    ['scale.sh', ['node-app', '-i', '2', '--cpu', '0'], /--cpu must be a positive number of cores or none/],
    ['scale.sh', ['node-app', '-i', '2', '--cpu', '1'], /--cpu is local only/],
    ['teardown.sh', ['--everything'], /unknown option: --everything/],
    ['rounds.sh', ['--last', 'x'], /--last must be a positive integer/],
    ['collect-stats.sh', ['--app', 'node-app'], /--round is required/],
    ['collect-stats.sh', ['--app', 'node-app', '--round', '1', '--source', 'x'], /--source must be plugin, v3 or auto/],
    ['collect-logs.sh', ['--round', '1'], /--app is required/],
    ['collect-logs.sh', ['--app', 'node-app', '--round', 'x'], /--round must be a positive integer, got "x"/],
    ['collect-logs.sh', ['--app', 'node-app', '--round', '1', '--bogus'], /unknown option: --bogus/],
    ['collect-logs.sh', ['--app', 'node-app', '--round'], /--round needs a value/],
    ['collect-stats.sh', ['--app', 'nope', '--round', '1'], /unknown app "nope"/],
    ['collect-stats.sh', ['--app', 'node-app', '--round', '1', '--interval', '0'], /--interval must be a positive integer, got "0"/],
    ['collect-stats.sh', ['--app', 'node-app', '--round', '1', '--platform', 'mars', '--dry-run'], /--platform must be local or cf, got "mars"/],
    ['collect-stats.sh', ['--app', 'java-app', '--round', '1', '--source', 'v3', '--dry-run'], /^collect-stats: java-app is not pushed$/m],
    ['collect-stats.sh', ['--app', 'node-app', '--round', '1', '--source', 'plugin', '--dry-run'],
      /^collect-stats: the cf statistics plugin is not installed \(not in \S+\/home\/\.cf\/plugins\/config\.json\): install it, or use the v3 stats/m],
    ['run-round.sh', [...RR, '--stats-source', 'plugin', '--dry-run'], /^run-round: the cf statistics plugin is not installed/m],
    ['rounds.sh', ['--app', 'nope'], /unknown app "nope"/],
    ['rounds.sh', ['--round', '0'], /--round must be a positive integer, got "0"/],
    ['rounds.sh', ['--dry-run'], /unknown option: --dry-run/],
    ['rounds.sh', [], /RESULTS_DATABASE_URL is not set: open the tunnel with scripts\/tunnel\.sh/],
    ['teardown.sh', ['--platform'], /--platform needs a value/],
    ['teardown.sh', ['extra'], /unexpected argument: extra/],
  ];
  const world = makeWorld({ apps: { 'node-app': { instances: 1 }, loadgen: { instances: 1 } } });
  for (const [script, args, want] of cases) {
    await t.test(`${script} ${args.join(' ')}`, () => {
      const res = run(world, script, args);
      assert.equal(res.code, 1, `exit code (stderr: ${res.stderr})`);
      assert.equal(res.stdout, '');
      assert.equal(lines(res.stderr).length, 1, res.stderr);
      assert.match(res.stderr, want);
      assert.deepEqual(res.calls.filter((a) => !READ_ONLY.has(a[0])), []);
    });
  }
});

test('statistics plugin detection honours CF_PLUGIN_HOME, then CF_HOME, then HOME (the cf CLI\'s rule)', async (t) => {
  const world = makeWorld({}, { plugin: true }); // the plugin config is in WORLD/home/.cf/plugins
  const home = path.join(world, 'home');
  const empty = path.join(world, 'bin'); // no .cf here
  const cases = [
    ['HOME', { HOME: home }, true],
    ['CF_HOME over HOME', { CF_HOME: home, HOME: empty }, true],
    ['CF_PLUGIN_HOME over CF_HOME', { CF_PLUGIN_HOME: empty, CF_HOME: home, HOME: home }, false],
    ['CF_PLUGIN_HOME', { CF_PLUGIN_HOME: home, CF_HOME: empty, HOME: empty }, true],
  ];
  for (const [name, env, found] of cases) {
    await t.test(name, () => {
      const res = run(world, 'collect-stats.sh', ['--app', 'node-app', '--round', '1', '--source', 'plugin', '--dry-run'], env);
      assert.equal(res.code, found ? 0 : 1, res.stderr);
      if (found) assert.deepEqual(lines(res.stdout), ['cf statistics node-app --debug --full']);
      else assert.match(res.stderr, /the cf statistics plugin is not installed \(not in \S+\/bin\/\.cf\/plugins\/config\.json\)/);
    });
  }
});

test('cf preflight names each missing piece with the command that fixes it', async (t) => {
  const cases = [
    { name: 'not logged in', state: { loggedIn: false }, want: /not logged in.*cf login/ },
    { name: 'a service missing', state: { services: ['node-db'] }, want: /missing services: java-db results-db: .*cf create-service/ },
    { name: 'no results database URL', state: {}, args: ['--app', 'node-app', '--duration', '5s'], want: /RESULTS_DATABASE_URL is not set.*scripts\/tunnel\.sh/ },
    { name: 'no vars file', state: {}, env: { CFSCALE_VARS_FILE: '/nonexistent/vars.yml' }, want: /vars\.yml missing: cp .*vars-example\.yml/ },
  ];
  for (const c of cases) {
    await t.test(c.name, () => {
      const world = makeWorld(c.state);
      const res = run(world, c.args ? 'run-round.sh' : 'push.sh', c.args || ['node-app'], c.env);
      assert.equal(res.code, 1, res.stderr);
      assert.match(res.stderr, c.want);
      assert.deepEqual(res.calls.filter((a) => !READ_ONLY.has(a[0])), []);
    });
  }
});

test('default platform is local unless cf is installed and `cf target` succeeds', async (t) => {
  const cases = [
    { name: 'cf targeted', loggedIn: true, want: /^cf delete node-app -f$/m },
    { name: 'cf not targeted', loggedIn: false, want: /^scripts\/cfl down$/m },
  ];
  for (const c of cases) {
    await t.test(c.name, () => {
      const world = makeWorld({ loggedIn: c.loggedIn });
      const res = run(world, 'teardown.sh', ['--dry-run'], { PLATFORM: '' });
      assert.equal(res.code, 0, res.stderr);
      assert.match(res.stdout, c.want);
    });
  }
});

test('push to CF stops when a Node app\'s modules would not be uploaded (node-gyp would download headers while staging)', async (t) => {
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
    { name: 'installed (production-only)', installed, want: null },
    { name: 'not installed', installed: [], want: /^push: \S+\/node-app\/node_modules lacks 2 package\(s\) of package-lock\.json \(first: pg-native\): run npm ci in \S+\/node-app; cf push must upload installed node_modules .*§12\)$/ },
    { name: 'a nested module missing', installed: ['pg-native'], want: /node_modules lacks 1 package\(s\) of package-lock\.json \(first: libpq\)/ },
    { name: 'no lock file', installed, noLock: true, want: /^push: \S+\/node-app\/package-lock\.json missing or unreadable: run npm install in \S+\/node-app / },
    { name: '.cfignore excludes node_modules', installed, cfignore: 'test/\nnode_modules/\n', want: /^push: \S+\/node-app\/\.cfignore excludes node_modules \("node_modules\/"\): remove that line/ },
  ];
  for (const c of cases) {
    await t.test(c.name, () => {
      const world = makeWorld({});
      // CFSCALE_MANIFEST_DIR=WORLD/m: node-app.yml pushes WORLD/node-app, which the test fills.
      fs.mkdirSync(path.join(world, 'm'));
      fs.writeFileSync(path.join(world, 'm/node-app.yml'), 'applications:\n- name: node-app\n  path: ../node-app\n');
      const app = path.join(world, 'node-app');
      fs.mkdirSync(app);
      fs.writeFileSync(path.join(app, 'package.json'), '{"name":"app"}');
      if (!c.noLock) fs.writeFileSync(path.join(app, 'package-lock.json'), JSON.stringify(lock));
      if (c.cfignore) fs.writeFileSync(path.join(app, '.cfignore'), c.cfignore);
      for (const m of c.installed) {
        fs.mkdirSync(path.join(app, 'node_modules', m), { recursive: true });
        fs.writeFileSync(path.join(app, 'node_modules', m, 'package.json'), '{}');
      }
      const res = run(world, 'push.sh', ['node-app', '--dry-run'], { CFSCALE_MANIFEST_DIR: path.join(world, 'm') });
      if (!c.want) {
        assert.equal(res.code, 0, res.stderr);
        assert.deepEqual(lines(res.stdout), [`cf push node-app -f ${world}/m/node-app.yml --vars-file ${world}/vars.yml`]);
        return;
      }
      assert.equal(res.code, 1, res.stderr);
      assert.equal(res.stdout, '');
      assert.equal(lines(res.stderr).length, 1, res.stderr);
      assert.match(res.stderr.trim(), c.want);
    });
  }
});

test('run-round --skip-ssl-validation: seeding, prewarm, timings clear and flush skip verification; default from the cf CLI\'s SSLDisabled', async (t) => {
  const NODE = guidOf('node-app');
  const pinned = (i, p) => `curl -sS --fail-with-body --max-time 60 -D - --insecure -X POST -H 'X-Cf-App-Instance: ${NODE}:${i}' ${p}`;
  const insecure = [
    'node loadgen/bin/loadgen.js --url https://cfscale-CHANGE-ME-node-app.apps.example.com --seed 1000 --seed-only --insecure',
    `node loadgen/bin/loadgen.js --requests 5 --parallel 8 --no-progress --max-error-rate 0 -H 'X-Cf-App-Instance: ${NODE}:0' --insecure --url https://cfscale-CHANGE-ME-node-app.apps.example.com --scenario read --seed 1000`,
    pinned(0, 'https://cfscale-CHANGE-ME-node-app.apps.example.com/timings/clear'),
    `cf curl /v3/apps/${NODE}/processes/web/stats`,
    'cf logs node-app',
    pinned(0, "'https://cfscale-CHANGE-ME-node-app.apps.example.com/timings/flush?round=<round>'"),
  ];
  const cases = [
    { name: 'the flag', args: ['--skip-ssl-validation'], insecure: true },
    { name: 'SSLDisabled in $HOME/.cf/config.json', config: 'home', insecure: true },
    { name: 'SSLDisabled in $CF_HOME/.cf/config.json', config: 'cfhome', insecure: true },
    { name: 'CF_HOME without SSLDisabled wins over HOME with it', config: 'home', cfHomeEmpty: true, insecure: false },
    { name: 'neither', insecure: false },
  ];
  for (const c of cases) {
    await t.test(c.name, () => {
      const world = makeWorld({ apps: { 'node-app': { instances: 1 }, loadgen: { instances: 1 } } });
      const env = {};
      const setSsl = (home) => {
        const f = path.join(home, '.cf/config.json');
        fs.mkdirSync(path.dirname(f), { recursive: true });
        const doc = fs.existsSync(f) ? JSON.parse(fs.readFileSync(f, 'utf8')) : {};
        fs.writeFileSync(f, JSON.stringify({ ...doc, SpaceFields: { GUID: 'space-guid-1' }, SSLDisabled: true }));
      };
      if (c.config === 'home') setSsl(path.join(world, 'home'));
      if (c.config === 'cfhome' || c.cfHomeEmpty) {
        env.CF_HOME = path.join(world, 'cfhome');
        fs.mkdirSync(path.join(env.CF_HOME, '.cf'), { recursive: true });
        fs.writeFileSync(path.join(env.CF_HOME, '.cf/config.json'), JSON.stringify({ SpaceFields: { GUID: 'space-guid-1' } }));
        if (c.config === 'cfhome') setSsl(env.CF_HOME);
      }
      const res = run(world, 'run-round.sh', ['--app', 'node-app', '--duration', '5s', '--prewarm', '5', '--dry-run', ...(c.args || [])], env);
      assert.equal(res.code, 0, res.stderr);
      const got = lines(res.stdout).slice(0, insecure.length);
      assert.deepEqual(got, c.insecure ? insecure : insecure.map((l) => l.replace(/ --insecure/, '')));
    });
  }
});

test('push --skip-ssl-validation: push makes no HTTPS request of its own; a line says when the cf CLI still verifies', async (t) => {
  for (const [name, ssl, note] of [['the cf CLI verifies', false, true], ['the cf CLI skips (SSLDisabled)', true, false]]) {
    await t.test(name, () => {
      const world = makeWorld({});
      const cfg = path.join(world, 'home/.cf/config.json');
      fs.writeFileSync(cfg, JSON.stringify({ ...JSON.parse(fs.readFileSync(cfg, 'utf8')), SSLDisabled: ssl }));
      const res = run(world, 'push.sh', ['node-app', '--skip-ssl-validation', '--dry-run']);
      assert.equal(res.code, 0, res.stderr);
      assert.deepEqual(lines(res.stdout), [`cf push node-app -f manifests/node-app.yml --vars-file ${world}/vars.yml`]);
      assert.equal(res.stderr, note
        ? 'push: note: the cf CLI itself verifies certificates; if the API\'s is self-signed: cf api API-URL --skip-ssl-validation (docs/cf-platform.md §13)\n' : '');
    });
  }
});
