// Integration test of the TLS front proxies (front-proxy.js): real HAProxy processes with an
// openssl certificate in real cgroups, in front of a plain node:http server standing where
// the router stands, driven by the real loadgen CLI over HTTPS with and without keep-alive.
'use strict';

const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const os = require('node:os');
const http = require('node:http');
const path = require('node:path');
const crypto = require('node:crypto');
const { execFile } = require('node:child_process');
const { FrontProxies, cgroupName } = require('../lib/front-proxy');
const { Cgroups } = require('../lib/cgroups');
const { portFree } = require('../../lib/ports');

const LOADGEN = path.join(__dirname, '..', '..', 'loadgen', 'bin', 'loadgen.js');
const DIR = fs.mkdtempSync(path.join(os.tmpdir(), 'cfscale-front-it-'));
const REQUESTS = 40;

function loadgen(args) {
  return new Promise((resolve) => {
    execFile(process.execPath, [LOADGEN, ...args, '--json'], { encoding: 'utf8', timeout: 60000 }, (err, stdout, stderr) => {
      resolve({ code: err ? err.code : 0, result: stdout.trim() ? JSON.parse(stdout) : null, stderr });
    });
  });
}

// Two consecutive free ports of the local platform's test range (45000-45999, test/ports.js).
async function twoFreePorts() {
  for (let p = 45400; p < 45498; p += 2) if (await portFree(p) && await portFree(p + 1)) return p;
  throw new Error('no two free ports in 45400-45499');
}

let backend;
let proxies;
let cgroups;
const seen = [];

test.before(async () => {
  backend = http.createServer((req, res) => {
    // The loadgen's requests only (each carries its X-Correlation-ID): on a shared machine a
    // stray client (another suite's probe of a port it held before) may reach this free port.
    if (req.headers['x-correlation-id']) seen.push(req.headers['x-forwarded-proto']);
    res.end('Hello World\n');
  });
  await new Promise((r) => backend.listen(0, '127.0.0.1', r));
  cgroups = new Cgroups('/sys/fs/cgroup', `t${crypto.randomBytes(4).toString('hex')}`, () => {});
  proxies = new FrontProxies({
    dir: DIR, portBase: await twoFreePorts(), routerPort: backend.address().port, cpuCores: 0.5, cgroups, log: () => {},
  });
});

test.after(async () => {
  await proxies.stopAll();
  cgroups.removeAll();
  backend.close();
  fs.rmSync(DIR, { recursive: true, force: true });
});

test('front proxies terminate TLS; keep-alive on and off show in their connection counts', { timeout: 120000 }, async () => {
  await proxies.set(2);
  const urls = proxies.urls();
  assert.equal(urls.length, 2);
  assert.ok(urls.every((u) => /^https:\/\/127\.0\.0\.1:\d+$/.test(u)), urls.join(' '));

  // Self-signed: without --insecure (LOADGEN_TLS_INSECURE in a worker) every request fails.
  const verified = await loadgen(['--url', `${urls[0]}/`, '--requests', '4', '--parallel', '1']);
  assert.equal(verified.result.requests.ok, 0, 'the certificate is verified by default');

  const before = (await proxies.stats())[0];
  const kept = await loadgen(['--url', `${urls[0]}/`, '--requests', String(REQUESTS), '--parallel', '2', '--insecure']);
  assert.equal(kept.result.requests.ok, REQUESTS, kept.stderr);
  const mid = (await proxies.stats())[0];
  const closed = await loadgen(['--url', `${urls[0]}/`, '--requests', String(REQUESTS), '--parallel', '2', '--insecure', '--no-keepalive']);
  assert.equal(closed.result.requests.ok, REQUESTS, closed.stderr);
  const after = (await proxies.stats())[0];

  assert.equal(mid.requests - before.requests, REQUESTS);
  assert.equal(mid.sessions - before.sessions, 2, 'keep-alive: one connection per request in flight');
  assert.equal(after.requests - mid.requests, REQUESTS);
  assert.equal(after.sessions - mid.sessions, REQUESTS, 'no keep-alive: one connection per request');
  // The router side is plain HTTP, told the client came over https.
  assert.ok(seen.length >= 2 * REQUESTS && seen.every((p) => p === 'https'), `X-Forwarded-Proto seen: ${[...new Set(seen)]}`);

  // Each proxy in its own cgroup with the quota asked for; the TLS work is charged there.
  if (cgroups.available) {
    const cpuDir = cgroups.dirs(cgroupName(0)).cpu;
    const quota = Number(fs.readFileSync(path.join(cpuDir, 'cpu.cfs_quota_us'), 'utf8'));
    const period = Number(fs.readFileSync(path.join(cpuDir, 'cpu.cfs_period_us'), 'utf8'));
    assert.equal(quota / period, 0.5);
    assert.ok(after.cpu_ns > mid.cpu_ns, 'CPU used by the proxy is counted in its cgroup');
    assert.deepEqual(cgroups.pids(cgroupName(0)), [after.pid]);
  }
  // The second proxy is independent: none of the traffic above went through it.
  assert.equal((await proxies.stats())[1].requests, 0);

  await proxies.set(0);
  assert.deepEqual(proxies.urls(), []);
  assert.equal(await portFree(Number(new URL(urls[0]).port)), true, 'port released');
  if (cgroups.available) assert.equal(fs.existsSync(cgroups.dirs(cgroupName(0)).cpu), false, 'cgroup removed');
});
