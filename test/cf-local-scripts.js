'use strict';
// cf-local-scripts.js — the scripts as cf-local.test.js runs them on its world
// (cf-local-world.js): to their end with the cf calls they made, or started in a process
// group of their own; and the router, the results database and /proc as its tests look at them.
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const http = require('node:http');
const { spawn, spawnSync } = require('node:child_process');
const { Client } = require('pg');
const { READ_ONLY, ROOT } = require('./cf-local-world');
const { processAlive } = require('../lib/process-checks');

const lines = (s) => s.split('\n').filter(Boolean);
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** What runs in world w: its scripts, its cf config, the statistics plugin's listing. */
function scriptsIn(w) {
  const cfConfig = () => path.join(w.cfHome, '.cf/config.json');
  const pluginsConfig = () => path.join(w.cfHome, '.cf/plugins/config.json');

  /** A script run to its end with w.env (PLATFORM=cf) unless env says otherwise. */
  function run(script, args, env = {}, { local = false } = {}) {
    w.clearCalls();
    const res = spawnSync('bash', [path.join(ROOT, 'scripts', script), ...args],
      { encoding: 'utf8', env: local ? w.localEnv(env) : w.env(env) });
    return { code: res.status, stdout: res.stdout, stderr: res.stderr, mutating: w.calls().filter((a) => !READ_ONLY.has(a[0])) };
  }

  /** Edits the world's cf config for the duration of fn. */
  async function withCfConfig(patch, fn) {
    const saved = fs.readFileSync(cfConfig(), 'utf8');
    fs.writeFileSync(cfConfig(), JSON.stringify({ ...JSON.parse(saved), ...patch }));
    try {
      return await fn();
    } finally {
      fs.writeFileSync(cfConfig(), saved);
    }
  }

  return { run, withCfConfig, pluginsConfig };
}

/** A script started in a process group of its own (as run-round starts its collectors). */
function start(script, args, env) {
  const child = spawn(path.join(ROOT, 'scripts', script), args, { env, detached: true });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d) => { stdout += d; });
  child.stderr.on('data', (d) => { stderr += d; });
  const done = new Promise((resolve) => child.on('close', (code, signal) => resolve({ code, signal, stdout, stderr })));
  return { child, done };
}

async function until(what, fn, timeoutMs = 30000) {
  const t0 = Date.now();
  for (;;) {
    const v = await fn();
    if (v) return v;
    assert.ok(Date.now() - t0 < timeoutMs, `timed out waiting for ${what}`);
    await sleep(50);
  }
}

async function query(url, sql, params) {
  const c = new Client({ connectionString: url });
  await c.connect();
  try {
    return (await c.query(sql, params)).rows;
  } finally {
    await c.end();
  }
}

/** GET through the platform's router to the tiny node-app → status (0: no answer, as from /die). */
function viaRouter(router, urlPath, headers = {}) {
  return new Promise((resolve) => {
    const req = http.get(`${router}${urlPath}`, { headers: { Host: 'node-app.localhost', ...headers } }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode));
    });
    req.on('error', () => resolve(0));
  });
}

/** Pids of the descendants of pid (from /proc). */
function descendants(pid) {
  const children = new Map();
  for (const d of fs.readdirSync('/proc').filter((x) => /^\d+$/.test(x))) {
    try {
      const ppid = Number(fs.readFileSync(`/proc/${d}/stat`, 'utf8').replace(/^.*\) /, '').split(' ')[1]);
      children.set(ppid, [...(children.get(ppid) || []), Number(d)]);
    } catch { /* gone */ }
  }
  const out = [];
  for (let todo = [pid]; todo.length;) {
    const kids = children.get(todo.pop()) || [];
    out.push(...kids);
    todo.push(...kids);
  }
  return out;
}

// A zombie (killed, not yet reaped) is not alive.
const alive = processAlive;

module.exports = { scriptsIn, start, until, query, viaRouter, descendants, alive, lines, sleep };
