#!/usr/bin/env node
// bench-router.js — what the local router costs: the tiny fixture app hit directly and
// through HAProxy (Host routing, RTR log conversion by the daemon), same load, side by side.
// Prints req/s and latency percentiles of both, their ratio, and the CPU the router and the
// daemon spent per 1000 requests. Not a test: run on demand.
//
// Usage: node local-platform/bench/router.js [--seconds 5] [--connections 8]
'use strict';

const fs = require('node:fs');
const os = require('node:os');
const http = require('node:http');
const path = require('node:path');
const { execFileSync } = require('node:child_process');
const { parseOrExit } = require('../lib/arg-table');

const CFL = path.join(__dirname, '..', '..', 'scripts', 'cfl');
const CF = path.join(__dirname, '..', '..', '.tools', 'bin', 'cf');
const FIXTURE = path.join(__dirname, '..', 'test', 'fixtures', 'tiny-app', 'manifest.yml');
const CLOCK_TICKS = 100;

// The flags, their defaults and --help in one (arg-table.js).
const COMMAND = {
  usage: 'Usage: node local-platform/bench/router.js [--seconds 5] [--connections 8]',
  rows: [
    ['--seconds S', 'seconds', 'num', 5, 'load per side, seconds', [0.1]],
    ['--connections N', 'connections', 'int', 8, 'connections in flight', [1]],
  ],
};

function cpuSec(pid) {
  try {
    const f = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return (Number(f[11]) + Number(f[12])) / CLOCK_TICKS;
  } catch { return 0; }
}

async function load(port, host, seconds, connections) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: connections });
  const lat = [];
  const end = Date.now() + seconds * 1000;
  const one = () => new Promise((resolve) => {
    const t0 = process.hrtime.bigint();
    http.get({ host: '127.0.0.1', port, path: '/', agent, headers: host ? { Host: host } : {} }, (res) => {
      res.resume();
      res.on('end', () => { lat.push(Number(process.hrtime.bigint() - t0) / 1e6); resolve(); });
    }).on('error', resolve);
  });
  await Promise.all(Array.from({ length: connections }, async () => { while (Date.now() < end) await one(); }));
  agent.destroy();
  lat.sort((a, b) => a - b);
  const pct = (p) => lat[Math.min(lat.length - 1, Math.floor(p * lat.length))].toFixed(2);
  return { rps: lat.length / seconds, p50: pct(0.5), p99: pct(0.99), n: lat.length };
}

async function main() {
  const { seconds, connections } = parseOrExit('bench-router', process.argv.slice(2), COMMAND);
  const home = fs.mkdtempSync(path.join(os.tmpdir(), 'cfscale-local-bench-'));
  const env = { ...process.env, CFSCALE_HOME: home, CFSCALE_ROUTER_PORT: '45480', CFSCALE_PG_PORT: '45481', CFSCALE_API_PORT: '45482',
    CFSCALE_INSTANCE_PORT_BASE: '45490', CF_HOME: path.join(home, 'cf-home') };
  const cfl = (...a) => execFileSync(CFL, a, { env, encoding: 'utf8' }).trim();
  const cf = (...a) => execFileSync(CF, a, { env, encoding: 'utf8' }).trim();
  try {
    const vars = path.join(home, 'vars.yml');
    fs.writeFileSync(vars, 'name: bench\nmemory: 256M\ninstances: 1\ndomain: localhost\nservices: []\nbusy: "0"\n');
    fs.mkdirSync(env.CF_HOME);
    cfl('up');
    cf('login', '-a', cfl('api-url'), '-u', 'admin', '-p', 'admin', '-o', 'local', '-s', 'local', '--skip-ssl-validation');
    cf('push', '-f', FIXTURE, '--vars-file', vars);
    // No CPU quota: the local quota is a process annotation (lib/cc-api/presenters.js).
    const guid = cf('app', 'bench', '--guid');
    cf('curl', '-X', 'PATCH', `/v3/processes/${guid}`, '-d', '{"metadata":{"annotations":{"cfscale.local/cpu-quota":"none"}}}');
    const status = cfl('status');
    const port = Number(status.split('\n').find((l) => l.startsWith('bench ')).trim().split(/\s+/)[3]);
    const daemonPid = Number(fs.readFileSync(path.join(home, 'daemon.pid'), 'utf8'));
    const workers = execFileSync('pgrep', ['-f', `haproxy.*${home}`], { encoding: 'utf8' }).trim().split('\n').map(Number);
    await load(port, null, 1, connections); // warm-up
    const direct = await load(port, null, seconds, connections);
    const cpu0 = cpuSec(daemonPid) + workers.reduce((s, p) => s + cpuSec(p), 0);
    const routed = await load(45480, 'bench.localhost', seconds, connections);
    const cpu1 = cpuSec(daemonPid) + workers.reduce((s, p) => s + cpuSec(p), 0);
    console.log(`${connections} keep-alive connections, ${seconds}s each, node:http fixture, no CPU quota`);
    console.log(`direct:  ${direct.rps.toFixed(0)} req/s  p50 ${direct.p50} ms  p99 ${direct.p99} ms`);
    console.log(`router:  ${routed.rps.toFixed(0)} req/s  p50 ${routed.p50} ms  p99 ${routed.p99} ms`);
    console.log(`ratio router/direct: ${(routed.rps / direct.rps).toFixed(2)} (throughput)`);
    console.log(`router + daemon CPU: ${(((cpu1 - cpu0) * 1000) / routed.n).toFixed(3)} s per 1000 routed requests`);
  } finally {
    try { cfl('down'); } catch { /* reported by cfl */ }
    fs.rmSync(home, { recursive: true, force: true });
  }
}

main().catch((e) => { console.error(`bench-router: ${e.message}`); process.exit(2); });
