'use strict';
// Test helpers: real HTTP servers on free ports, real PostgreSQL (a database in the
// shared cluster of scripts/test.sh, or a cluster of our own via pg-cluster.js on
// a port in loadgen's range of ports.json), and spawning the real binaries.

const { spawn } = require('node:child_process');
const fs = require('node:fs');
const http = require('node:http');
const net = require('node:net');
const path = require('node:path');
const pg = require('pg');

const ROOT = path.resolve(__dirname, '..');
const REPO = path.resolve(ROOT, '..');
const pgCluster = require('../../local-platform/lib/pg-cluster.js');
const { until } = require('../../lib/until');
const SCHEMA = path.join(REPO, 'results-schema.sql');
// loadgen's range of the repository's port table.
const OWN_PORTS = JSON.parse(fs.readFileSync(path.join(REPO, 'ports.json'), 'utf8')).ranges.loadgen.ports.split('-').map(Number);

/** An HTTP server on a free port; handler(req, res) or raw: onConnection(socket). */
async function startServer(handler, { raw = false } = {}) {
  const server = raw ? net.createServer(handler) : http.createServer(handler);
  const sockets = new Set();
  server.on('connection', (s) => { sockets.add(s); s.on('close', () => sockets.delete(s)); });
  server.connections = 0;
  server.on('connection', () => { server.connections++; });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = server.address().port;
  return {
    server, port, url: `http://127.0.0.1:${port}`,
    close: () => new Promise((resolve) => { for (const s of sockets) s.destroy(); server.close(resolve); }),
  };
}

/** A port nobody listens on. */
async function closedPort() {
  const s = net.createServer();
  await new Promise((r) => s.listen(0, '127.0.0.1', r));
  const { port } = s.address();
  await new Promise((r) => s.close(r));
  return port;
}

async function freePortInRange(from, to) {
  for (let i = 0; i < 50; i++) {
    const port = from + Math.floor(Math.random() * (to - from));
    const ok = await new Promise((resolve) => {
      const s = net.createServer();
      s.once('error', () => resolve(false));
      s.listen(port, '127.0.0.1', () => s.close(() => resolve(true)));
    });
    if (ok) return port;
  }
  throw new Error('no free port');
}

let dbSeq = 0;
const created = [];
/** A fresh database with results-schema.sql applied, in the shared test cluster or our own. */
async function createDatabase(clusterUrl) {
  const name = `cfscale_loadgen_${process.pid}_${dbSeq++}`;
  const admin = new pg.Client({ connectionString: clusterUrl });
  await admin.connect();
  await admin.query(`DROP DATABASE IF EXISTS ${name}`);
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  created.push({ clusterUrl, name });
  const u = new URL(clusterUrl);
  u.pathname = '/' + name;
  const url = u.toString();
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  await c.query('SET client_min_messages = warning');
  await c.query(fs.readFileSync(SCHEMA, 'utf8'));
  await c.end();
  return url;
}

/** A PostgreSQL cluster of our own (to stop and start it, or with { maxConnections }). */
async function ownCluster({ maxConnections } = {}) {
  const dir = fs.mkdtempSync('/tmp/cfscale-loadgen-test-pg-');
  const port = await freePortInRange(...OWN_PORTS);
  const url = pgCluster.start(dir, { port, maxConnections });
  return {
    url,
    stop: () => pgCluster.stop(dir),
    start: () => pgCluster.start(dir),
    destroy: () => { try { pgCluster.stop(dir); } catch { /* already stopped */ } fs.rmSync(dir, { recursive: true, force: true }); },
  };
}

let shared = null;
/** The superuser URL of a cluster for ordinary tests (shared one when given). */
async function testCluster() {
  if (process.env.CFSCALE_TEST_PG_URL) return process.env.CFSCALE_TEST_PG_URL;
  if (shared === null) shared = await ownCluster();
  return shared.url;
}

/** Drops the databases this file created in the shared cluster; stops our own cluster. */
async function stopTestCluster() {
  for (const { clusterUrl, name } of created.splice(0)) {
    if (clusterUrl !== process.env.CFSCALE_TEST_PG_URL) continue;
    await query(clusterUrl, `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`).catch(() => {});
  }
  if (shared !== null) shared.destroy();
  shared = null;
}

async function query(url, sql, params) {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    return (await c.query(sql, params)).rows;
  } finally {
    await c.end();
  }
}

/** Spawns a node script of this package; resolves { code, signal, stdout, stderr } on exit. */
function spawnNode(script, args = [], env = {}) {
  const child = spawn(process.execPath, [path.join(ROOT, script), ...args], {
    env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d) => { stdout += d; });
  child.stderr.on('data', (d) => { stderr += d; });
  child.done = new Promise((resolve) => child.on('close', (code, signal) => resolve({ code, signal, stdout, stderr })));
  child.output = () => stdout + stderr;
  return child;
}

/** A worker process (bin/worker.js) for instance `index`, with a spool directory of its own. */
function startWorker(db, index, extra = {}) {
  const spool = fs.mkdtempSync('/tmp/cfscale-loadgen-test-wspool-');
  const child = spawnNode('bin/worker.js', [], {
    RESULTS_DATABASE_URL: db, CF_INSTANCE_INDEX: String(index), LOADGEN_POLL_MS: '500',
    LOADGEN_SPOOL_DIR: spool, VCAP_SERVICES: '', ...extra,
  });
  child.spool = spool;
  child.cleanup = () => { child.kill('SIGKILL'); fs.rmSync(spool, { recursive: true, force: true }); };
  return child;
}

/** A `rounds` row starting start_in_ms from now (scenario get); its id. */
async function insertRound(db, fields) {
  const f = { start_in_ms: 2000, loadgens: 1, model: 'closed', parallel: 2, duration_ms: 1000, ...fields };
  const [{ id }] = await query(db, `INSERT INTO rounds (start_at, platform, app, target_url, app_instances, loadgens, model, parallel, duration_ms, scenario, steady_gate)
    VALUES (now() + make_interval(secs => $1::float8 / 1000), 'local', 'test', $2, 1, $3, $4, $5, $6, 'get', $7) RETURNING id`,
  [f.start_in_ms, f.url, f.loadgens, f.model, f.parallel, f.duration_ms, f.steady_gate ?? null]);
  return id;
}

function sleep(ms) { return new Promise((r) => setTimeout(r, ms)); }

/** fn's first truthy value, polled every 100 ms; fails after timeoutMs naming what. */
function waitFor(fn, timeoutMs, what) { return until(what, fn, { timeoutMs }); }

module.exports = {
  startServer, closedPort, createDatabase, ownCluster, testCluster, stopTestCluster, query, spawnNode, sleep, waitFor, ROOT,
  startWorker, insertRound,
};
