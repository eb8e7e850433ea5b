'use strict';
// cf-local-world.js — a Cloud Foundry for the scripts' tests that run PLATFORM=cf: one
// local platform per test file (its own CFSCALE_HOME and the ports of a range of ports.json, cf-world unless told), the REAL cf
// CLI (.tools/bin/cf) logged in to its Cloud Controller with a CF_HOME of the world's, the
// services node-db, java-db and results-db, and the harness's apps as the tiny fixture app
// (local-platform/test/fixtures/tiny-app) under their names, at the instance counts a test asks
// for. The scripts find `cf` first on PATH as a shim that appends each argv to a log and
// execs the real CLI: a test sees which cf commands ran. Under the heavy lock.
//
// localCfWorld({ services, foundation, range }) registers before/after hooks and returns w (services:
// those to create, default all three; each `cf create-service` waits for CC's job, so at once;
// foundation: the CLI logged in through foundation-api.js, whose /v3/info is a foundation's,
// so the scripts print and do what they would on CF, https://ROUTE included):
//   w.setApps({ 'node-app': 2, loadgen: 1 })  push / scale / delete so exactly these run
//   w.guid(app), w.env(extra) (PATH, HOME, CF_HOME, PLATFORM=cf, CFSCALE_VARS_FILE),
//   w.localEnv(extra): PLATFORM=local on this platform (its CFSCALE_HOME and ports; the scripts
//     log in with a CF_HOME of its own, ops/target.js localCfHome), w.cf(...args) → stdout,
//   w.calls() → every cf argv since the last w.clearCalls(); w.vars, w.dir, w.api (the URL
//   logged in to), w.localApi (the platform's own API);
//   w.controlToken: the CONTROL_TOKEN every app but the loadgen gets after its push
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const { spawn } = require('node:child_process');
const { freePortInRange, portRange } = require('../lib/ports');
const { cfCliWorld, CF, REPO: ROOT } = require('../local-platform/test/fixtures/cf-cli-world');

const TINY = path.join(ROOT, 'local-platform/test/fixtures/tiny-app/manifest.yml');
const HARNESS_APPS = ['node-app', 'java-app', 'loadgen'];
// The cf verbs that change nothing (a --dry-run may call only these).
const READ_ONLY = new Set(['app', 'curl', 'target', 'oauth-token', 'version', 'service-key']);

/**
 * Its range of ports.json (suites that run side by side have one each): router, PostgreSQL
 * and API in its first 100, then instances.
 */
async function worldPorts(range) {
  const [first] = portRange(range);
  return {
    CFSCALE_ROUTER_PORT: String(await freePortInRange(first, first + 39)),
    CFSCALE_FRONT_PROXY_PORT_BASE: String(first + 40),
    CFSCALE_PG_PORT: String(await freePortInRange(first + 50, first + 79)),
    CFSCALE_API_PORT: String(await freePortInRange(first + 80, first + 94)),
    CFSCALE_ROUTER_TLS_PORT: String(await freePortInRange(first + 95, first + 99)),
    CFSCALE_INSTANCE_PORT_BASE: String(first + 100),
  };
}

function localCfWorld({ services = ['node-db', 'java-db', 'results-db'], foundation = false, range = 'cf-world' } = {}) {
  // The platform, its CF_HOME and its helpers (local-platform/test/fixtures/cf-cli-world.js).
  const core = cfCliWorld({ portEnv: () => worldPorts(range), gracefulShutdownSec: 1 });
  const dir = core.home;
  const w = {
    dir, vars: path.join(dir, 'vars.yml'), home: path.join(dir, 'home'), cfHome: core.cfHome, apps: {},
    controlToken: 'cf-world-control-token-0123456789abcdef',
  };
  const log = path.join(dir, 'cf-calls.log');
  let proxy = null;

  const cf = async (...args) => (await core.cfOk(...args)).trim();

  w.env = (extra = {}) => ({
    ...process.env,
    PATH: `${path.join(dir, 'bin')}:${path.dirname(CF)}:${process.env.PATH}`,
    HOME: w.home, CF_HOME: w.cfHome, PLATFORM: 'cf', CFSCALE_VARS_FILE: w.vars,
    CF_CALL_LOG: log, CF_COLOR: 'false', CF_TRACE: 'false',
    ...extra,
  });
  w.localEnv = (extra = {}) => ({
    ...w.env(), ...core.env, PATH: w.env().PATH, PLATFORM: 'local', CFSCALE_VARS_FILE: '', ...extra,
  });
  w.cf = cf;
  w.calls = () => (fs.existsSync(log) ? fs.readFileSync(log, 'utf8') : '').split('\n').filter(Boolean).map((l) => l.split(' '));
  w.clearCalls = () => fs.rmSync(log, { force: true });
  w.guid = (app) => cf('app', app, '--guid');

  w.setApps = async (want) => {
    // Each app on its own (the pushes in parallel: staging and start take the CLI's polls).
    await Promise.all(HARNESS_APPS.map(async (app) => {
      const n = want[app] || 0;
      const have = w.apps[app] || 0;
      if (n === have) return;
      if (n === 0) await cf('delete', app, '-f');
      else if (have === 0) {
        const manifestVars = path.join(dir, `tiny-vars-${app}.yml`);
        fs.writeFileSync(manifestVars, `name: ${app}\nmemory: 64M\ninstances: ${n}\ndomain: localhost\nservices: []\nbusy: "0"\n`);
        await cf('push', app, '-f', TINY, '--vars-file', manifestVars);
        // As scripts/push.sh leaves an app with /timings: run-round reads its credential from CC.
        if (app !== 'loadgen') await cf('set-env', app, 'CONTROL_TOKEN', w.controlToken);
      } else await cf('scale', app, '-i', String(n));
      w.apps[app] = n;
    }));
    // Until every instance runs: the scripts look at the v3 stats.
    for (const [app, n] of Object.entries(w.apps).filter(([, k]) => k > 0)) {
      const guid = await w.guid(app);
      for (let i = 0; ; i++) {
        const states = JSON.parse(await cf('curl', `/v3/processes/${guid}/stats`)).resources.map((r) => r.state);
        if (states.length === n && states.every((s) => s === 'RUNNING')) break;
        assert.ok(i < 120, `${app}: ${states.join(' ')}`);
        await new Promise((r) => setTimeout(r, 500));
      }
    }
  };

  test.before(async () => {
    await core.ready;
    fs.mkdirSync(path.join(dir, 'bin'));
    fs.writeFileSync(path.join(dir, 'bin/cf'), `#!/bin/sh\nprintf '%s\\n' "$*" >>"$CF_CALL_LOG"\nexec ${CF} "$@"\n`, { mode: 0o755 });
    fs.mkdirSync(w.home);
    fs.copyFileSync(path.join(ROOT, 'manifests/vars-example.yml'), w.vars);
    await core.ready;
    w.localApi = core.api;
    w.api = w.localApi;
    if (foundation) {
      proxy = spawn(process.execPath, [path.join(__dirname, 'foundation-api.js'), w.localApi], { stdio: ['ignore', 'pipe', 'inherit'] });
      w.api = await new Promise((resolve) => { proxy.stdout.once('data', (d) => resolve(String(d).trim())); });
    }
    const api = w.api;
    // Without --skip-ssl-validation: the scripts read SSLDisabled from this config (docs/cf-platform.md §13).
    // The password in CF_PASSWORD (cf auth), never on a command line.
    await cf('api', api);
    const auth = await core.run(CF, ['auth'], 180000, { env: { CF_USERNAME: 'admin', CF_PASSWORD: 'admin' } });
    assert.equal(auth.code, 0, `cf auth:\n${auth.out}`);
    await cf('target', '-o', 'local', '-s', 'local');
    await Promise.all(services.map((s) => cf('create-service', 'postgres', 'local', s)));
  });

  test.after(() => {
    if (proxy) proxy.kill();
  });

  return w;
}

module.exports = { localCfWorld, READ_ONLY, ROOT };
