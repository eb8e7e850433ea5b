'use strict';
// round-library.e2e.test.js — the round as a function: two rounds run by runRound
// (scripts/round/round.js) one after the other in this Node process, as the experiment runner
// runs them, on the real local platform with the real apps and loadgen. Each resolves its
// summary and round id and leaves nothing behind in the process (signal handlers, exit hooks);
// both are recorded done, each with the CPU quota the platform applied (0.25 cores asked, then
// the platform's default).
// Own CFSCALE_HOME (/tmp/cfscale-round-library-*) and the ports of range `round-library` of
// ports.json; a CFSCALE_HOME and CFSCALE_*_PORT* variables given in the environment win (a
// machine where the range is taken). Torn down afterwards (scripts/teardown.sh).
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const { execFileSync, spawnSync } = require('node:child_process');
const { Client } = require('pg');
const { platformPortEnv } = require('../lib/ports');

const ROOT = path.resolve(__dirname, '..');
const PORT_VARIABLES = ['CFSCALE_ROUTER_PORT', 'CFSCALE_PG_PORT', 'CFSCALE_API_PORT', 'CFSCALE_ROUTER_TLS_PORT',
  'CFSCALE_FRONT_PROXY_PORT_BASE', 'CFSCALE_INSTANCE_PORT_BASE'];
const OWN_HOME = !process.env.CFSCALE_HOME;
const HOME = process.env.CFSCALE_HOME || fs.mkdtempSync('/tmp/cfscale-round-library-');
const PORTS = process.env.CFSCALE_ROUTER_PORT
  ? Object.fromEntries(PORT_VARIABLES.map((k) => [k, process.env[k]])) : platformPortEnv('round-library');
const ROUND_TIMEOUT_MS = 600_000;

// The rounds run in this process: the platform's settings are this process's environment. The
// instances inherit TMPDIR: the loadgen's spool stays inside this home.
fs.mkdirSync(path.join(HOME, 'tmp'), { recursive: true });
Object.assign(process.env, { ...PORTS, CFSCALE_HOME: HOME, PLATFORM: 'local', TMPDIR: path.join(HOME, 'tmp') });

const { enterRepository } = require('../scripts/ops/target');
const { makeCli } = require('../scripts/ops/cli');
const { roundOptions } = require('../scripts/round/run-round-args');
const { runRound } = require('../scripts/round/round');
const { CPU_DEFAULT } = require('../lib/cpu-quota');

/** The results database as the rounds reached it (the scripts' service key, ops/target.js RESULTS_KEY). */
async function results() {
  const cf = (...args) => execFileSync(path.join(ROOT, '.tools/bin/cf'), args,
    { env: { ...process.env, CF_HOME: path.join(HOME, 'cf-home') }, encoding: 'utf8' }).trim();
  const key = cf('service-key', 'results-db', 'cfscale-scripts', '--guid');
  const { uri } = JSON.parse(cf('curl', `/v3/service_credential_bindings/${key}/details`)).credentials;
  const c = new Client({ connectionString: uri });
  await c.connect();
  return c;
}

// What a round must not leave in this process: its handlers of SIGINT/SIGTERM and its exit hook.
const listeners = () => ['SIGINT', 'SIGTERM', 'exit'].map((e) => process.listenerCount(e));

test.after(() => {
  spawnSync(path.join(ROOT, 'scripts/teardown.sh'), [], { env: process.env, stdio: 'ignore' });
  if (OWN_HOME) fs.rmSync(HOME, { recursive: true, force: true });
});

test('two rounds in one process: each done, its summary and id returned, nothing left behind', { timeout: ROUND_TIMEOUT_MS }, async () => {
  enterRepository();
  const cli = makeCli('run-round');
  const before = listeners();
  const label = `library-${Date.now()}`;
  const common = { app: 'node-app', instances: 1, loadgens: 1, parallel: 2, durationMs: 3000, warmupMs: 0, seedAds: 50 };
  const rounds = [];
  for (const [i, cpu] of [[1, 0.25], [2, undefined]]) {
    const o = roundOptions({ ...common, cpu, label: `${label}-${i}` }, cli);
    assert.equal(o.cpu, cpu ?? CPU_DEFAULT, 'the quota travels typed');
    const res = await runRound(o);
    assert.equal(res.code, 0, res.text);
    assert.ok(Number.isInteger(res.roundId) && res.roundId > 0, JSON.stringify(res));
    assert.match(res.text, /\S/, 'the summary');
    assert.deepEqual(listeners(), before, `round ${i} left handlers behind`);
    rounds.push(res.roundId);
  }
  assert.ok(rounds[1] > rounds[0]);
  const c = await results();
  try {
    const { rows } = await c.query(`SELECT id, label, status, (environment->>'app_cpu_quota_cores')::float8 AS applied,
        (environment->'app_cpu_quota_default')::boolean AS by_default, (environment->>'app_memory_mb')::float8 AS mb
      FROM rounds WHERE id = ANY($1) ORDER BY id`, [rounds]);
    assert.deepEqual(rows.map((r) => [r.label, r.status, r.by_default]), [[`${label}-1`, 'done', false], [`${label}-2`, 'done', true]]);
    // Applied: what was asked, then the platform's default (manifest memory in GB x CFSCALE_CPU_PER_GB, 1.0).
    assert.equal(rows[0].applied, 0.25);
    assert.equal(rows[1].applied, rows[1].mb / 1024 * Number(process.env.CFSCALE_CPU_PER_GB || 1), JSON.stringify(rows[1]));
  } finally {
    await c.end();
  }
});
