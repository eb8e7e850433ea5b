'use strict';
// round-doc.test.js — the round document run-round records (rounds columns, plan,
// versions, environment, settings) on PLATFORM=cf against the fake cf of the dry-run tests
// (test/fixtures/fake-cf.js). The expected documents are what the bash round_json of
// run-round.sh produced for the same options (compared field for field when the Node
// version replaced it): the report's spec-match depends on exactly what is recorded.
const test = require('node:test');
const assert = require('node:assert/strict');
const { spawnSync } = require('node:child_process');

const { makeWorld, removeWorlds, worldEnv, guidOf, ROOT } = require('../test/fake-cf-world');

const world = makeWorld({ apps: { 'node-app': { instances: 2 }, loadgen: { instances: 1 } } });
test.after(removeWorlds);
// In this process: the fake cf first on PATH, its state and log (not its HOME or PLATFORM).
const { PATH, FAKE_CF_STATE, FAKE_CF_LOG } = worldEnv(world);
Object.assign(process.env, { PATH, FAKE_CF_STATE, FAKE_CF_LOG });

const { makeCli } = require('../ops/cli');
const { selectPlatform } = require('../ops/target');
const { roundDocument } = require('./round-doc');
const { nodeLibs } = require('./app-versions');

const GIT_REV = spawnSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: ROOT, encoding: 'utf8' }).stdout.trim() || null;
const OPTIONS = {
  app: 'node-app', instances: '2', loadgens: '1', parallel: '4', rate: '', durationMs: 10000, requests: '',
  warmupMs: 0, timeoutMs: 10000, keepalive: true, scenario: 'read', label: '', experiment: '', seedAds: '1000',
  prewarm: '0', loadbalancing: '', cpu: '', statsSource: 'auto',
};
const CF_DOC = {
  platform: 'cf', app: 'node-app', target_url: 'https://node-app.apps.example.com', host_header: null,
  app_instances: 2, loadgens: 1, model: 'closed', parallel: 4, rate: null, duration_ms: 10000, requests: null,
  warmup_ms: 0, timeout_ms: 10000, keepalive: true, scenario: 'read', plan: { seed_ads: 1000, prewarm: 0 },
  label: null, experiment: null, git_rev: GIT_REV, versions: { cf_cli: 'cf version 8.17.0+5c3a5e5.2025-06-10', app_libs: nodeLibs() },
  environment: { stats_source: 'v3', stats_interval_s: 15, app_memory_mb: 1024, cf_api: 'https://api.example.com' }, settings: { DB_POOL_SIZE: '10' },
  steady_gate: null,
};

test('roundDocument: the rounds columns as run-round.sh recorded them', async (t) => {
  const cases = [
    { name: 'defaults, closed model', options: {}, want: CF_DOC },
    {
      name: 'open model by requests, no seeding, prewarm, route algorithm asked, label and experiment',
      options: { rate: '0.50', parallel: '', requests: '100', durationMs: null, seedAds: '0', prewarm: '300',
        loadbalancing: 'least-connection', keepalive: false, label: 'a b', experiment: 'x', statsSource: 'v3' },
      want: { ...CF_DOC, model: 'open', parallel: null, rate: 0.5, duration_ms: null, requests: 100, keepalive: false,
        plan: { prewarm: 300, loadbalancing: 'least-connection' }, label: 'a b', experiment: 'x',
        environment: { stats_source: 'plugin', stats_interval_s: 15, app_memory_mb: 1024, cf_api: 'https://api.example.com' } },
      stats: { source: 'plugin', intervalSec: 15 },
    },
    {
      name: 'the steady-state gate on: its settings recorded',
      options: { steadyGate: { windowMs: 10000, cvMax: 0.1, trendMax: 0.05, maxWarmupMs: 60000 } },
      want: { ...CF_DOC, steady_gate: { window_ms: 10000, cv_max: 0.1, trend_max: 0.05, max_warmup_ms: 60000 } },
    },
    {
      name: 'TLS front proxies: the loadgens target them (plan.target_urls), the first one is target_url',
      options: {}, frontUrls: ['https://127.0.0.1:8443', 'https://127.0.0.1:8444'],
      want: { ...CF_DOC, target_url: 'https://127.0.0.1:8443',
        plan: { seed_ads: 1000, prewarm: 0, front_proxies: 2, target_urls: ['https://127.0.0.1:8443', 'https://127.0.0.1:8444'] } },
    },
  ];
  const p = selectPlatform(makeCli('run-round'), { platformOpt: 'cf' });
  for (const c of cases) {
    await t.test(c.name, () => {
      const doc = roundDocument(p, { ...OPTIONS, ...c.options }, { guid: guidOf('node-app'), baseUrl: 'https://node-app.apps.example.com',
        hostHeader: '', stats: c.stats ?? { source: 'v3', intervalSec: 15 }, frontUrls: c.frontUrls ?? null });
      assert.deepEqual(doc, c.want);
      assert.deepEqual(Object.keys(doc), Object.keys(c.want), 'column order');
    });
  }
});
