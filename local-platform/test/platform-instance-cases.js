'use strict';
// platform-instance-cases.js — platform.test.js's cases of the cell: the CF environment, stats,
// scaling, crashes and OOM kills, the CPU quota, logs, the lifecycle verbs, health checks,
// stop signals, and `cfl down` leaving nothing behind. Each takes { pw
// (fixtures/platform-world.js), guid (the app tiny's), state (what one case leaves the next) }.
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const http = require('node:http');
const { spawn } = require('node:child_process');
const { Client } = require('pg');
const { portFree } = require('../../lib/ports');
const { CF, HC_CASES, SIG_CASES, sleep, until, pidsOf, alive } = require('./fixtures/platform-world');

// An instance's own temp dir (kept across its restarts).
const tmpOf = (HOME, i) => path.join(HOME, 'instances', 'tiny', String(i), 'tmp');

async function cfEnvironment({ pw, guid, state }) {
  const { get, curlJson, HOME } = pw;
  const env = JSON.parse((await get('tiny.localhost', '/env', { 'X-Cf-App-Instance': `${guid}:0` })).body);
  const env1 = JSON.parse((await get('tiny.localhost', '/env', { 'X-Cf-App-Instance': `${guid}:1` })).body);
  assert.deepEqual([env.TMPDIR, env.TMP, env.TEMP], [tmpOf(HOME, 0), tmpOf(HOME, 0), tmpOf(HOME, 0)], 'own temp dir');
  assert.equal(env1.TMPDIR, tmpOf(HOME, 1));
  assert.ok(fs.statSync(env.TMPDIR).isDirectory() && fs.statSync(env1.TMPDIR).isDirectory());
  assert.equal(env.CF_INSTANCE_INDEX, '0');
  assert.equal(env.MEMORY_LIMIT, '96m');
  const binding = JSON.parse(env.VCAP_SERVICES).postgres[0];
  assert.equal(binding.name, 'results-db');
  const [bindingGuid] = (await curlJson(`/v3/service_credential_bindings?app_guids=${guid}`)).resources.map((b) => b.guid);
  assert.deepEqual((await curlJson(`/v3/service_credential_bindings/${bindingGuid}/details`)).credentials, binding.credentials,
    'VCAP_SERVICES holds the binding\'s credentials');
  state.resultsDbUrl = binding.credentials.uri;
  assert.equal(JSON.parse(env.VCAP_APPLICATION).application_id, guid);
}

async function statsShape({ pw, guid }) {
  const { curlJson, stats } = pw;
  const v3 = await curlJson(`/v3/apps/${guid}/processes/web/stats`);
  assert.deepEqual(v3.resources.map((r) => [r.index, r.state]), [[0, 'RUNNING'], [1, 'RUNNING']]);
  const s = await until('a first sample', async () => (await stats(guid)).find((r) => r.usage.mem > 0));
  assert.equal(s.mem_quota, 96 * 1024 * 1024);
  assert.ok(s.usage.mem < s.mem_quota, `mem ${s.usage.mem}`);
  assert.match(s.usage.time, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|\+00:00)$/);
  assert.deepEqual((await curlJson('/v3/apps?names=tiny')).resources.map((a) => a.guid), [guid]);
}

async function scaleInstances({ pw, guid }) {
  const { ok, get, allRunning, HOME } = pw;
  const conn = (await get('tiny.localhost', '/')).localPort;
  await ok('scale', 'tiny', '-i', '3');
  await allRunning(guid, 3);
  const seen = new Set();
  for (let i = 0; i < 6; i++) seen.add((await get('tiny.localhost', '/')).headers['x-instance-index']);
  assert.deepEqual(seen, new Set(['0', '1', '2']));
  await ok('scale', 'tiny', '-i', '1');
  await allRunning(guid, 1);
  // A scale-in stops its instances as Diego does (SIGTERM, then the grace period): their disks
  // go once each has exited.
  await until('temp dirs of scaled-down indices removed', () => fs.readdirSync(path.join(HOME, 'instances', 'tiny')).join() === '0');
  for (let i = 0; i < 4; i++) assert.equal((await get('tiny.localhost', '/')).headers['x-instance-index'], '0');
  assert.equal((await get('tiny.localhost', '/')).localPort, conn, 'same client connection (no router reload)');
}

async function killedInstance({ pw, guid }) {
  const { cflOk, ok, get, curlJson, HOME } = pw;
  const [{ pid }] = pidsOf(await cflOk('status'), 'tiny');
  const before = (await curlJson(`/v3/apps/${guid}/processes/web/stats`)).resources[0].instance_guid;
  fs.writeFileSync(path.join(tmpOf(HOME, 0), 'spooled'), 'x');
  process.kill(pid, 'SIGKILL');
  const ev = await until('crash event', async () => (await curlJson(`/v3/audit_events?target_guids=${guid}&types=audit.app.process.crash`)).resources[0]);
  assert.equal(ev.type, 'audit.app.process.crash');
  assert.equal(ev.data.index, 0);
  assert.equal(ev.data.reason, 'CRASHED');
  assert.equal(ev.data.exit_description, 'APP/PROC/WEB: Exited with status 137');
  // CC's created_ats filter: whole seconds only, else the status line and error of CC.
  const since = `/v3/audit_events?target_guids=${guid}&types=audit.app.process.crash&created_ats[gte]=${ev.created_at}`;
  assert.deepEqual((await curlJson(since)).resources.map((e) => e.guid), [ev.guid]);
  const bad = await ok('curl', '-i', since.replace(/Z$/, '.000Z'));
  assert.match(bad, /^HTTP\/1\.1 400 Bad Request\r?\n/);
  assert.equal(JSON.parse(bad.slice(bad.indexOf('{'))).errors[0].title, 'CF-BadQueryParameter');
  await until('restart', async () => {
    const r = (await curlJson(`/v3/apps/${guid}/processes/web/stats`)).resources[0];
    return r.state === 'RUNNING' && r.instance_guid !== before;
  });
  assert.equal((await get('tiny.localhost', '/')).status, 200);
  assert.equal(fs.readFileSync(path.join(tmpOf(HOME, 0), 'spooled'), 'utf8'), 'x', 'temp dir kept across the restart');
}

async function oomKill({ pw, state }) {
  const { ok, get, curlJson } = pw;
  const hog = await ok('app', 'hog', '--guid');
  get('hog.localhost', '/grow').catch(() => {});
  const ev = await until('oom event', async () => (await curlJson(`/v3/audit_events?target_guids=${hog}&types=audit.app.process.crash`)).resources[0]);
  assert.match(ev.data.exit_description, /\(out of memory\)$/);
  const c = new Client({ connectionString: state.resultsDbUrl });
  await c.connect();
  try {
    const rows = await until('instance_events row', async () => (await c.query("SELECT * FROM instance_events WHERE app = 'hog'")).rows[0]);
    assert.equal(rows.kind, 'oom');
    assert.equal(rows.platform, 'local');
    assert.equal(rows.round_id, null);
  } finally { await c.end(); }
}

async function cpuQuota({ pw }) {
  const { ok, stats, setCpu } = pw;
  const busy = await ok('app', 'busy', '--guid');
  await setCpu(busy, '0.2');
  await sleep(1500);
  const samples = [];
  for (let i = 0; i < 4; i++) {
    samples.push(...(await stats(busy)).filter((r) => r.state === 'RUNNING'));
    await sleep(1000);
  }
  assert.ok(samples.length >= 2, 'samples');
  const avg = samples.reduce((s, r) => s + r.usage.cpu, 0) / samples.length;
  assert.equal(samples[0].cpu_quota, 0.2);
  assert.ok(avg > 0.05 && avg < 0.3, `cpu ${avg}`);
}

async function scaleMemory({ pw, guid }) {
  const { ok, get, curlJson } = pw;
  await ok('scale', 'tiny', '-m', '128M', '-f');
  // The new limit, and a first sample of the restarted instance under it.
  const s = await until('running with 128M', async () => {
    const r = (await curlJson(`/v3/apps/${guid}/processes/web/stats`)).resources[0];
    return r.state === 'RUNNING' && r.mem_quota === 128 * 1024 * 1024 && r.usage.mem > 0 && r;
  });
  assert.ok(s.usage.mem < s.mem_quota, `mem ${s.usage.mem}`);
  assert.equal((await get('tiny.localhost', '/')).status, 200);
}

async function logsStream({ pw }) {
  const { get, w } = pw;
  const child = spawn(CF, ['logs', 'tiny'], { env: w.env });
  let out = '';
  child.stdout.on('data', (d) => { out += d; });
  try {
    // The client needs a moment to start tailing: ask until one request shows up.
    const ids = [];
    await until('streamed RTR line', async () => {
      ids.push((await get('tiny.localhost', '/streamed')).headers['x-vcap-request-id']);
      await sleep(300);
      return ids.some((id) => out.includes(`vcap_request_id:"${id}"`));
    }, 15000);
    assert.match(out, /\[APP\/PROC\/WEB\/0\] OUT request GET \/streamed/);
  } finally { child.kill('SIGKILL'); }
}

async function lifecycleVerbs({ pw, guid }) {
  const { ok, get, curlJson, stats, w, HOME } = pw;
  await ok('set-env', 'tiny', 'FOO', 'bar baz');
  await ok('restart', 'tiny');
  const env = JSON.parse((await until('instance 0 back', async () => {
    const r = await get('tiny.localhost', '/env', { 'X-Cf-App-Instance': `${guid}:0` });
    return r.status === 200 && r.body;
  })));
  assert.equal(env.FOO, 'bar baz');
  assert.match(await ok('env', 'tiny'), /VCAP_SERVICES[\s\S]*User-Provided:\nBUSY: 0\nFOO: bar baz/);
  assert.deepEqual(await curlJson(`/v3/apps/${guid}/environment_variables`), {
    var: { BUSY: '0', FOO: 'bar baz' },
    links: { self: { href: `${w.api}/v3/apps/${guid}/environment_variables` }, app: { href: `${w.api}/v3/apps/${guid}` } },
  });
  assert.equal(JSON.parse((await w.cf('curl', '/v3/apps/nope/environment_variables')).stdout).errors[0].title, 'CF-ResourceNotFound');
  await ok('stop', 'tiny');
  // CC lists a stopped process's instances as DOWN (instances_stats_reporter.rb).
  assert.deepEqual((await stats(guid)).map((r) => [r.index, r.state, r.uptime]), [[0, 'DOWN', 0]]);
  assert.equal((await curlJson(`/v3/apps/${guid}`)).state, 'STOPPED');
  assert.equal((await get('tiny.localhost', '/')).status, 503);
  await ok('start', 'tiny');
  assert.equal((await get('tiny.localhost', '/')).status, 200);
  assert.ok(fs.existsSync(path.join(HOME, 'instances', 'busy', '0', 'tmp')));
  await ok('delete', 'busy', '-f');
  assert.equal(fs.existsSync(path.join(HOME, 'instances', 'busy')), false, 'delete removes the temp dirs');
  const gone = await w.cf('app', 'busy', '--guid');
  assert.equal(gone.code, 1);
  assert.match(gone.out, /App 'busy' not found/);
}

async function saturatedInstance({ pw }) {
  const { ok, curlJson, CFG } = pw;
  const cases = HC_CASES;
  const guids = {};
  const before = {};
  for (const name of Object.keys(cases)) {
    guids[name] = await ok('app', name, '--guid');
    before[name] = (await curlJson(`/v3/apps/${guids[name]}/processes/web/stats`)).resources[0].instance_guid;
  }
  const block = (host) => new Promise((resolve) => {
    const req = http.get({ host: '127.0.0.1', port: CFG.routerPort, path: '/block?ms=4000', agent: false, headers: { Host: host } }, (res) => { res.resume(); res.on('end', () => resolve(res.statusCode)); });
    req.on('error', () => resolve(null));
  });
  const [httpStatus, manifestStatus] = await Promise.all([block('hc-http.localhost'), block('hc-manifest.localhost')]);
  assert.equal(manifestStatus, 200, 'the blocked request completes');
  assert.notEqual(httpStatus, 200, 'the http-checked instance was killed mid-request');
  const ev = await until('unhealthy crash', async () => (await curlJson(`/v3/audit_events?target_guids=${guids['hc-http']}&types=audit.app.process.crash`)).resources[0]);
  assert.match(ev.data.exit_description, /^Instance became unhealthy: Failed to make HTTP request to '\/health' on port \d+: timed out after 1\.00 seconds$/);
  assert.deepEqual((await curlJson(`/v3/audit_events?target_guids=${guids['hc-manifest']}&types=audit.app.process.crash,app.crash`)).resources, [], 'no crash');
  const now = (await curlJson(`/v3/apps/${guids['hc-manifest']}/processes/web/stats`)).resources[0];
  assert.deepEqual([now.state, now.instance_guid], ['RUNNING', before['hc-manifest']], 'the same container still runs');
}

// The group got SIGTERM, so node heard it even when its parent never passed it on.
async function stopSignals({ pw }) {
  const { ok } = pw;
  const cases = SIG_CASES;
  for (const name of Object.keys(cases)) await ok('stop', name);
  assert.match(await ok('logs', 'sig-exec', '--recent'), /OUT node got SIGTERM/, 'node as the main process gets it');
  assert.doesNotMatch(await ok('logs', 'sig-shell', '--recent'), /node got SIGTERM/, 'a child of a shell that does not pass it on does not');
}

async function downLeavesNothing({ pw }) {
  const { cflOk, HOME, CFG } = pw;
  const status = await cflOk('status');
  // The CFS period the quotas use is shown (a round records it from here: round-doc.js).
  if (!/cgroups: +OFF/.test(status)) assert.match(status, /CPU mode quota, period 100000 µs\n/);
  const pids = pidsOf(status, 'tiny').concat(pidsOf(status, 'hog'));
  assert.equal(pids.length, 2);
  const daemonPid = Number(fs.readFileSync(CFG.pidFile, 'utf8'));
  const haproxyPid = Number(fs.readFileSync(path.join(CFG.haproxyDir, 'haproxy.pid'), 'utf8'));
  const pgPid = Number(fs.readFileSync(path.join(CFG.pgDir, 'data', 'postmaster.pid'), 'utf8').split('\n')[0]);
  const all = [daemonPid, haproxyPid, pgPid, ...pids.map((p) => p.pid)];
  assert.ok(all.every(alive), 'all alive before down');
  await cflOk('down');
  await until('processes gone', async () => all.every((p) => !alive(p)), 5000);
  assert.equal(fs.existsSync(path.join(HOME, 'instances')), false, 'temp dirs removed');
  for (const c of ['memory', 'cpu', 'cpuacct']) assert.equal(fs.existsSync(`/sys/fs/cgroup/${c}/cfscale-${CFG.homeHash}`), false, c);
  for (const port of [CFG.routerPort, CFG.pgPort, ...pids.map((p) => p.port)]) assert.ok(await portFree(port), `port ${port}`);
}

module.exports = { cfEnvironment, statsShape, scaleInstances, killedInstance, oomKill, cpuQuota, scaleMemory, logsStream, lifecycleVerbs, saturatedInstance, stopSignals, downLeavesNothing };
