// front-proxy.js — the optional TLS-terminating front proxies in front of the router (study
// §5.2.3, §3.4.1): N HAProxy processes on consecutive ports from
// CFSCALE_FRONT_PROXY_PORT_BASE, each in its own cgroup with a CPU quota like a small proxy
// VM (CFSCALE_FRONT_PROXY_CPU cores), sharing one self-signed certificate made with openssl
// for localhost, *.localhost and 127.0.0.1. Clients spread over them like round-robin DNS
// (a list of URLs, `cfl front-proxies`; the loadgen takes rounds.plan.target_urls).
// Off (0 proxies) unless CFSCALE_FRONT_PROXIES or `cfl front-proxies -n N` asks for some.
'use strict';

const fs = require('node:fs');
const path = require('node:path');
const net = require('node:net');
const { spawn } = require('node:child_process');
const { buildFrontConfig, parseFrontStat } = require('./front-proxy-config');
const { readPid, killAndWait, execFileP, runtimeCommand } = require('./haproxy');
const { ensureSelfSignedCert } = require('./tls-cert');
const START_TIMEOUT_MS = 10000;

/** The cgroup of proxy i: an app name cannot start with "_", so no instance's clashes. */
function cgroupName(index) { return `_front-proxy-${index}`; }

class FrontProxies {
  constructor({ dir, portBase, routerPort, cpuCores, cgroups, log }) {
    this.dir = dir;
    this.portBase = portBase;
    this.routerPort = routerPort;
    this.cpuCores = cpuCores;
    this.cgroups = cgroups;
    this.log = log;
    this.certFile = path.join(dir, 'cert.pem');
    this.procs = []; // [{index, port, pid}]
  }

  proxyDir(i) { return path.join(this.dir, String(i)); }

  /** One self-signed RSA 2048 certificate (the usual kind in 2017) for every proxy. */
  async ensureCert() {
    await ensureSelfSignedCert(this.certFile);
  }

  /** Runs `count` proxies with `cpuCores` each (null: no quota); restarts them all when either changed. */
  async set(count, cpuCores = this.cpuCores) {
    if (count === this.procs.length && cpuCores === this.cpuCores) return;
    await this.stopAll();
    this.cpuCores = cpuCores;
    if (count === 0) return;
    await this.ensureCert();
    for (let i = 0; i < count; i++) this.procs.push(await this.startOne(i));
    this.log(`front proxies: ${count} on ${this.urls().join(' ')}, CPU quota ${cpuCores === null ? 'none' : `${cpuCores} cores`} each`);
  }

  async startOne(index) {
    const dir = this.proxyDir(index);
    fs.mkdirSync(dir, { recursive: true });
    const port = this.portBase + index;
    const cfgFile = path.join(dir, 'haproxy.cfg');
    const adminSocket = path.join(dir, 'admin.sock');
    fs.writeFileSync(cfgFile, buildFrontConfig({ index, port, routerPort: this.routerPort, certFile: this.certFile, adminSocket }));
    await execFileP('haproxy', ['-c', '-q', '-f', cfgFile]);
    const name = cgroupName(index);
    this.cgroups.prepare(name, { memoryBytes: 256 * 1024 * 1024, cpuCores: this.cpuCores });
    const enter = this.cgroups.enterScript(name);
    const out = fs.openSync(path.join(dir, 'haproxy.out'), 'a');
    const pidFile = path.join(dir, 'haproxy.pid');
    const child = spawn('sh', ['-c', `${enter ? `${enter} && ` : ''}exec haproxy -f '${cfgFile}' -p '${pidFile}'`], {
      detached: true, stdio: ['ignore', out, out],
    });
    fs.closeSync(out);
    child.unref();
    const proc = { index, port, pid: child.pid, adminSocket, pidFile };
    await this.waitListening(proc);
    return proc;
  }

  async waitListening(proc) {
    const until = Date.now() + START_TIMEOUT_MS;
    for (;;) {
      const ok = await new Promise((resolve) => {
        const s = net.connect(proc.port, '127.0.0.1', () => { s.destroy(); resolve(true); });
        s.on('error', () => resolve(false));
      });
      if (ok) return;
      if (Date.now() > until) throw new Error(`front proxy ${proc.index} did not listen on ${proc.port}; see ${path.join(this.proxyDir(proc.index), 'haproxy.out')}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  }

  urls() { return this.procs.map((p) => `https://127.0.0.1:${p.port}`); }

  /** Per proxy: url, pid, cpu quota, CPU used since it started (ns, cgroup), throttling, sessions, requests. */
  async stats() {
    const out = [];
    for (const p of this.procs) {
      const u = this.cgroups.usage(cgroupName(p.index));
      const counters = parseFrontStat(await runtimeCommand(p.adminSocket, 'show stat').catch(() => ''), p.index);
      out.push({
        index: p.index, url: `https://127.0.0.1:${p.port}`, pid: p.pid, cpu_quota: this.cpuCores,
        cpu_ns: u ? u.cpuNs : null, throttling: u ? u.throttling : null,
        sessions: counters ? counters.sessions : null, requests: counters ? counters.requests : null,
      });
    }
    return out;
  }

  async stopAll() {
    const procs = this.procs;
    this.procs = [];
    await Promise.all(procs.map(async (p) => {
      await killAndWait(p.pid, 'SIGUSR1', 3000);
      this.cgroups.remove(cgroupName(p.index));
    }));
  }

  /** Proxies a previous daemon left behind (pid files under dir). */
  async cleanLeftovers() {
    let names = [];
    try { names = fs.readdirSync(this.dir); } catch { return; }
    for (const n of names.filter((x) => /^\d+$/.test(x))) {
      const pid = readPid(path.join(this.dir, n, 'haproxy.pid'));
      if (pid) await killAndWait(pid, 'SIGUSR1', 3000);
    }
  }
}

module.exports = { FrontProxies, cgroupName };
