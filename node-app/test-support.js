'use strict';
// test-support.js — what the integration tests share: real PostgreSQL databases (`db`:
// lib/test-db.js, in node-app's range of ports.json when the cluster is our own), a round
// row, the real server.js on a free port, and a plain HTTP client (one connection per request,
// so cluster workers share the requests).

const { spawn } = require('node:child_process');
const fs = require('node:fs');
const http = require('node:http');
const net = require('node:net');
const path = require('node:path');
const pg = require('pg');

const ROOT = path.join(__dirname, '..');
const pgCluster = require('../local-platform/lib/pg-cluster.js');
const { testDatabases } = require('../lib/test-db.js');
// node-app's range of the repository's port table.
const OWN_PORTS = JSON.parse(fs.readFileSync(path.join(ROOT, 'ports.json'), 'utf8')).ranges['node-app'].ports.split('-').map(Number);
const START_TIMEOUT_MS = 15000;
// The control credential every test app gets (CONTROL_TOKEN), and the header that carries it.
const CONTROL_TOKEN = 'test-control-token-0123456789abcdef';
const CONTROL = Object.freeze({ Authorization: `Bearer ${CONTROL_TOKEN}` });

// The test databases: create(prefix, { results }), drop(url), query(url, sql), applyResultsSchema(url), stopOwnCluster().
const db = testDatabases(pg, 'node-app');

/**
 * A row of `rounds` for app (the apps file timings only under a round running or just finished
 * for them): status, finished that many seconds ago, heartbeat that many seconds ago. Its id.
 */
async function insertRound(url, app, { status = 'pending', finishedSecAgo = null, heartbeatSecAgo = 0 } = {}) {
  const { rows } = await db.query(url, {
    text: `INSERT INTO rounds (start_at, platform, app, target_url, app_instances, loadgens, model, parallel, duration_ms,
             status, finished_at, heartbeat_at)
           VALUES (now(), 'local', $1, 'http://test', 1, 1, 'closed', 1, 1000, $2,
             now() - make_interval(secs => $3::float8), now() - make_interval(secs => $4::float8)) RETURNING id::text`,
    values: [app, status, finishedSecAgo, heartbeatSecAgo],
  });
  return rows[0].id;
}

function freePort() {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.unref();
    s.on('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}

/**
 * A free port in node-app's own range (`node-app` in ports.json, reserved by scripts/test.sh), for a
 * server that starts later while clients already connect to it: in the kernel's ephemeral
 * range such a client can connect to itself (TCP simultaneous open) and take the port.
 */
async function freePortInRange(from = OWN_PORTS[0], to = OWN_PORTS[1]) {
  for (let i = 0; i < 50; i++) {
    const port = from + Math.floor(Math.random() * (to - from + 1));
    const ok = await new Promise((resolve) => {
      const s = net.createServer();
      s.unref();
      s.on('error', () => resolve(false));
      s.listen(port, '127.0.0.1', () => s.close(() => resolve(true)));
    });
    if (ok) return port;
  }
  throw new Error(`no free port in ${from}-${to}`);
}

/**
 * Start server.js with env (on top of PATH and CONTROL_TOKEN only) and wait until `workers` processes listen.
 * Returns { base, proc, output(), stop(signal) → exit code }.
 */
async function startApp(env, { workers = 1 } = {}) {
  // Our range, not a kernel-picked (ephemeral) port that a connection may take before the app binds it.
  const port = await freePortInRange();
  const proc = spawn(process.execPath, [path.join(__dirname, 'server.js')], {
    env: { PATH: process.env.PATH, PORT: String(port), CONTROL_TOKEN, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  const exited = new Promise((resolve) => proc.on('exit', (code) => resolve(code)));
  await new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`app did not start:\n${out}`)), START_TIMEOUT_MS);
    const onData = (d) => {
      out += d;
      if ((out.match(/listening on port/g) || []).length >= workers) {
        clearTimeout(timer);
        resolve();
      }
    };
    proc.stdout.on('data', onData);
    proc.stderr.on('data', onData);
    proc.on('exit', () => reject(new Error(`app exited at start:\n${out}`)));
  });
  return {
    base: `http://127.0.0.1:${port}`,
    port,
    proc,
    output: () => out,
    exited,
    async stop(signal = 'SIGTERM') {
      if (proc.exitCode === null) proc.kill(signal);
      return exited;
    },
  };
}

/** One request on its own connection: { status, headers, body }. */
function request(base, pathAndQuery, { method = 'GET', headers = {}, body } = {}) {
  return new Promise((resolve, reject) => {
    const req = http.request(base + pathAndQuery, { method, headers, agent: false }, (res) => {
      const chunks = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode, headers: res.headers, body: Buffer.concat(chunks).toString('utf8') }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

const FORM = { 'Content-Type': 'application/x-www-form-urlencoded' };

module.exports = {
  db,
  insertRound,
  startApp,
  request,
  freePort,
  freePortInRange,
  FORM,
  CONTROL,
  CONTROL_TOKEN,
  pgCluster,
};
