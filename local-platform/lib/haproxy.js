// haproxy.js — run Debian's HAProxy as the router: master-worker mode (-W), graceful
// reload with SIGUSR2 after `haproxy -c` validated the new file (returning once the old
// worker has finished), and the runtime API
// (stats socket) to switch servers on and off without a reload.
'use strict';

const fs = require('node:fs');
const net = require('node:net');
const path = require('node:path');
const { spawn, execFile } = require('node:child_process');
const { buildConfig } = require('./haproxy-config');
const { processAlive } = require('../../lib/process-checks');

const HAPROXY_BIN = 'haproxy';
const OLD_WORKER_WAIT_MS = 5000;

/** One command to an HAProxy's runtime API (its admin socket); resolves with the answer. */
function runtimeCommand(socketPath, cmd) {
  return new Promise((resolve, reject) => {
    const sock = net.connect(socketPath);
    let buf = '';
    sock.setTimeout(5000, () => sock.destroy(new Error('runtime API timeout')));
    sock.on('connect', () => sock.end(`${cmd}\n`));
    sock.on('data', (d) => { buf += d; });
    sock.on('error', reject);
    sock.on('close', () => resolve(buf));
  });
}

function execFileP(cmd, args) {
  return new Promise((resolve, reject) => {
    execFile(cmd, args, { encoding: 'utf8' }, (err, stdout, stderr) => {
      if (err) reject(new Error(`${cmd} ${args.join(' ')}: ${(stderr || err.message).trim()}`));
      else resolve(stdout);
    });
  });
}

// The router's own cgroup: its CPU is read from cpuacct, as the study checked the router's
// load (study §7.3). An app name cannot start with "_", so no instance's clashes. No CPU
// quota (null): the router is not what a round measures.
const ROUTER_CGROUP = '_router';
const ROUTER_CPU_CORES = null;
const ROUTER_MEMORY_BYTES = 1024 * 1024 * 1024;

class Router {
  // tlsPort, certFile: the HTTPS listener (optional).
  constructor({ dir, routerPort, tlsPort = null, certFile = null, log, cgroups = null }) {
    this.dir = dir;
    this.routerPort = routerPort;
    this.tlsPort = tlsPort;
    this.certFile = certFile;
    this.log = log;
    this.cgroups = cgroups;
    this.cfgFile = path.join(dir, 'haproxy.cfg');
    this.pidFile = path.join(dir, 'haproxy.pid');
    this.adminSocket = path.join(dir, 'admin.sock');
    this.masterPid = null;
  }

  async writeConfig(model) {
    const text = buildConfig({ ...model, routerPort: this.routerPort, tlsPort: this.tlsPort, certFile: this.certFile, adminSocket: this.adminSocket });
    const tmp = `${this.cfgFile}.new`;
    fs.mkdirSync(this.dir, { recursive: true });
    fs.writeFileSync(tmp, `${text}\n`);
    await execFileP(HAPROXY_BIN, ['-c', '-q', '-f', tmp]);
    fs.renameSync(tmp, this.cfgFile);
    return text;
  }

  // Write and validate the configuration, then start HAProxy or reload it gracefully.
  async apply(model) {
    await this.writeConfig(model);
    if (this.isRunning()) {
      const oldWorker = await this.workerPid().catch(() => null);
      process.kill(this.masterPid, 'SIGUSR2');
      this.log(`router reloaded (${this.cfgFile})`);
      await this.waitForSocket(10000, oldWorker);
      await this.waitOldWorker(oldWorker);
      return;
    }
    const out = fs.openSync(path.join(this.dir, 'haproxy.out'), 'a');
    // The shell enters the router's cgroup and execs HAProxy (same pid); the workers it forks,
    // also after a reload, stay in it.
    let enter = '';
    if (this.cgroups?.available) {
      this.cgroups.prepare(ROUTER_CGROUP, { memoryBytes: ROUTER_MEMORY_BYTES, cpuCores: ROUTER_CPU_CORES });
      // Without a quota the router stays out of the cpu controller's groups: a nested cpu
      // group costs every routed request a slower wake-up, about 0.06 ms of p50 here
      // (bench/router.js), and accounting needs only cpuacct.
      const controllers = ROUTER_CPU_CORES === null ? ['memory', 'cpuacct'] : undefined;
      enter = `${this.cgroups.enterScript(ROUTER_CGROUP, controllers)} && `;
    }
    const child = spawn('sh', ['-c', `${enter}exec ${HAPROXY_BIN} -W -f '${this.cfgFile}' -p '${this.pidFile}'`], {
      detached: true, stdio: ['ignore', out, out],
    });
    fs.closeSync(out);
    child.unref();
    this.masterPid = child.pid;
    child.on('exit', (code, sig) => {
      if (this.masterPid === child.pid) {
        this.masterPid = null;
        this.log(`router exited (${sig || code})`);
      }
    });
    await this.waitForSocket();
    this.log(`router listening on 127.0.0.1:${this.routerPort}${this.tlsPort ? ` and https://127.0.0.1:${this.tlsPort}` : ''}`);
  }

  isRunning() {
    if (!this.masterPid) return false;
    try { process.kill(this.masterPid, 0); return true; } catch { return false; }
  }

  // The pid of the worker answering on the runtime API.
  async workerPid() {
    const m = /^Pid: (\d+)$/m.exec(await this.command('show info'));
    return m ? Number(m[1]) : null;
  }

  // Until the runtime API answers (from a worker other than notPid, after a reload).
  async waitForSocket(timeoutMs = 10000, notPid = null) {
    const until = Date.now() + timeoutMs;
    for (;;) {
      try {
        const pid = await this.workerPid();
        if (!notPid || (pid && pid !== notPid)) return;
        throw new Error(`worker ${notPid} still answers`);
      } catch (e) {
        if (!this.isRunning()) throw new Error(`router exited at start; see ${path.join(this.dir, 'haproxy.out')}`);
        if (Date.now() > until) throw new Error(`router did not come up: ${e.message}; see ${path.join(this.dir, 'haproxy.out')}`);
        await new Promise((r) => setTimeout(r, 100));
      }
    }
  }

  // After a reload the previous worker accepts new connections until the master tells it
  // to stop, then finishes the requests it has (idle keep-alive connections are closed).
  // Until it is gone a new connection may still meet the old configuration (e.g. the old
  // load-balancing algorithm), so wait for it, at most OLD_WORKER_WAIT_MS.
  async waitOldWorker(pid) {
    if (!pid) return;
    const until = Date.now() + OLD_WORKER_WAIT_MS;
    while (processAlive(pid) && Date.now() < until) await new Promise((r) => setTimeout(r, 20));
    if (processAlive(pid)) this.log(`router: the previous worker (pid ${pid}) still serves requests in flight after ${OLD_WORKER_WAIT_MS} ms`);
  }

  // One runtime-API command; resolves with its answer.
  command(cmd) {
    return runtimeCommand(this.adminSocket, cmd);
  }

  // Switch one server on or off; its address changes only when the port did (an address
  // change drops the server's connections, requests in flight on them included).
  async setServer(backend, server, inst, prevPort) {
    if (!this.isRunning()) return;
    const cmds = [];
    if (inst && inst.port && inst.port !== prevPort) cmds.push(`set server ${backend}/${server} addr 127.0.0.1 port ${inst.port}`);
    // maint: no new requests; requests in flight finish (Gorouter unregisters the route
    // before the instance gets SIGTERM).
    cmds.push(`set server ${backend}/${server} state ${inst && inst.ready ? 'ready' : 'maint'}`);
    for (const c of cmds) {
      const ans = await this.command(c);
      if (/No such|Unknown|Require/i.test(ans)) this.log(`router: "${c}" → ${ans.trim()}`);
    }
  }

  async stop() {
    const pid = this.masterPid || readPid(this.pidFile);
    this.masterPid = null;
    if (pid) await killAndWait(pid, 'SIGUSR1', 5000); // soft stop, then hard
    try { fs.unlinkSync(this.pidFile); } catch { /* gone */ }
    if (this.cgroups?.available) this.cgroups.remove(ROUTER_CGROUP);
  }

  /** The router's CPU since it started (ns, its cgroup's cpuacct.usage), or null without cgroups. */
  cpuNs() {
    const u = this.cgroups?.available ? this.cgroups.usage(ROUTER_CGROUP) : null;
    return u ? u.cpuNs : null;
  }

  /** The router cgroup's CPU quota in cores (null: none). */
  get cpuQuotaCores() { return ROUTER_CPU_CORES; }
}

function readPid(file) {
  try { return Number(fs.readFileSync(file, 'utf8').trim()) || null; } catch { return null; }
}

async function killAndWait(pid, signal, graceMs) {
  try { process.kill(pid, signal); } catch { return; }
  const until = Date.now() + graceMs;
  while (processAlive(pid) && Date.now() < until) await new Promise((r) => setTimeout(r, 50));
  if (processAlive(pid)) { try { process.kill(pid, 'SIGKILL'); } catch { /* gone */ } }
  while (processAlive(pid)) await new Promise((r) => setTimeout(r, 20));
}

module.exports = { Router, readPid, killAndWait, execFileP, runtimeCommand };
