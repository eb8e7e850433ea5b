// Unit tests of the local platform's settings and the cell's pieces: cfl's arguments, cgroups
// (none writable; a fake v1 tree for the CPU period and throttling), CF's CPU shares, start
// commands per buildpack, cfl up's warning about a daemon's other settings, where PostgreSQL
// keeps its data, pinned ports under scripts/test.sh.
'use strict';

const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { parseArgs, runningSettings } = require('../bin/cli');

const REPO = path.resolve(__dirname, '..', '..');
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'cfscale-local-unit-'));
test.after(() => fs.rmSync(tmp, { recursive: true, force: true }));

test('cli: only cfl\'s own verbs; everything else is the cf CLI\'s; bad input rejected', () => {
  for (const verb of ['up', 'down', 'status', 'api-url', 'router-url', 'home', 'router-usage']) assert.deepEqual(parseArgs([verb]), { verb, args: {} });
  assert.deepEqual(parseArgs(['front-proxies', '-n', '2', '--cpu', '0.5', '--json']).args, { count: 2, cpu: 0.5, json: true });
  assert.deepEqual(parseArgs(['front-proxies', '-n', '0', '--cpu', 'none']).args, { count: 0, cpu: 'none' });
  const bad = [['front-proxies', '-n', 'x'], ['front-proxies', '--cpu', '0'], ['front-proxies', '-n'], ['frobnicate'], ['push', '-f', 'm.yml'],
    ['scale', 'x', '-i', '2'], ['logs', 'x'], ['up', 'x'], ['status', '--nope']];
  for (const argv of bad) assert.throws(() => parseArgs(argv), (e) => e.code === 1, argv.join(' '));
});

test('without writable cgroups: unconstrained, said once, stats from /proc', async () => {
  const { Cgroups } = require('../lib/cgroups');
  const { procUsage } = require('../lib/instance-usage');
  const said = [];
  const cg = new Cgroups(path.join(tmp, 'no-cgroups'), 'abcd1234', (m) => said.push(m));
  assert.equal(fs.existsSync(path.join(tmp, 'no-cgroups')), false, 'nothing created');
  assert.equal(cg.available, false);
  assert.equal(said.length, 1);
  assert.match(said[0], /WITHOUT memory limits or CPU quotas/);
  assert.equal(cg.prepare('a-0', { memoryBytes: 1, cpuCores: 1 }), null);
  assert.equal(cg.enterScript('a-0'), '');
  const child = require('node:child_process').spawn(process.execPath, ['-e', 'const a = Buffer.alloc(32 << 20, 1); for (;;) {}'], { detached: true, stdio: 'ignore' });
  try {
    await new Promise((r) => setTimeout(r, 700));
    const u = procUsage(child.pid);
    assert.ok(u.cpuNs > 1e8, `cpu ${u.cpuNs}`);
    assert.ok(u.memBytes > 32 << 20, `mem ${u.memBytes}`);
  } finally { child.kill('SIGKILL'); }
});

test('CF CPU shares from memory (docs/cf-platform.md §7)', () => {
  const { cfCpuShares } = require('../lib/cgroups');
  const cases = [[64, 10], [128, 10], [200, 20], [512, 61], [800, 92], [1024, 122], [8192, 1024], [16384, 1024]];
  for (const [mb, shares] of cases) assert.equal(cfCpuShares(mb), shares, `${mb}M`);
});

test('start command per buildpack, as the buildpacks decide', async () => {
  const { stage, startCommand } = require('../lib/start-command');
  const jar = path.join(tmp, 'app.jar');
  fs.writeFileSync(jar, Buffer.alloc(4096));
  const base = { name: 'a', memoryMb: 800, env: {}, command: null };
  const java = { ...base, buildpack: 'java_buildpack', path: jar };
  const javaCmd = startCommand(java, await stage(java, tmp));
  assert.equal(javaCmd.cwd, tmp);
  assert.match(javaCmd.command, /^exec java -XX:MaxDirectMemorySize=10M -Xmx\d+K -XX:MaxMetaspaceSize=\d+K -XX:ReservedCodeCacheSize=240M -Xss1024K \$JAVA_OPTS -jar '.*app\.jar'$/);
  const node = { ...base, buildpack: 'nodejs_buildpack', path: tmp };
  assert.deepEqual(startCommand(node), { cwd: tmp, command: 'npm start' });
  assert.deepEqual(startCommand({ ...node, command: 'exec node x.js' }), { cwd: tmp, command: 'exec node x.js' });
  assert.throws(() => startCommand({ ...node, buildpack: 'php_buildpack' }), /not supported locally/);
  await assert.rejects(stage({ ...java, path: tmp }, tmp), /must be a jar/);
});

test('CFSCALE_CPU_PERIOD_US: validated, and the quota is cores x that period', () => {
  const { loadConfig } = require('../lib/config');
  const { Cgroups } = require('../lib/cgroups');
  assert.equal(loadConfig({ CFSCALE_CPU_PERIOD_US: '10000' }).cpuPeriodUs, 10000);
  assert.equal(loadConfig({}).cpuPeriodUs, 100000);
  for (const bad of ['500', '2000000', '1500.5', 'x']) {
    assert.throws(() => loadConfig({ CFSCALE_CPU_PERIOD_US: bad }), /CFSCALE_CPU_PERIOD_US/, bad);
  }
  // A fake cgroup v1 tree: the controllers' mount points and our group's cgroup.procs.
  const root = path.join(tmp, 'fake-cgroups');
  for (const c of ['memory', 'cpu', 'cpuacct']) {
    fs.mkdirSync(path.join(root, c, 'cfscale-feed0001'), { recursive: true });
    fs.writeFileSync(path.join(root, c, 'cfscale-feed0001', 'cgroup.procs'), '');
  }
  const cg = new Cgroups(root, 'feed0001', () => {}, 10000);
  assert.equal(cg.available, true);
  const d = cg.dirs('a-0');
  fs.mkdirSync(d.cpu, { recursive: true });
  const read = (f) => fs.readFileSync(path.join(d.cpu, f), 'utf8');
  // 0.05 core of 10 ms is 0.5 ms, below the kernel's 1 ms: refused, never raised silently.
  assert.throws(() => cg.setCpu('a-0', 0.05), /below the kernel's minimum of 1000 µs: ask for at least 0.1 cores or raise CFSCALE_CPU_PERIOD_US/);
  cg.setCpu('a-0', 0.5);
  assert.deepEqual([read('cpu.cfs_period_us'), read('cpu.cfs_quota_us')], ['10000', '5000']);
  cg.setCpu('a-0', null);
  assert.equal(read('cpu.cfs_quota_us'), '-1');
  // Throttling: cgroup v1 cpu.stat (throttled_time in ns), µs in the stats.
  fs.writeFileSync(path.join(d.cpu, 'cpu.stat'), 'nr_periods 250\nnr_throttled 240\nthrottled_time 21000500000\nnr_bursts 0\n');
  assert.deepEqual(cg.throttling('a-0'), { periods: 250, throttled_periods: 240, throttled_us: 21000500 });
  fs.writeFileSync(path.join(d.cpu, 'cpu.stat'), 'garbage\n');
  assert.equal(cg.throttling('a-0'), null);
});

test('cfl up warns when the running daemon has other settings than this environment asks for', () => {
  const home = fs.mkdtempSync(path.join(os.tmpdir(), 'cfscale-local-unit-'));
  try {
    fs.writeFileSync(path.join(home, 'daemon.json'), JSON.stringify({ pid: 1, routerPort: 8888, pgPort: 54320,
      instancePortBase: 61000, cpuMode: 'quota', cpuPeriodUs: 100000 }));
    const { loadConfig } = require('../lib/config');
    const cfg = { ...loadConfig({ CFSCALE_CPU_PERIOD_US: '20000' }), home };
    const said = [];
    runningSettings(cfg, { CFSCALE_CPU_PERIOD_US: '20000' }, (s) => said.push(s));
    assert.deepEqual(said, ['cfl: warning: the running platform uses CFSCALE_CPU_PERIOD_US=100000, not 20000 (cfl down to change it)\n']);
    said.length = 0;
    runningSettings(cfg, {}, (s) => said.push(s)); // not asked for: the daemon's is fine
    assert.deepEqual(said, []);
  } finally {
    fs.rmSync(home, { recursive: true, force: true });
  }
});

test('postgres data: HOME/pg when postgres can reach HOME, else outside it, one directory per home (as root)', () => {
  const { canEnter, pgDirOf, OUTSIDE_PG_ROOT } = require('../lib/config');
  const closed = fs.mkdtempSync(path.join(tmp, 'closed-'));
  const open = fs.mkdtempSync(path.join(tmp, 'open-'));
  fs.chmodSync(tmp, 0o755);
  fs.chmodSync(closed, 0o700);
  fs.chmodSync(open, 0o755);
  const stranger = { uid: 4242, gids: new Set([4242]) };
  assert.equal(canEnter(stranger, path.join(open, 'not/made/yet')), true);
  assert.equal(canEnter(stranger, path.join(closed, 'home')), false);
  assert.equal(canEnter({ uid: fs.statSync(closed).uid, gids: new Set() }, path.join(closed, 'home')), true, 'its owner may');
  assert.equal(pgDirOf(path.join(open, 'home'), 'abcd1234', true), path.join(open, 'home', 'pg'));
  // A home of its own 0700 (mkdtemp) is opened to 0711 by the platform: only the directories above decide.
  fs.mkdirSync(path.join(open, 'private-home'), { mode: 0o700 });
  assert.equal(pgDirOf(path.join(open, 'private-home'), 'abcd1234', true), path.join(open, 'private-home', 'pg'));
  assert.equal(pgDirOf(path.join(closed, 'home'), 'abcd1234', false), path.join(closed, 'home', 'pg'), 'not root: runs as ourselves');
  if (process.getuid() === 0) assert.equal(pgDirOf(path.join(closed, 'home'), 'abcd1234', true), path.join(OUTSIDE_PG_ROOT, 'abcd1234', 'pg'));
  // A cluster already made inside stays there, reachable or not.
  fs.mkdirSync(path.join(closed, 'home', 'pg', 'data'), { recursive: true });
  assert.equal(pgDirOf(path.join(closed, 'home'), 'abcd1234', true), path.join(closed, 'home', 'pg'));
});

test('CFSCALE_PIN_PORTS=1 (scripts/test.sh): a platform without every port pinned does not start', () => {
  const { requirePinnedPorts, PORT_VARIABLES } = require('../lib/config');
  const pinned = Object.fromEntries(PORT_VARIABLES.map((name, i) => [name, String(45900 + i)]));
  requirePinnedPorts({ ...pinned, CFSCALE_PIN_PORTS: '1' });
  requirePinnedPorts({}); // outside the tests the defaults apply
  for (const name of PORT_VARIABLES) {
    const env = { ...pinned, CFSCALE_PIN_PORTS: '1', [name]: '' };
    assert.throws(() => requirePinnedPorts(env), new RegExp(`^Error: ${name} not set: under scripts/test\\.sh a platform pins every port`));
  }
  // The daemon refuses to start so: cfl up fails with that line.
  // platform-ports: `pinned` sets every port; the test leaves one out to see the daemon refuse.
  const r = require('node:child_process').spawnSync(process.execPath, [path.join(REPO, 'local-platform/bin/daemon.js')],
    { env: { ...process.env, ...pinned, CFSCALE_API_PORT: '', CFSCALE_PIN_PORTS: '1', CFSCALE_HOME: path.join(tmp, 'never') }, encoding: 'utf8', timeout: 20000 });
  assert.notEqual(r.status, 0);
  assert.match(r.stdout + r.stderr, /CFSCALE_API_PORT not set: under scripts\/test\.sh a platform pins every port/);
});
