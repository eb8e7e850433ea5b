'use strict';
// round-e2e-world.js — the world of round.e2e.test.js: a CFSCALE_HOME of its own
// (/tmp/cfscale-e2e-*) with the ports of the range `e2e` in ports.json, the scripts run in
// it, the real cf CLI as they left it logged in, and the results database they wrote.

const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const { spawn, spawnSync } = require('node:child_process');
const { Client } = require('pg');
const { portRange } = require('../lib/ports');
const { loadConfig } = require('../local-platform/lib/config');

const ROOT = path.resolve(__dirname, '..');

/** A fresh home and the helpers that run in it; nothing starts until a script runs. */
function roundE2eWorld() {
  const HOME = fs.mkdtempSync('/tmp/cfscale-e2e-');
  const [ROUTER_PORT] = portRange('e2e');
  // The instances inherit TMPDIR: the loadgen's spool (os.tmpdir()) stays inside this home,
  // so batches spooled by another platform's loadgens are never replayed here.
  fs.mkdirSync(path.join(HOME, 'tmp'));
  const ENV = {
    ...process.env,
    TMPDIR: path.join(HOME, 'tmp'),
    PLATFORM: 'local',
    CFSCALE_HOME: HOME,
    CFSCALE_ROUTER_PORT: String(ROUTER_PORT),
    CFSCALE_PG_PORT: String(ROUTER_PORT + 1),
    CFSCALE_INSTANCE_PORT_BASE: String(ROUTER_PORT + 10),
    CFSCALE_API_PORT: String(ROUTER_PORT + 2),
    CFSCALE_ROUTER_TLS_PORT: String(ROUTER_PORT + 3),
    CFSCALE_FRONT_PROXY_PORT_BASE: String(ROUTER_PORT + 4),
  };
  // The platform's own name for this home (cgroups, the PostgreSQL directory outside it).
  const HOME_HASH = loadConfig(ENV).homeHash;
  const CGROUP = `/sys/fs/cgroup/memory/cfscale-${HOME_HASH}`;
  // Where the scripts keep the local platform's cf login (ops/target.js localCfHome).
  const CF_HOME = path.join(HOME, 'cf-home');
  const ROUND_TIMEOUT_MS = 240000;

  /** Run a script to its end; resolves {code, stdout, stderr}. */
  function runScript(script, args, env = {}) {
    return new Promise((resolve) => {
      const child = spawn(path.join(ROOT, 'scripts', script), args, { env: { ...ENV, ...env } });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (d) => { stdout += d; });
      child.stderr.on('data', (d) => { stderr += d; });
      child.on('close', (code) => resolve({ code, stdout, stderr }));
    });
  }

  /** The real cf CLI as the scripts left it logged in to the local platform. */
  function cf(args) {
    const r = spawnSync(path.join(ROOT, '.tools/bin/cf'), args, { env: { ...ENV, CF_HOME }, encoding: 'utf8' });
    assert.equal(r.status, 0, `cf ${args.join(' ')}: ${r.stdout}${r.stderr}`);
    return r.stdout.trim();
  }

  let db;
  async function results() {
    if (!db) {
      // The key run-round made for itself (ops/target.js RESULTS_KEY).
      const key = cf(['service-key', 'results-db', 'cfscale-scripts', '--guid']);
      const { uri } = JSON.parse(cf(['curl', `/v3/service_credential_bindings/${key}/details`])).credentials;
      db = new Client({ connectionString: uri });
      await db.connect();
    }
    return db;
  }

  async function count(table, roundId, where = 'true') {
    const c = await results();
    const { rows } = await c.query(`SELECT count(*)::int AS n FROM ${table} WHERE round_id = $1 AND ${where}`, [roundId]);
    return rows[0].n;
  }

  /** The loadgen's own log lines (not router lines), for failure messages. */
  function loadgenLog() {
    const r = spawnSync(path.join(ROOT, '.tools/bin/cf'), ['logs', 'loadgen', '--recent'], { env: { ...ENV, CF_HOME }, encoding: 'utf8' });
    return (r.stdout || '').split('\n').filter((l) => l.includes('loadgen[')).slice(-20).join('\n');
  }

  function assertRoundRan(res, code = 0) {
    assert.equal(res.code, code, `run-round exit ${res.code}:\n${res.stdout}\n${res.stderr.slice(-3000)}\nloadgen log:\n${loadgenLog()}`);
    // A round prints no warning (a Node deprecation or listener leak, the cf CLI's): each is a defect.
    assert.doesNotMatch(`${res.stdout}\n${res.stderr}`, /^.*\bWarning: .*$/m);
  }

  function roundIdOf(res) {
    const m = /^round_id=(\d+)$/m.exec(res.stdout);
    assert.ok(m, `no round_id line in stdout:\n${res.stdout}\nstderr:\n${res.stderr}`);
    return Number(m[1]);
  }

  /** Closes the results connection, if one was opened. */
  async function endResults() {
    if (db) { const c = db; db = null; await c.end(); }
  }

  return { HOME, ENV, ROUTER_PORT, HOME_HASH, CGROUP, CF_HOME, ROUND_TIMEOUT_MS, runScript, cf, results, endResults, count, loadgenLog, assertRoundRan, roundIdOf };
}

module.exports = { roundE2eWorld, ROOT };
