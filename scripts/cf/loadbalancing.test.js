'use strict';
// run-round --loadbalancing on CF: the exact command sequence under --dry-run against the
// fake cf of the dry-run tests (scripts/test/fixtures/fake-cf.js: v3 shapes, route
// node-app.apps.example.com), the usage error, and the printed `cf update-route` checked
// against the REAL cf CLI's `cf update-route --help` (skipped when .tools/bin/cf is not built).
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { spawnSync } = require('node:child_process');

const { makeWorld, removeWorlds, worldEnv, cfCalls, guidOf, READ_ONLY, ROOT } = require('../test/fake-cf-world');

const REAL_CF = path.join(ROOT, '.tools', 'bin', 'cf');

const dirs = [];
test.after(() => {
  removeWorlds();
  for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
});

/** An empty CF_HOME for the real cf CLI. */
function tmpDir() {
  const d = fs.mkdtempSync(path.join(os.tmpdir(), 'cfscale-cf-lb-'));
  dirs.push(d);
  return d;
}

/** run-round.sh on PLATFORM=cf with the fake cf holding `apps` (and printing cfVersion). */
function runRound(apps, args, { cfVersion } = {}) {
  const w = makeWorld({ apps, ...(cfVersion ? { cfVersion } : {}) });
  const res = spawnSync('bash', [path.join(ROOT, 'scripts/run-round.sh'), ...args], { encoding: 'utf8', env: worldEnv(w) });
  const calls = cfCalls(w);
  return { ...res, world: w, lines: res.stdout.split('\n').filter(Boolean), mutating: calls.filter((a) => !READ_ONLY.has(a[0])) };
}

const NODE = guidOf('node-app');
const RR = ['--app', 'node-app', '--duration', '10s', '--seed-ads', '0', '--dry-run'];

test('run-round --loadbalancing: cf update-route on the app\'s route before the round', async (t) => {
  const cases = [
    {
      name: 'app present: host and domain from its v3 route',
      apps: { 'node-app': { instances: 1 }, loadgen: { instances: 1 } },
      args: [...RR, '--loadbalancing', 'least-connection'],
      want: () => [
        'cf update-route apps.example.com --hostname node-app -o loadbalancing=least-connection',
        `curl -sS --fail-with-body --max-time 60 -D - -X POST -H 'X-Cf-App-Instance: ${NODE}:0' https://node-app.apps.example.com/timings/clear`,
        `cf curl /v3/apps/${NODE}/processes/web/stats`,
        'cf logs node-app',
        `curl -sS --fail-with-body --max-time 60 -D - -X POST -H 'X-Cf-App-Instance: ${NODE}:0' 'https://node-app.apps.example.com/timings/flush?round=<round>'`,
        `cf curl '/v3/audit_events?target_guids=${NODE}&types=audit.app.process.crash&created_ats[gte]=<created-at>&per_page=5000'`,
      ],
    },
    {
      name: 'app absent: pushed first, the route shows as placeholders',
      apps: { loadgen: { instances: 1 } },
      args: [...RR, '--loadbalancing', 'round-robin'],
      want: (w) => [
        `cf push node-app -f manifests/node-app.yml --vars-file ${w}/vars.yml -i 1`,
        "cf update-route '<node-app-domain>' --hostname '<node-app-host>' -o loadbalancing=round-robin",
      ],
      prefix: true,
    },
    {
      name: 'without --loadbalancing the route is left alone',
      apps: { 'node-app': { instances: 1 }, loadgen: { instances: 1 } },
      args: RR,
      none: true,
    },
  ];
  for (const c of cases) {
    await t.test(c.name, () => {
      const r = runRound(c.apps, c.args);
      assert.equal(r.status, 0, r.stderr);
      assert.deepEqual(r.mutating, [], 'no mutating cf call under --dry-run');
      if (c.none) assert.equal(r.lines.filter((l) => l.includes('update-route')).length, 0, r.stdout);
      else if (c.prefix) assert.deepEqual(r.lines.slice(0, c.want(r.world).length), c.want(r.world));
      else assert.deepEqual(r.lines, c.want(r.world));
    });
  }
});

test('run-round --loadbalancing hash (or anything else): one line, exit 1, nothing run', async (t) => {
  for (const algo of ['hash', 'least-conn', 'Round-Robin']) {
    await t.test(JSON.stringify(algo), () => {
      const r = runRound({ 'node-app': { instances: 1 }, loadgen: { instances: 1 } }, [...RR, '--loadbalancing', algo]);
      assert.equal(r.status, 1);
      assert.equal(r.stdout, '');
      assert.equal(r.stderr, `run-round: --loadbalancing must be round-robin or least-connection, got "${algo}" (see --help)\n`);
    });
  }
});

test('run-round --loadbalancing with a cf CLI older than 8.9.1: one line naming the CLI and CC API versions, exit 1, nothing run', async (t) => {
  const apps = { 'node-app': { instances: 1 }, loadgen: { instances: 1 } };
  const cases = [
    ['8.9.0+e0ec1b0.2024-11-05', 'this is 8.9.0'],
    ['7.7.13+a9f8a7c.2024-07-26', 'this is 7.7.13'],
    ['0.0.0-unknown-version', 'cannot tell from "cf version 0.0.0-unknown-version"'],
  ];
  for (const [cfVersion, found] of cases) {
    await t.test(cfVersion, () => {
      const r = runRound(apps, [...RR, '--loadbalancing', 'least-connection'], { cfVersion });
      assert.equal(r.status, 1, r.stderr);
      assert.equal(r.stdout, '');
      assert.equal(r.stderr, `run-round: --loadbalancing needs cf CLI >= 8.9.1 (${found}) and CC API >= 3.183.0 `
        + '(least-connection: >= 3.187.0; docs/cf-platform.md §11): install a newer cf v8\n');
      assert.deepEqual(r.mutating, []);
    });
  }
  for (const cfVersion of ['8.9.1+3fc1a57.2024-12-04', '8.10.0+0b2f8a2.2025-01-30', '9.0.0']) {
    await t.test(`${cfVersion} passes`, () => {
      const r = runRound(apps, [...RR, '--loadbalancing', 'round-robin'], { cfVersion });
      assert.equal(r.status, 0, r.stderr);
      assert.ok(r.lines.includes('cf update-route apps.example.com --hostname node-app -o loadbalancing=round-robin'), r.stdout);
    });
  }
  await t.test('without --loadbalancing an old cf CLI is fine', () => {
    const r = runRound(apps, RR, { cfVersion: '8.5.0+fc147d8.2022-09-26' });
    assert.equal(r.status, 0, r.stderr);
  });
});

test('the real cf CLI\'s `cf version` line parses as its release', { skip: !fs.existsSync(REAL_CF) && 'cf not built (scripts/setup.sh builds .tools/bin/cf)' }, () => {
  const { parseCfVersion } = require('../ops/cf-version');
  const v = spawnSync(REAL_CF, ['version'], { encoding: 'utf8', env: { ...process.env, CF_HOME: tmpDir(), CF_COLOR: 'false' } });
  assert.equal(v.status, 0, v.stderr);
  assert.deepEqual(parseCfVersion(v.stdout), [8, 17, 0], v.stdout);
});

test('the printed cf update-route is accepted by the real cf CLI', { skip: !fs.existsSync(REAL_CF) && 'cf not built (scripts/setup.sh builds .tools/bin/cf)' }, () => {
  const r = runRound({ 'node-app': { instances: 1 }, loadgen: { instances: 1 } }, [...RR, '--loadbalancing', 'least-connection']);
  const line = r.lines.find((l) => l.startsWith('cf update-route '));
  const help = spawnSync(REAL_CF, ['update-route', '--help'], { encoding: 'utf8', env: { ...process.env, CF_HOME: tmpDir(), CF_COLOR: 'false' } });
  assert.equal(help.status, 0, help.stderr);
  assert.match(help.stdout, /cf update-route DOMAIN \[--hostname HOSTNAME\] \[--path PATH\] \[--option OPTION=VALUE\] \[--remove-option OPTION\]/);
  const known = new Set([...help.stdout.split(/^OPTIONS:$/m)[1].matchAll(/^\s+(--[\w-]+)(?:, (-\w))?/gm)].flatMap((m) => [m[1], m[2]]).filter(Boolean));
  const words = line.split(' ');
  const flags = words.filter((w) => w.startsWith('-'));
  assert.deepEqual(flags, ['--hostname', '-o']);
  for (const f of flags) assert.ok(known.has(f), `cf update-route has no ${f} (knows ${[...known].join(' ')})`);
  assert.match(help.stdout, /-o loadbalancing=least-connection/, 'the option syntax of the help\'s examples');
  assert.equal(words[words.indexOf('-o') + 1], 'loadbalancing=least-connection');
});
