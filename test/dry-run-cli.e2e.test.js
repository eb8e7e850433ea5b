'use strict';
// dry-run-cli.e2e.test.js — the exact cf command sequences of push, scale, run-round,
// collect-* and teardown on PLATFORM=cf under --dry-run, with the REAL cf CLI answering the
// look-ups from a Cloud Controller (the local platform's, cf-local-world.js): what the
// scripts print is what they would run on CF, and under --dry-run they call only cf
// commands that change nothing. One platform for the file; the cases are ordered so the
// apps change as little as possible between them. Under the heavy lock.
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const { spawnSync } = require('node:child_process');
const { localCfWorld, READ_ONLY, ROOT } = require('./cf-local-world');

const w = localCfWorld({ foundation: true, range: 'cf-world-e2e' });
const lines = (s) => s.split('\n').filter(Boolean);
const AUTH = "-H 'Authorization: Bearer ***'";
const pinned = (guid, i, url, method = 'POST') => `curl -sS --fail-with-body --max-time 60 -X ${method} -H 'X-Cf-App-Instance: ${guid}:${i}' ${AUTH} ${url}`;
// Before the flush: what a full timing buffer did not keep (the flush forgets it).
const state = (guid, i, base) => pinned(guid, i, base.includes('<') ? `'${base}/timings'` : `${base}/timings`, 'GET');
// A fresh control credential before each push of an app with /timings, masked; created first when absent.
const setToken = (guid) => `cf curl -X PATCH ${guid.startsWith('<') ? `'/v3/apps/${guid}/environment_variables'` : `/v3/apps/${guid}/environment_variables`} -d '{"var":{"CONTROL_TOKEN":"***"}}'`;
const createApp = (app) => [`cf create-app ${app}`, setToken(`<${app}-guid>`)];
const auditEvents = (guid) => `cf curl '/v3/audit_events?target_guids=${guid}&types=audit.app.process.crash&created_ats[gte]=<created-at>&per_page=5000'`;
const URL = 'https://node-app.localhost';
const PLUGINS = () => path.join(w.cfHome, '.cf/plugins/config.json');

function run(script, args, env = {}) {
  w.clearCalls();
  const res = spawnSync('bash', [path.join(ROOT, 'scripts', script), ...args], { encoding: 'utf8', env: w.env(env) });
  return { code: res.status, stdout: res.stdout, stderr: res.stderr, calls: w.calls() };
}

/** Each case: the apps running, then the script's --dry-run lines; no mutating cf call. */
async function check(t, apps, cases, { plugin = false } = {}) {
  await w.setApps(apps);
  const guids = {};
  for (const app of Object.keys(apps)) guids[app] = await w.guid(app);
  if (plugin) {
    fs.mkdirSync(path.dirname(PLUGINS()), { recursive: true });
    fs.writeFileSync(PLUGINS(), JSON.stringify({ Plugins: { Statistics: { Location: '/nonexistent/statistics', Version: { Major: 1 } } } }));
  }
  try {
    for (const c of cases) {
      await t.test(c.name, () => {
        const res = run(c.script, c.args, c.env);
        assert.equal(res.code, 0, res.stderr);
        let got = lines(res.stdout);
        if (c.skipJava) got = got.filter((l) => !l.startsWith('mvn '));
        assert.deepEqual(got, c.want(guids));
        assert.deepEqual(res.calls.filter((a) => !READ_ONLY.has(a[0])), [], 'no mutating cf call under --dry-run');
      });
    }
  } finally {
    fs.rmSync(PLUGINS(), { force: true });
  }
}

test('node-app x1, loadgen x1: push, scale, teardown, collectors, run-round with prewarm on /health', async (t) => {
  await check(t, { 'node-app': 1, loadgen: 1 }, [
    { name: 'push one app', script: 'push.sh', args: ['node-app', '--dry-run'],
      want: (g) => [setToken(g['node-app']), `cf push node-app -f manifests/node-app.yml --vars-file ${w.vars} --redact-env`] },
    { name: 'push all with -i', script: 'push.sh', args: ['all', '-i', '3', '--dry-run'], skipJava: true,
      want: (g) => [
        setToken(g['node-app']), `cf push node-app -f manifests/node-app.yml --vars-file ${w.vars} --redact-env -i 3`,
        ...createApp('java-app'), `cf push java-app -f manifests/java-app.yml --vars-file ${w.vars} --redact-env -i 3`,
        `cf push loadgen -f manifests/loadgen.yml --vars-file ${w.vars} -i 3`,
      ] },
    { name: 'scale', script: 'scale.sh', args: ['node-app', '-i', '4', '--dry-run'], want: () => ['cf scale node-app -i 4'] },
    { name: 'teardown', script: 'teardown.sh', args: ['--dry-run'],
      want: () => ['cf delete node-app -f', 'cf delete java-app -f', 'cf delete loadgen -f'] },
    { name: 'teardown --all', script: 'teardown.sh', args: ['--all', '--dry-run'],
      want: () => ['cf delete node-app -f', 'cf delete java-app -f', 'cf delete loadgen -f',
        'cf delete-service node-db -f', 'cf delete-service java-db -f', 'cf delete-service results-db -f'] },
    { name: 'collect-stats --source auto without the plugin: v3', script: 'collect-stats.sh', args: ['--app', 'node-app', '--round', '<round>', '--dry-run'],
      want: (g) => [`cf curl /v3/apps/${g['node-app']}/processes/web/stats`] },
    { name: 'collect-logs', script: 'collect-logs.sh', args: ['--app', 'java-app', '--round', '2', '--dry-run'], want: () => ['cf logs java-app'] },
    { name: 'run-round --prewarm without seeding warms on /health', script: 'run-round.sh',
      args: ['--app', 'node-app', '--duration', '10s', '--seed-ads', '0', '--prewarm', '5', '--dry-run'],
      want: (g) => [
        `node loadgen/bin/loadgen.js --requests 5 --parallel 8 --no-progress --max-error-rate 0 -H 'X-Cf-App-Instance: ${g['node-app']}:0' --url ${URL}/health`,
        pinned(g['node-app'], 0, `${URL}/timings/clear`),
        `cf curl /v3/apps/${g['node-app']}/processes/web/stats`,
        'cf logs node-app',
        state(g['node-app'], 0, URL),
        pinned(g['node-app'], 0, `'${URL}/timings/flush?round=<round>'`),
        auditEvents(g['node-app']),
      ] },
  ]);
});

test('node-app x2, loadgen x1 with the statistics plugin installed: v3 stays the default; loadgen scaled up; prewarm', async (t) => {
  const node = (g) => g['node-app'];
  await check(t, { 'node-app': 2, loadgen: 1 }, [
    { name: 'collect-stats defaults to v3 also with the plugin installed (it calls only v2 endpoints)', script: 'collect-stats.sh',
      args: ['--app', 'node-app', '--round', '1', '--dry-run'], want: (g) => [`cf curl /v3/apps/${node(g)}/processes/web/stats`] },
    { name: 'collect-stats --source plugin, DRY_RUN=1', script: 'collect-stats.sh', args: ['--app', 'java-app', '--round', '1', '--source', 'plugin'],
      env: { DRY_RUN: '1' }, want: () => ['cf statistics java-app --debug --full'] },
    { name: 'run-round: app at its count, loadgen scaled up, v3 stats', script: 'run-round.sh',
      args: ['--app', 'node-app', '--instances', '2', '--loadgens', '3', '--parallel', '4', '--duration', '10s', '--dry-run'],
      want: (g) => [
        'cf scale loadgen -i 3',
        `node loadgen/bin/loadgen.js --url ${URL} --seed 1000 --seed-only`,
        ...[0, 1].map((i) => pinned(node(g), i, `${URL}/timings/clear`)),
        `cf curl /v3/apps/${node(g)}/processes/web/stats`,
        'cf logs node-app',
        ...[0, 1].map((i) => state(node(g), i, URL)),
        ...[0, 1].map((i) => pinned(node(g), i, `'${URL}/timings/flush?round=<round>'`)),
        auditEvents(node(g)),
      ] },
    { name: 'run-round --prewarm: pinned requests to each instance before the timings are cleared', script: 'run-round.sh',
      args: ['--app', 'node-app', '--instances', '2', '--duration', '10s', '--seed-ads', '50', '--prewarm', '300', '--dry-run'],
      want: (g) => [
        `node loadgen/bin/loadgen.js --url ${URL} --seed 50 --seed-only`,
        ...[0, 1].map((i) => `node loadgen/bin/loadgen.js --requests 300 --parallel 8 --no-progress --max-error-rate 0 -H 'X-Cf-App-Instance: ${node(g)}:${i}' --url ${URL} --scenario read --seed 50`),
        ...[0, 1].map((i) => pinned(node(g), i, `${URL}/timings/clear`)),
        `cf curl /v3/apps/${node(g)}/processes/web/stats`,
        'cf logs node-app',
        ...[0, 1].map((i) => state(node(g), i, URL)),
        ...[0, 1].map((i) => pinned(node(g), i, `'${URL}/timings/flush?round=<round>'`)),
        auditEvents(node(g)),
      ] },
  ], { plugin: true });
});

test('node-app absent: run-round pushes it (guid and route placeholders under --dry-run); more loadgens than needed stay', async (t) => {
  const pushed = [
    `curl -sS --fail-with-body --max-time 60 -X POST -H 'X-Cf-App-Instance: <node-app-guid>:0' ${AUTH} 'https://<node-app-route>/timings/clear'`,
    "cf curl '/v3/apps/<node-app-guid>/processes/web/stats'",
    'cf logs node-app',
    state('<node-app-guid>', 0, 'https://<node-app-route>'),
    `curl -sS --fail-with-body --max-time 60 -X POST -H 'X-Cf-App-Instance: <node-app-guid>:0' ${AUTH} 'https://<node-app-route>/timings/flush?round=<round>'`,
    auditEvents('<node-app-guid>'),
  ];
  await check(t, { loadgen: 1 }, [
    { name: 'run-round: app absent is pushed, v3 stats of its placeholder guid', script: 'run-round.sh',
      args: ['--app', 'node-app', '--duration', '10s', '--seed-ads', '0', '--dry-run'],
      want: () => [...createApp('node-app'), `cf push node-app -f manifests/node-app.yml --vars-file ${w.vars} --redact-env -i 1`, ...pushed] },
  ]);
  await check(t, { loadgen: 4 }, [
    { name: 'run-round: app absent is pushed, more loadgens than needed stay, plugin stats', script: 'run-round.sh',
      args: ['--app', 'node-app', '--instances', '3', '--loadgens', '2', '--rate', '50', '--requests', '1000', '--seed-ads', '20', '--stats-source', 'plugin', '--dry-run'],
      want: () => [
        ...createApp('node-app'),
        `cf push node-app -f manifests/node-app.yml --vars-file ${w.vars} --redact-env -i 3`,
        "node loadgen/bin/loadgen.js --url 'https://<node-app-route>' --seed 20 --seed-only",
        ...[0, 1, 2].map((i) => `curl -sS --fail-with-body --max-time 60 -X POST -H 'X-Cf-App-Instance: <node-app-guid>:${i}' ${AUTH} 'https://<node-app-route>/timings/clear'`),
        'cf statistics node-app --debug --full',
        'cf logs node-app',
        ...[0, 1, 2].map((i) => state('<node-app-guid>', i, 'https://<node-app-route>')),
        ...[0, 1, 2].map((i) => `curl -sS --fail-with-body --max-time 60 -X POST -H 'X-Cf-App-Instance: <node-app-guid>:${i}' ${AUTH} 'https://<node-app-route>/timings/flush?round=<round>'`),
        auditEvents('<node-app-guid>'),
      ] },
  ], { plugin: true });
});

test('java-app x3, loadgen x2: run-round scales the app down, enough loadgens stay, no seeding', async (t) => {
  const java = 'https://java-app.localhost';
  await check(t, { 'java-app': 3, loadgen: 2 }, [
    { name: 'run-round: app at another count is scaled', script: 'run-round.sh',
      args: ['--app', 'java-app', '--instances', '1', '--loadgens', '2', '--duration', '1m', '--stats-source', 'v3', '--seed-ads', '0', '--dry-run'],
      want: (g) => [
        'cf scale java-app -i 1',
        pinned(g['java-app'], 0, `${java}/timings/clear`),
        `cf curl /v3/apps/${g['java-app']}/processes/web/stats`,
        'cf logs java-app',
        state(g['java-app'], 0, java),
        pinned(g['java-app'], 0, `'${java}/timings/flush?round=<round>'`),
        auditEvents(g['java-app']),
      ] },
  ]);
});
