#!/usr/bin/env node
// bench-router.js — what the local router costs: two apps hit directly and through HAProxy
// (Host routing, RTR log conversion by the daemon), side by side: the tiny fixture (the
// router's whole cost, on a request that costs next to nothing) and node-app reading one ad
// from PostgreSQL (a request a round times). Not a test: run on demand, under the heavy lock.
//
// Two measurements, because one cannot give both figures on 2 shared cores:
// - latency: a fixed arrival rate well below saturation (--rate), so p50 is the time a
//   request takes, not the time it waits for a core. Three sides alternate in short slices
//   (--slices), so a drift of the machine hits them alike: direct, through a bare HAProxy
//   (the cost of any proxy hop), and through the router. The target:
//   the router adds at most 10 % to p50 (of the app's request: any proxy hop costs about
//   0.15 ms here, several times the tiny fixture's own p50).
// - throughput: closed loop, --connections kept-alive connections flat out, with the CPU the
//   router and the daemon spent per 1000 routed requests.
// Both sides are warmed up before anything is counted.
//
// Usage: node local-platform/bench/router.js --help
'use strict';

const fs = require('node:fs');
const os = require('node:os');
const http = require('node:http');
const path = require('node:path');
const { execFileSync } = require('node:child_process');
const { freePortInRange } = require('../../lib/ports');
const { httpDefaults, MAX_CONN } = require('../lib/haproxy-config');
const { parseCommand, CliError, cliExitCode } = require('../../lib/arg-table');

const REPO = path.join(__dirname, '..', '..');
const CFL = path.join(REPO, 'scripts', 'cfl');
const CF = path.join(REPO, '.tools', 'bin', 'cf');
const FIXTURE = path.join(__dirname, '..', 'test', 'fixtures', 'tiny-app', 'manifest.yml');
const CLOCK_TICKS = 100;

// The flags, their defaults and --help in one (arg-table.js).
const COMMAND = {
  usage: 'Usage: node local-platform/bench/router.js [--rate 200] [--slices 6] [--seconds 3] [--connections 8]',
  rows: [
    ['--rate R', 'rate', 'num', 200, 'latency: requests per second, well below saturation', [1]],
    ['--slices N', 'slices', 'int', 6, 'latency: alternating slices per side', [1]],
    ['--seconds S', 'seconds', 'num', 3, 'length of a slice, and of the flat-out load per side, seconds', [0.1]],
    ['--connections N', 'connections', 'int', 8, 'keep-alive connections (flat out: all in flight)', [1]],
    ['--smoke', 'smoke', 'bool', false, 'check that it can run here (its flags, its code, the tools it needs) and say what it would measure; measure nothing (CI runs this)'],
  ],
};

function cpuSec(pid) {
  try {
    const f = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return (Number(f[11]) + Number(f[12])) / CLOCK_TICKS;
  } catch { return 0; }
}

function request(agent, target) {
  return new Promise((resolve) => {
    const t0 = process.hrtime.bigint();
    http.get({ host: '127.0.0.1', port: target.port, path: target.path, agent, headers: target.host ? { Host: target.host } : {} }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode === 200 ? Number(process.hrtime.bigint() - t0) / 1e6 : null));
    }).on('error', () => resolve(null));
  });
}

/** Closed loop: `connections` requests in flight for `seconds`. Latencies in ms. */
async function closedLoop(agent, target, seconds, connections) {
  const lat = [];
  const end = Date.now() + seconds * 1000;
  await Promise.all(Array.from({ length: connections }, async () => {
    while (Date.now() < end) { const ms = await request(agent, target); if (ms !== null) lat.push(ms); }
  }));
  return lat;
}

/** Open loop: a request every 1/rate s for `seconds`, each timed from its own send. */
async function openLoop(agent, target, seconds, rate) {
  const lat = [];
  const pending = [];
  const start = Date.now();
  for (let i = 0; i < seconds * rate; i++) {
    const due = start + (i * 1000) / rate;
    const wait = due - Date.now();
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    pending.push(request(agent, target).then((ms) => { if (ms !== null) lat.push(ms); }));
  }
  await Promise.all(pending);
  return lat;
}

/** POST a form; the Location of what it created. */
function post(agent, target, form) {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port: target.port, path: target.path, method: 'POST', agent,
      headers: { 'Content-Type': 'application/x-www-form-urlencoded', 'Content-Length': Buffer.byteLength(form) } }, (res) => {
      res.resume();
      res.on('end', () => (res.headers.location ? resolve(res.headers.location) : reject(new Error(`POST ${target.path}: ${res.statusCode}, no Location`))));
    });
    req.on('error', reject);
    req.end(form);
  });
}

/**
 * A bare HAProxy in front of one instance: the router's defaults (keep-alive both sides,
 * timeouts) but no Host routing, captures, request ids or access log. The router's cost
 * beyond it is what its configuration adds to the hop itself.
 */
function bareHaproxy(home, port, appPort) {
  const dir = fs.mkdtempSync(path.join(home, 'bare-haproxy-'));
  const cfg = ['global', `  maxconn ${MAX_CONN}`, '', ...httpDefaults(),
    'frontend bare', `  bind 127.0.0.1:${port}`, '  default_backend app', '',
    'backend app', `  server s0 127.0.0.1:${appPort}`, ''].join('\n');
  fs.writeFileSync(path.join(dir, 'haproxy.cfg'), cfg);
  execFileSync('haproxy', ['-D', '-f', path.join(dir, 'haproxy.cfg'), '-p', path.join(dir, 'haproxy.pid')]);
  return { stop: () => { try { process.kill(Number(fs.readFileSync(path.join(dir, 'haproxy.pid'), 'utf8'))); } catch { /* gone */ } } };
}

const line = (name, l) => `${name.padEnd(9)} p50 ${pct(l, 0.5).toFixed(3)} ms  p90 ${pct(l, 0.9).toFixed(3)} ms  p99 ${pct(l, 0.99).toFixed(3)} ms  (${l.length} requests)`;

function pct(lat, p) {
  const s = [...lat].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(p * s.length))];
}

async function main() {
  const { rate, slices, seconds, connections, smoke } = parseCommand('bench-router', process.argv.slice(2), COMMAND);
  if (smoke) {
    if (!fs.existsSync(CF)) throw new Error(`the cf CLI is missing (${CF}): run scripts/setup.sh`);
    if (execFileSync('sh', ['-c', 'command -v haproxy || true'], { encoding: 'utf8' }).trim() === '') throw new Error('haproxy is missing: run scripts/setup.sh');
    process.stdout.write(`bench-router: smoke: would compare direct, bare HAProxy and the router at ${rate} req/s in ${slices} slices of ${seconds} s, then flat out on ${connections} connections\n`);
    return;
  }
  const home = fs.mkdtempSync(path.join(os.tmpdir(), 'cfscale-local-bench-'));
  const routerPort = await freePortInRange(45480, 45482);
  const barePort = await freePortInRange(45483, 45484);
  const env = { ...process.env, CFSCALE_HOME: home, CFSCALE_ROUTER_PORT: String(routerPort),
    CFSCALE_ROUTER_TLS_PORT: String(await freePortInRange(45550, 45559)),
    CFSCALE_PG_PORT: String(await freePortInRange(45485, 45487)), CFSCALE_API_PORT: String(await freePortInRange(45488, 45489)),
    CFSCALE_INSTANCE_PORT_BASE: '45490', CFSCALE_FRONT_PROXY_PORT_BASE: String(await freePortInRange(45470, 45479)), CF_HOME: path.join(home, 'cf-home') };
  const cfl = (...a) => execFileSync(CFL, a, { env, encoding: 'utf8' }).trim();
  const cf = (...a) => execFileSync(CF, a, { env, encoding: 'utf8' }).trim();
  try {
    const vars = path.join(home, 'vars.yml');
    fs.writeFileSync(vars, 'name: bench\nmemory: 256M\ninstances: 1\ndomain: localhost\nservices: []\nbusy: "0"\n');
    fs.mkdirSync(env.CF_HOME);
    cfl('up');
    cfl('login');
    cf('push', '-f', FIXTURE, '--vars-file', vars);
    for (const s of ['node-db', 'results-db']) cf('create-service', 'postgres', 'local', s);
    // node-app starts only with a CONTROL_TOKEN: set on the empty app, as scripts/push.sh does.
    cf('create-app', 'node-app');
    cf('set-env', 'node-app', 'CONTROL_TOKEN', require('node:crypto').randomBytes(32).toString('base64url'));
    cf('push', 'node-app', '-f', path.join(REPO, 'manifests', 'node-app.yml'), '--vars-file', path.join(REPO, 'manifests', 'vars-local.yml'));
    // No CPU quota, so latency is the request's and not the CFS period's (the local quota is
    // a process annotation, lib/cc-api/presenters.js).
    for (const app of ['bench', 'node-app']) {
      const guid = cf('app', app, '--guid');
      cf('curl', '-X', 'PATCH', `/v3/processes/${guid}`, '-d', '{"metadata":{"annotations":{"cfscale.local/cpu-quota":"none"}}}');
    }
    const status = cfl('status').split('\n');
    const portOf = (app) => Number(status.find((l) => l.startsWith(`${app} `)).trim().split(/\s+/)[3]);
    const daemonPid = Number(fs.readFileSync(path.join(home, 'daemon.pid'), 'utf8'));
    const workers = execFileSync('pgrep', ['-f', `haproxy.*${home}`], { encoding: 'utf8' }).trim().split('\n').map(Number);
    const routerCpu = () => cpuSec(daemonPid) + workers.reduce((s, p) => s + cpuSec(p), 0);
    const agent = new http.Agent({ keepAlive: true, maxSockets: connections });
    const ad = await post(agent, { port: portOf('node-app'), path: '/ads' }, 'title=bench&body=router+bench');

    console.log(`latency: ${rate} req/s on up to ${connections} keep-alive connections, ${slices} alternating slices of ${seconds} s per side, no CPU quota`);
    const targets = [
      ['tiny fixture GET /', { port: portOf('bench'), path: '/' }, 'bench.localhost'],
      [`node-app GET ${ad}`, { port: portOf('node-app'), path: ad }, 'node-app.localhost'],
    ];
    const flat = [];
    for (const [name, direct, host] of targets) {
      const bare = bareHaproxy(home, barePort, direct.port);
      try {
        const sides = { direct, bare: { port: barePort, path: direct.path }, router: { port: routerPort, path: direct.path, host } };
        for (const t of Object.values(sides)) await closedLoop(agent, t, 1, connections); // warm-up, every side
        const lat = { direct: [], bare: [], router: [] };
        const order = Object.keys(sides);
        for (let i = 0; i < slices; i++) {
          for (const side of i % 2 ? [...order].reverse() : order) lat[side].push(...await openLoop(agent, sides[side], seconds, rate));
        }
        const p50 = Object.fromEntries(order.map((k) => [k, pct(lat[k], 0.5)]));
        console.log(`${name}: router adds ${((p50.router / p50.direct - 1) * 100).toFixed(1)} % to p50 (+${(p50.router - p50.direct).toFixed(3)} ms), ` +
          `a bare HAProxy hop ${((p50.bare / p50.direct - 1) * 100).toFixed(1)} % (+${(p50.bare - p50.direct).toFixed(3)} ms)`);
        for (const k of order) console.log(line(`  ${k}`, lat[k]));
        if (!flat.length) flat.push(direct, sides.router);
      } finally {
        bare.stop();
      }
    }
    const flatDirect = await closedLoop(agent, flat[0], seconds, connections);
    const cpu0 = routerCpu();
    const flatRouted = await closedLoop(agent, flat[1], seconds, connections);
    const cpu1 = routerCpu();
    agent.destroy();
    console.log(`throughput: tiny fixture, ${connections} connections flat out, ${seconds} s per side`);
    console.log(`  direct ${(flatDirect.length / seconds).toFixed(0)} req/s  p50 ${pct(flatDirect, 0.5).toFixed(2)} ms`);
    console.log(`  router ${(flatRouted.length / seconds).toFixed(0)} req/s  p50 ${pct(flatRouted, 0.5).toFixed(2)} ms`);
    console.log(`  ratio router/direct: ${(flatRouted.length / flatDirect.length).toFixed(2)}`);
    console.log(`  router + daemon CPU: ${(((cpu1 - cpu0) * 1000) / flatRouted.length).toFixed(3)} s per 1000 routed requests`);
  } finally {
    try { cfl('down'); } catch { /* reported by cfl */ }
    fs.rmSync(home, { recursive: true, force: true });
  }
}

main().catch((e) => {
  if (e instanceof CliError) process.exit(cliExitCode(e));
  console.error(`bench-router: ${e.message}`);
  process.exit(2);
});
