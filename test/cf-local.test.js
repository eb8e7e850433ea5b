'use strict';
// cf-local.test.js — the scripts against a Cloud Foundry: ONE local platform for the file
// (cf-local-world.js), driven by the real cf CLI, the harness's apps played by the tiny
// fixture app (pushed once each, scaled rarely). In order: the cf preflight, the default
// platform, the checks that need a cf look-up, --dry-run sequences that depend on what the
// platform answers (the local platform's login and CPU quota, TLS, the route's load
// balancing), the printed `cf update-route` run for real, the round document, the
// collectors, whole short rounds (the verdict, crash events, connections terminated
// mid-round, reaping, SIGTERM), and tunnel.sh's cf calls with the chisel app pushed. Under
// the heavy lock. The command sequences of push, scale, teardown and run-round under
// --dry-run are dry-run-cli.e2e.test.js's (the e2e suite).
//
// Cases not run against the platform, and why:
// - statistics plugin lookup order (CF_PLUGIN_HOME, CF_HOME, HOME), SSLDisabled lookup order,
//   node_modules of a Node push (4 of 5 ways), CC error documents, the cf CLI version for
//   --loadbalancing (old, unknown versions): pure logic, ops/cf-checks.test.js. The real cf
//   here is 8.17.0: an old one cannot be had without building one, so neither is an old one
//   shown to be fine for a round without --loadbalancing.
// - `cf update-route --help` lists the printed flags: the printed line is run for real here.
// - the collectors' pipe (every line written is stored when SIGTERM/SIGINT comes mid-stream,
//   the producer's group gone, an ingest CLI that fails first, a producer that ends by itself
//   and its successor): ops/collect.test.js on pipeUntilTerm with producers of known output.
//   Which successor collect-logs picks (`cf logs --recent`, then `cf logs`) needs log-cache to
//   fail 5 times in a row: the local platform's log-cache cannot be made to, short of
//   stopping its API, which would stop the `cf logs --recent` as well.
// - tunnel.sh stopped by a CF error document from `cf curl /v3/apps/GUID/env`: CC answers one
//   only for an app gone between two calls; the message is cfJsonOf's (ops/cf-checks.test.js).
// - crash events outside the round's whole second (CC's created_ats filter): a real crash
//   cannot be dated; the round's crash must be found, the earlier one is not faked.
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const { spawnSync } = require('node:child_process');
const { localCfWorld, ROOT } = require('./cf-local-world');
const { scriptsIn, start, lines } = require('./cf-local-scripts');
const { collectorTests, wholeRoundTests } = require('./cf-local-rounds');
const { tunnelFixture, tunnelTests } = require('./cf-local-tunnel');
const { testDatabases } = require('../lib/test-db');
const { portRange, freePortInRange } = require('../lib/ports');
const testDbs = testDatabases(require('pg'), 'cf');

// java-db comes later: the preflight's missing service until then.
const w = localCfWorld({ services: ['node-db', 'results-db'], foundation: true });
const { run, withCfConfig, pluginsConfig } = scriptsIn(w);
const URL = 'https://node-app.localhost';
const dirOf = (name) => { const d = path.join(w.dir, name); fs.mkdirSync(d, { recursive: true }); return d; };

let testDb;
test.before(async () => { testDb = await testDbs.open('cfscale_cf_local'); });
test.after(async () => { if (testDb) await testDb.close(); });

// Before java-db exists (the missing service), then after: what else is missing.
const PREFLIGHT = [
  { name: 'not logged in', env: { CF_HOME: dirOf('empty-cf-home') }, want: /^push: not logged in to Cloud Foundry: run cf login -a https:\/\/api\.YOUR-SYSTEM-DOMAIN$/ },
  { name: 'a service missing', want: /^push: missing services: java-db: create each with cf create-service OFFERING PLAN NAME/ },
  { name: 'no results database URL', script: 'run-round.sh', args: ['--app', 'node-app', '--duration', '5s'], later: true,
    want: /^run-round: RESULTS_DATABASE_URL is not set: open the tunnel with scripts\/tunnel\.sh/ },
  { name: 'no vars file', env: { CFSCALE_VARS_FILE: '/nonexistent/vars.yml' }, later: true,
    want: /^push: \/nonexistent\/vars\.yml missing: cp .*vars-example\.yml/ },
];
async function preflight(t, cases) {
  for (const c of cases) {
    await t.test(c.name, () => {
      const res = run(c.script || 'push.sh', c.args || ['node-app'], c.env);
      assert.equal(res.code, 1, res.stderr);
      assert.match(res.stderr.trim(), c.want);
      assert.deepEqual(res.mutating, []);
    });
  }
}

test('cf preflight names each missing piece with the command that fixes it; nothing mutating runs', (t) => preflight(t, PREFLIGHT.filter((c) => !c.later)));

// platform-ports: the world's env (cf-local-world.js) pins every port; here only CFSCALE_HOME changes, to a platform never started.
test('default platform: cf when `cf target` succeeds on a foundation, else local', async (t) => {
  // The world's CLI is logged in through the foundation stand-in; this CF_HOME to the local API itself.
  const localApiHome = dirOf('local-api-cf-home');
  // The password at cf's prompt (stdin), never on a command line.
  const login = spawnSync(path.join(ROOT, '.tools/bin/cf'), ['login', '-a', w.localApi, '-u', 'admin', '-o', 'local', '-s', 'local'],
    { env: { ...w.env(), CF_HOME: localApiHome }, encoding: 'utf8', input: 'admin\n' });
  assert.equal(login.status, 0, login.stdout);
  const cases = [
    { name: 'cf targeted at a foundation', env: {}, want: /^cf delete node-app -f$/m },
    // The local API named by its /v3/info: never taken for a foundation.
    { name: 'regression: cf targeted at the local platform\'s API is the local platform', env: { CF_HOME: localApiHome },
      want: /^scripts\/cfl down$/m, not: /^cf delete/m },
    { name: 'cf not targeted', env: { CF_HOME: dirOf('empty-cf-home'), CFSCALE_HOME: dirOf('never-started') }, want: /^scripts\/cfl down$/m },
  ];
  for (const c of cases) {
    await t.test(c.name, () => {
      const res = run('teardown.sh', ['--dry-run'], { PLATFORM: '', ...c.env });
      assert.equal(res.code, 0, res.stderr);
      assert.match(res.stdout, c.want);
      if (c.not) assert.doesNotMatch(res.stdout, c.not);
      assert.deepEqual(res.mutating, []);
    });
  }
});

test('checks that need a cf look-up: one line, exit 1, nothing run', async (t) => {
  const cases = [
    ['collect-stats.sh', ['--app', 'java-app', '--round', '1', '--source', 'v3', '--dry-run'], /^collect-stats: java-app is not pushed$/],
    ['collect-stats.sh', ['--app', 'node-app', '--round', '1', '--source', 'plugin', '--dry-run'],
      /^collect-stats: the cf statistics plugin is not installed \(not in \S+\/cf-home\/\.cf\/plugins\/config\.json\): install it, or use the v3 stats/],
    ['run-round.sh', ['--app', 'node-app', '--duration', '5s', '--stats-source', 'plugin', '--dry-run'], /^run-round: the cf statistics plugin is not installed/],
  ];
  for (const [script, args, want] of cases) {
    await t.test(`${script} ${args.join(' ')}`, () => {
      const res = run(script, args);
      assert.equal(res.code, 1, res.stderr);
      assert.equal(res.stdout, '');
      assert.equal(lines(res.stderr).length, 1, res.stderr);
      assert.match(res.stderr.trim(), want);
      assert.deepEqual(res.mutating, []);
    });
  }
  await t.test('the plugin listed in CF_HOME: collect-stats --source plugin runs it', () => {
    fs.mkdirSync(path.dirname(pluginsConfig()), { recursive: true });
    fs.writeFileSync(pluginsConfig(), JSON.stringify({ Plugins: { Statistics: { Location: '/nonexistent/statistics', Version: { Major: 1 } } } }));
    try {
      const res = run('collect-stats.sh', ['--app', 'node-app', '--round', '1', '--source', 'plugin', '--dry-run']);
      assert.equal(res.code, 0, res.stderr);
      assert.deepEqual(lines(res.stdout), ['cf statistics node-app --debug --full']);
    } finally {
      fs.rmSync(pluginsConfig(), { force: true });
    }
  });
});

const tunnel = tunnelFixture(w);

// Each push waits for the cf CLI's polls (3 s apart), as does CC's job of a create-service.
test('at once: node-app and loadgen pushed (the tiny app), java-db created, tunnel.sh pushing chisel', async () => {
  fs.writeFileSync(tunnel.vars, fs.readFileSync(path.join(ROOT, 'manifests/vars-example.yml'), 'utf8')
    .replace(/^domain: .*$/m, 'domain: localhost').replace(/^chisel-host: .*$/m, 'chisel-host: chisel'));
  // The client's local port: the last 50 of range cf-world (the platform's instances start 400 below).
  const [, last] = portRange('cf-world');
  tunnel.localPort = String(await freePortInRange(last - 49, last));
  const first = start('tunnel.sh', ['--platform', 'cf', '--local-port', tunnel.localPort], tunnel.env({ CF_CALL_LOG: tunnel.log('first') }));
  await Promise.all([w.setApps({ 'node-app': 1, loadgen: 1 }), w.cf('create-service', 'postgres', 'local', 'java-db')]);
  tunnel.first = await first.done;
});

test('cf preflight, all services there: the results database URL, the vars file', (t) => preflight(t, PREFLIGHT.filter((c) => c.later)));

test('push --dry-run: node_modules must be installed; a line says when the cf CLI still verifies certificates', async (t) => {
  await t.test('node_modules not installed: push stops before cf push', () => {
    // CFSCALE_MANIFEST_DIR=m: node-app.yml pushes a Node app without its modules.
    const dir = dirOf('no-modules');
    fs.mkdirSync(path.join(dir, 'm'), { recursive: true });
    fs.writeFileSync(path.join(dir, 'm/node-app.yml'), 'applications:\n- name: node-app\n  path: ../node-app\n');
    fs.mkdirSync(path.join(dir, 'node-app'), { recursive: true });
    fs.writeFileSync(path.join(dir, 'node-app/package.json'), '{"name":"app"}');
    fs.writeFileSync(path.join(dir, 'node-app/package-lock.json'), JSON.stringify({ packages: { 'node_modules/pg': {} } }));
    const res = run('push.sh', ['node-app', '--dry-run'], { CFSCALE_MANIFEST_DIR: path.join(dir, 'm') });
    assert.equal(res.code, 1, res.stderr);
    assert.equal(res.stdout, '');
    assert.match(res.stderr, /^push: \S+\/node-app\/node_modules lacks 1 package\(s\) of package-lock\.json \(first: pg\): run npm ci/);
  });
  const node = await w.guid('node-app');
  for (const [name, ssl, note] of [['the cf CLI verifies', false, true], ['the cf CLI skips (SSLDisabled)', true, false]]) {
    await t.test(`--skip-ssl-validation, ${name}`, () => withCfConfig({ SSLDisabled: ssl }, () => {
      const res = run('push.sh', ['node-app', '--skip-ssl-validation', '--dry-run']);
      assert.equal(res.code, 0, res.stderr);
      assert.deepEqual(lines(res.stdout), [`cf curl -X PATCH /v3/apps/${node}/environment_variables -d '{"var":{"CONTROL_TOKEN":"***"}}'`,
        `cf push node-app -f manifests/node-app.yml --vars-file ${w.vars} --redact-env`]);
      assert.equal(res.stderr, note
        ? 'push: note: the cf CLI itself verifies certificates; if the API\'s is self-signed: cf api API-URL --skip-ssl-validation (docs/cf-platform.md §13)\n' : '');
      assert.deepEqual(res.mutating, []);
    }));
  }
});

test('run-round --loadbalancing, the app absent: pushed first, the route as placeholders', async () => {
  // java-app stays absent
  const res = run('run-round.sh', ['--app', 'java-app', '--duration', '10s', '--seed-ads', '0', '--loadbalancing', 'round-robin', '--dry-run']);
  assert.equal(res.code, 0, res.stderr);
  assert.deepEqual(lines(res.stdout).filter((l) => !l.startsWith('mvn ')).slice(0, 4), [
    'cf create-app java-app',
    `cf curl -X PATCH '/v3/apps/<java-app-guid>/environment_variables' -d '{"var":{"CONTROL_TOKEN":"***"}}'`,
    `cf push java-app -f manifests/java-app.yml --vars-file ${w.vars} --redact-env -i 1`,
    "cf update-route '<java-app-domain>' --hostname '<java-app-host>' -o loadbalancing=round-robin",
  ]);
  assert.deepEqual(res.mutating, []);
});

test('--platform local under --dry-run: cfl up, cfl login (the cf login to its API), then the same cf commands', async (t) => {
  const node = await w.guid('node-app');
  const login = 'scripts/cfl login';
  await t.test('teardown --all, not logged in yet: up, login, the cf deletes, down', () => {
    const res = run('teardown.sh', ['--all', '--dry-run'], {}, { local: true });
    assert.equal(res.code, 0, res.stderr);
    assert.deepEqual(lines(res.stdout), ['scripts/cfl up', login, ...['node-app', 'java-app', 'loadgen'].map((a) => `cf delete ${a} -f`),
      ...['node-db', 'java-db', 'results-db'].map((s) => `cf delete-service ${s} -f`), 'scripts/cfl down']);
    assert.deepEqual(res.mutating, []);
  });
  // As the first run-round on this platform leaves it (ops/apps.js localPlatformUp).
  const localCfHome = path.join(w.localEnv().CFSCALE_HOME, 'cf-home');
  const loggedIn = spawnSync(path.join(ROOT, 'scripts/cfl'), ['login'], { env: { ...w.localEnv(), CF_HOME: localCfHome }, encoding: 'utf8' });
  assert.equal(loggedIn.status, 0, loggedIn.stderr);
  const cases = [
    ['collect-stats: the same v3 poll through cf', 'collect-stats.sh', ['--app', 'node-app', '--round', '1', '--dry-run'],
      [`cf curl /v3/apps/${node}/processes/web/stats`]],
    ['scale --cpu: the CPU quota as the process annotation, then cf scale', 'scale.sh', ['node-app', '-i', '2', '--cpu', '0.5', '--dry-run'],
      ['scripts/cfl up', 'scripts/cfl login', `cf curl -X PATCH /v3/processes/${node} -d '{"metadata":{"annotations":{"cfscale.local/cpu-quota":"0.5"}}}'`, 'cf scale node-app -i 2']],
  ];
  for (const [name, script, args, want] of cases) {
    await t.test(name, () => {
      const res = run(script, args, {}, { local: true });
      assert.equal(res.code, 0, res.stderr);
      assert.deepEqual(lines(res.stdout), want);
      assert.deepEqual(res.mutating, []);
    });
  }
  await t.test('run-round --cpu 0.2 --prewarm: the prewarm runs without the quota, 0.2 applied again before the timings clear', () => {
    const res = run('run-round.sh', ['--app', 'node-app', '--duration', '5s', '--cpu', '0.2', '--prewarm', '5', '--dry-run'], {}, { local: true });
    assert.equal(res.code, 0, res.stderr);
    const quota = (v) => `cf curl -X PATCH /v3/processes/${node} -d '{"metadata":{"annotations":{"cfscale.local/cpu-quota":"${v}"}}}'`;
    const steps = lines(res.stdout).filter((l) => l.includes('cpu-quota') || l.includes('--requests 5') || l.includes('/timings/clear'));
    assert.deepEqual(steps.map((l) => (l.includes('--requests 5') ? 'prewarm' : l.includes('/timings/clear') ? 'clear' : l)),
      [quota('0.2'), quota('none'), 'prewarm', quota('0.2'), 'clear']);
    assert.deepEqual(res.mutating, []);
  });
});

test('run-round --skip-ssl-validation: seeding, prewarm, timings clear and flush skip verification; default from SSLDisabled', async (t) => {
  const node = await w.guid('node-app');
  const pinned = (p, method = 'POST') => `curl -sS --fail-with-body --max-time 60 --insecure -X ${method} -H 'X-Cf-App-Instance: ${node}:0' -H 'Authorization: Bearer ***' ${p}`;
  const insecure = [
    `node loadgen/bin/loadgen.js --url ${URL} --seed 1000 --seed-only --insecure`,
    `node loadgen/bin/loadgen.js --requests 5 --parallel 8 --no-progress --max-error-rate 0 -H 'X-Cf-App-Instance: ${node}:0' --insecure --url ${URL} --scenario read --seed 1000`,
    pinned(`${URL}/timings/clear`),
    `cf curl /v3/apps/${node}/processes/web/stats`,
    'cf logs node-app',
    pinned(`${URL}/timings`, 'GET'),
    pinned(`'${URL}/timings/flush?round=<round>'`),
  ];
  const cases = [['the flag', ['--skip-ssl-validation'], {}, true], ['SSLDisabled in CF_HOME', [], { SSLDisabled: true }, true], ['neither', [], {}, false]];
  for (const [name, args, config, skip] of cases) {
    await t.test(name, () => withCfConfig(config, () => {
      const res = run('run-round.sh', ['--app', 'node-app', '--duration', '5s', '--prewarm', '5', '--dry-run', ...args]);
      assert.equal(res.code, 0, res.stderr);
      assert.deepEqual(lines(res.stdout).slice(0, insecure.length), skip ? insecure : insecure.map((l) => l.replace(/ --insecure/, '')));
      assert.deepEqual(res.mutating, []);
    }));
  }
});

test('run-round --loadbalancing, node-app present: cf update-route on its route; the printed line works', async (t) => {
  const node = await w.guid('node-app');
  const RR = ['--app', 'node-app', '--duration', '10s', '--seed-ads', '0', '--dry-run'];
  let printed;
  await t.test('the sequence under --dry-run', () => {
    const res = run('run-round.sh', [...RR, '--loadbalancing', 'least-connection']);
    assert.equal(res.code, 0, res.stderr);
    const pinned = (p, method = 'POST') => `curl -sS --fail-with-body --max-time 60 -X ${method} -H 'X-Cf-App-Instance: ${node}:0' -H 'Authorization: Bearer ***' ${p}`;
    assert.deepEqual(lines(res.stdout), [
      'cf update-route localhost --hostname node-app -o loadbalancing=least-connection',
      pinned(`${URL}/timings/clear`),
      `cf curl /v3/apps/${node}/processes/web/stats`,
      'cf logs node-app',
      pinned(`${URL}/timings`, 'GET'),
      pinned(`'${URL}/timings/flush?round=<round>'`),
      `cf curl '/v3/audit_events?target_guids=${node}&types=audit.app.process.crash&created_ats[gte]=<created-at>&per_page=5000'`,
    ]);
    assert.deepEqual(res.mutating, []);
    [printed] = lines(res.stdout);
  });
  await t.test('without --loadbalancing the route is left alone', () => {
    const res = run('run-round.sh', RR);
    assert.equal(res.code, 0, res.stderr);
    assert.equal(lines(res.stdout).filter((l) => l.includes('update-route')).length, 0, res.stdout);
  });
  await t.test('the printed cf update-route sets the route\'s option', async () => {
    await w.cf(...printed.split(' ').slice(1));
    const route = JSON.parse(await w.cf('curl', `/v3/apps/${node}/routes`)).resources[0];
    assert.deepEqual(route.options, { loadbalancing: 'least-connection' });
  });
});

test('the round document on cf: the rounds columns from the CLI and Cloud Controller', async (t) => {
  const node = await w.guid('node-app');
  const env = w.env();
  const saved = { ...process.env };
  Object.assign(process.env, { PATH: env.PATH, CF_HOME: w.cfHome, CF_CALL_LOG: env.CF_CALL_LOG, CFSCALE_VARS_FILE: w.vars });
  try {
    const { makeCli } = require('../scripts/ops/cli');
    const { selectPlatform } = require('../scripts/ops/target');
    const { roundDocument } = require('../scripts/round/round-doc');
    const { nodeLibs } = require('../scripts/round/app-versions');
    const gitRev = spawnSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: ROOT, encoding: 'utf8' }).stdout.trim() || null;
    const OPTIONS = {
      app: 'node-app', instances: '1', loadgens: '1', parallel: '4', rate: '', durationMs: 10000, requests: '', warmupMs: 0,
      timeoutMs: 10000, keepalive: true, scenario: 'read', label: '', experiment: '', seedAds: '1000', prewarm: '0',
      loadbalancing: '', cpu: '', statsSource: 'auto', events: [],
    };
    const environment = { stats_source: 'v3', stats_interval_s: 15, app_memory_mb: 64, cf_api: w.api };
    const DOC = {
      platform: 'cf', app: 'node-app', target_url: URL, host_header: null, app_instances: 1, loadgens: 1, model: 'closed',
      parallel: 4, rate: null, duration_ms: 10000, requests: null, warmup_ms: 0, timeout_ms: 10000, keepalive: true,
      // The route's algorithm as CC reports it: the test before set least-connection.
      scenario: 'read', plan: { seed_ads: 1000, prewarm: 0, loadbalancing: 'least-connection' }, label: null, experiment: null,
      git_rev: gitRev,
      // The droplet's buildpack and stack (the local platform stages as CF's nodejs_buildpack on cflinuxfs4).
      versions: { cf_cli: (await w.cf('version')).split('\n')[0], app_libs: nodeLibs(), buildpacks: ['nodejs_buildpack'], stack: 'cflinuxfs4' },
      // The tiny app's memory and its one variable (cf-local-world.js).
      environment, settings: { BUSY: '0' }, steady_gate: null,
    };
    const cases = [
      { name: 'defaults, closed model', options: {}, want: DOC },
      {
        name: 'open model by requests, no seeding, prewarm, label and experiment, plugin stats',
        options: { rate: '0.50', parallel: '', requests: '100', durationMs: null, seedAds: '0', prewarm: '300',
          keepalive: false, label: 'a b', experiment: 'x', statsSource: 'v3' },
        want: { ...DOC, model: 'open', parallel: null, rate: 0.5, duration_ms: null, requests: 100, keepalive: false,
          plan: { prewarm: 300, loadbalancing: 'least-connection' }, label: 'a b', experiment: 'x',
          environment: { ...environment, stats_source: 'plugin' } },
        stats: { source: 'plugin', intervalSec: 15 },
      },
      {
        name: 'the steady-state gate on: its settings recorded',
        options: { steadyGate: { windowMs: 10000, cvMax: 0.1, trendMax: 0.05, maxWarmupMs: 60000 } },
        want: { ...DOC, steady_gate: { window_ms: 10000, cv_max: 0.1, trend_max: 0.05, max_warmup_ms: 60000 } },
      },
      {
        name: 'TLS front proxies: the loadgens target them (plan.target_urls), the first one is target_url',
        options: {}, frontUrls: ['https://127.0.0.1:8443', 'https://127.0.0.1:8444'],
        want: { ...DOC, target_url: 'https://127.0.0.1:8443', plan: { ...DOC.plan, front_proxies: 2,
          target_urls: ['https://127.0.0.1:8443', 'https://127.0.0.1:8444'] } },
      },
    ];
    const p = await selectPlatform(makeCli('run-round'), { platformOpt: 'cf' });
    for (const c of cases) {
      await t.test(c.name, async () => {
        const doc = await roundDocument({ p, o: { ...OPTIONS, ...c.options }, guid: node, baseUrl: URL, hostHeader: '',
          stats: c.stats ?? { source: 'v3', intervalSec: 15 }, frontUrls: c.frontUrls ?? null });
        assert.deepEqual(doc, c.want);
        assert.deepEqual(Object.keys(doc), Object.keys(c.want), 'column order');
      });
    }
  } finally {
    for (const k of Object.keys(process.env)) if (!(k in saved)) delete process.env[k];
    Object.assign(process.env, saved);
  }
});

collectorTests({ w, tunnel, testDbUrl: () => testDb.url, pluginsConfig });

wholeRoundTests({ w, run });

tunnelTests({ w, tunnel, run });
