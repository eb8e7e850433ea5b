// app-process.js — start an app variant as a child process for the lifecycle tests
// (outage, SIGTERM, bad settings, VCAP_SERVICES), capture everything it prints, and
// always stop it. The child runs in its own process group so a Node cluster's workers
// go with it when a test has to kill it hard.
'use strict';

const { spawn } = require('node:child_process');
const http = require('node:http');
const path = require('node:path');
const { portRange, randomFreePort } = require('../../lib/ports');
const { send } = require('./raw-http');

const ROOT = path.resolve(__dirname, '..', '..');
const HEALTH_POLL_MS = 100;
const CONTRACT_PORTS = portRange('contract');
/** Settings of the apps: never inherited from the environment running the suite. */
const APP_VARIABLES = /^(PORT|CF_INSTANCE_INDEX|APP_NAME|VCAP_.*|DB_.*|DATABASE_URL|RESULTS_.*|TIMINGS_.*|SHUTDOWN_TIMEOUT_MS|APP_FRAMEWORK|WEB_CONCURRENCY|JETTY_.*|NODE_ENV|CONTROL_TOKEN|LOCAL_DEV_NO_CONTROL_TOKEN)$/;

/**
 * A port nothing listens on, from the contract range of ports.json: one the kernel picks is an
 * ephemeral port, which an outgoing connection may take before the app binds it.
 */
function freePort() {
  return randomFreePort(...CONTRACT_PORTS);
}

/** Whether GET url/health answers 200 within 2 s (a plain client: no dependency). */
function healthOk(url) {
  return new Promise((resolve) => {
    const req = http.get(`${url}/health`, { timeout: 2000 }, (res) => { res.resume(); resolve(res.statusCode === 200); });
    req.on('timeout', () => req.destroy());
    req.on('error', () => resolve(false));
  });
}

/** "A=1 B=2" → { A: '1', B: '2' } (the variant settings as run.sh passes them). */
function parseEnvList(text) {
  return Object.fromEntries((text || '').split(/\s+/).filter(Boolean).map((kv) => {
    const i = kv.indexOf('=');
    return [kv.slice(0, i), kv.slice(i + 1)];
  }));
}

class AppProcess {
  /** Start `cmd` (array) in the repo root with a clean environment plus `env`. */
  constructor(cmd, env) {
    const base = Object.fromEntries(Object.entries(process.env).filter(([k]) => !APP_VARIABLES.test(k)));
    this.output = '';
    this.child = spawn(cmd[0], cmd.slice(1), { cwd: ROOT, env: { ...base, ...env }, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    this.pid = this.child.pid;
    this.child.stdout.on('data', (d) => { this.output += d; });
    this.child.stderr.on('data', (d) => { this.output += d; });
    this.exitInfo = null;
    this.exited = new Promise((resolve) => {
      this.child.once('error', (e) => { this.output += `spawn error: ${e.message}\n`; this.exitInfo = { code: null, signal: null }; resolve(this.exitInfo); });
      this.child.once('close', (code, signal) => { this.exitInfo = { code, signal }; resolve(this.exitInfo); });
    });
  }

  get alive() { return this.exitInfo === null; }

  /** Resolve when GET /health answers 200; throw (with the output) when it never does. */
  async waitHealthy(baseUrl, timeoutMs = 60000) {
    const deadline = Date.now() + timeoutMs;
    while (Date.now() < deadline && this.alive) {
      const res = await send(baseUrl, { path: '/health' }, { timeoutMs: 2000 });
      if (res.status === 200) return;
      await new Promise((r) => setTimeout(r, HEALTH_POLL_MS));
    }
    throw new Error(`app not healthy at ${baseUrl} (${this.alive ? 'still running' : `exited ${JSON.stringify(this.exitInfo)}`}); output:\n${this.output.slice(-3000)}`);
  }

  /** The exit { code, signal }, or null when it is still running after `timeoutMs`. */
  async waitExit(timeoutMs) {
    let timer;
    const timeout = new Promise((resolve) => { timer = setTimeout(() => resolve(null), timeoutMs); });
    const result = await Promise.race([this.exited, timeout]);
    clearTimeout(timer);
    return result;
  }

  signal(sig) { process.kill(this.pid, sig); }

  /** Kill the whole process group (workers included) unless it already exited. */
  async stop() {
    if (this.alive) {
      try { process.kill(-this.pid, 'SIGKILL'); } catch { /* already gone */ }
    }
    await this.exited;
  }
}

module.exports = { AppProcess, freePort, healthOk, parseEnvList, ROOT };
