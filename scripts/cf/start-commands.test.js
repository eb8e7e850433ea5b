'use strict';
// The manifests' `command:` lines, run as CF runs them (`bash -c COMMAND` in the app dir,
// docs/cf-platform.md §3): node is the process CF signals, SIGTERM drains node-app (an
// in-flight request completes, exit 0, one process or the WEB_CONCURRENCY cluster) and
// stops the loadgen with exit 0; under the buildpack's default `npm start` npm stays
// resident as node's parent (§4), which the diagnostics measure.
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const net = require('node:net');
const path = require('node:path');
const { spawn } = require('node:child_process');
const YAML = require('yaml');
const { testDatabases } = require('../../lib/test-db');
const { portRange, randomFreePort } = require('../../lib/ports');
const { until: pollUntil } = require('../../lib/until');
const testDbs = testDatabases(require('pg'), 'cf');
const freePort = () => randomFreePort(...portRange('cf'));

const ROOT = path.resolve(__dirname, '..', '..');
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const until = (what, fn) => pollUntil(what, fn, { intervalMs: 50 });

function manifestApp(name) {
  return YAML.parse(fs.readFileSync(path.join(ROOT, 'manifests', `${name}.yml`), 'utf8')).applications[0];
}

let testDb;
test.before(async () => { testDb = await testDbs.open('cfscale_start_commands'); });
test.after(async () => { if (testDb) await testDb.close(); });

/** `bash -c COMMAND` in dir, as the launcher runs it: { proc, exited: Promise<code>, output() }. */
function launch(dir, command, env) {
  const proc = spawn('bash', ['-c', command], { cwd: dir, env: { PATH: process.env.PATH, HOME: process.env.HOME, ...env } });
  let out = '';
  proc.stdout.on('data', (d) => { out += d; });
  proc.stderr.on('data', (d) => { out += d; });
  const exited = new Promise((resolve) => proc.on('exit', (code, signal) => resolve(code ?? signal)));
  return { proc, exited, output: () => out };
}

const connects = (port) => new Promise((resolve) => {
  const s = net.connect(port, '127.0.0.1', () => { s.destroy(); resolve(true); });
  s.on('error', () => resolve(false));
});

/** pid and its descendants: [{ pid, comm, cmdline, rssKb }]. */
function processTree(rootPid) {
  const all = fs.readdirSync('/proc').filter((d) => /^\d+$/.test(d)).map((d) => {
    try {
      const stat = fs.readFileSync(`/proc/${d}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      const status = fs.readFileSync(`/proc/${d}/status`, 'utf8');
      return { pid: Number(d), ppid, comm: fs.readFileSync(`/proc/${d}/comm`, 'utf8').trim(),
        cmdline: fs.readFileSync(`/proc/${d}/cmdline`, 'utf8').split('\0').join(' ').trim(),
        rssKb: Number((/^VmRSS:\s+(\d+)/m.exec(status) || [0, 0])[1]) };
    } catch { return null; }
  }).filter(Boolean);
  const tree = [];
  const walk = (pid) => { for (const p of all.filter((x) => x.pid === pid)) tree.push(p); for (const c of all.filter((x) => x.ppid === pid)) walk(c.pid); };
  walk(rootPid);
  return tree;
}

/** True once the server side of the connection from clientPort to port has read all it got. */
function serverRead(port, clientPort) {
  const hex = (p) => p.toString(16).toUpperCase().padStart(4, '0');
  for (const f of ['/proc/net/tcp', '/proc/net/tcp6']) {
    for (const line of fs.readFileSync(f, 'utf8').split('\n').slice(1)) {
      const [, local, remote, , queues] = line.trim().split(/\s+/);
      if (local && local.endsWith(`:${hex(port)}`) && remote.endsWith(`:${hex(clientPort)}`)) {
        return Number.parseInt(queues.split(':')[1], 16) === 0;
      }
    }
  }
  return false;
}

function nodeAppEnv(port, extra) {
  return { PORT: String(port), DATABASE_URL: testDb.url, NODE_ENV: 'production', CONTROL_TOKEN: 'start-commands-control-token-0123456789', ...extra };
}

test('manifest commands start node directly, the same script npm start runs', () => {
  for (const name of ['node-app', 'loadgen']) {
    const { command } = manifestApp(name);
    const pkg = JSON.parse(fs.readFileSync(path.join(ROOT, name, 'package.json'), 'utf8'));
    assert.match(String(command), /^exec node [\w/.-]+\.js$/, `${name}: exec node, not npm (§3, §4)`);
    assert.equal(command, pkg.scripts.start, `${name}: command and npm start run the same file`);
  }
});

for (const webConcurrency of ['1', '2']) {
  test(`node-app started the manifest's way (WEB_CONCURRENCY=${webConcurrency}): SIGTERM reaches node, the in-flight request completes, exit 0`, async () => {
    const port = await freePort();
    const app = launch(path.join(ROOT, 'node-app'), manifestApp('node-app').command, nodeAppEnv(port, { WEB_CONCURRENCY: webConcurrency }));
    try {
      await until('node-app listening', () => connects(port));
      const tree = processTree(app.proc.pid);
      assert.equal(tree[0].comm, 'node', 'bash exec\'d node: the process CF signals is node');
      assert.ok(!tree.some((p) => /\bnpm\b/.test(p.cmdline)), 'no npm');
      assert.equal(tree.length, Number(webConcurrency) === 1 ? 1 : 1 + Number(webConcurrency));

      const body = 'title=in-flight';
      const socket = net.connect(port, '127.0.0.1');
      await new Promise((resolve) => socket.on('connect', resolve));
      let answer = '';
      socket.on('data', (d) => { answer += d; });
      const closed = new Promise((resolve) => socket.on('close', resolve));
      socket.write('POST /ads HTTP/1.1\r\nHost: x\r\nContent-Type: application/x-www-form-urlencoded\r\n'
        + `Content-Length: ${body.length}\r\n\r\n${body.slice(0, 5)}`);
      await until('the app read the request', () => serverRead(port, socket.localPort));
      app.proc.kill('SIGTERM');
      await sleep(200);
      socket.write(body.slice(5));
      await closed;
      assert.match(answer, /^HTTP\/1\.1 201 Created\r\n/, app.output());
      assert.equal(await app.exited, 0, app.output());
    } finally {
      app.proc.kill('SIGKILL');
    }
  });
}

test('the loadgen started the manifest\'s way: SIGTERM reaches node, exit 0', async () => {
  const lg = launch(path.join(ROOT, 'loadgen'), manifestApp('loadgen').command, { RESULTS_DATABASE_URL: testDb.url, CF_INSTANCE_INDEX: '0' });
  try {
    await until('the worker waiting for rounds', () => /loadgen\[0\]: /.test(lg.output()));
    const tree = processTree(lg.proc.pid);
    assert.deepEqual(tree.map((p) => p.comm), ['node'], 'one process, node itself');
    lg.proc.kill('SIGTERM');
    assert.equal(await lg.exited, 0, lg.output());
    assert.match(lg.output(), /stopping: SIGTERM/);
  } finally {
    lg.proc.kill('SIGKILL');
  }
});

test('under `npm start` (no command) npm stays resident as node\'s parent', async (t) => {
  const port = await freePort();
  const app = launch(path.join(ROOT, 'node-app'), 'npm start', nodeAppEnv(port, { WEB_CONCURRENCY: '1' }));
  try {
    await until('node-app listening', () => connects(port));
    const tree = processTree(app.proc.pid);
    const npm = tree.filter((p) => /\bnpm\b/.test(p.cmdline));
    assert.ok(npm.length >= 1, `npm in the tree: ${tree.map((p) => p.cmdline).join(' | ')}`);
    assert.ok(tree.length >= 2, 'npm and node');
    const rssMb = (ps) => (ps.reduce((s, p) => s + p.rssKb, 0) / 1024).toFixed(1);
    t.diagnostic(`npm start: ${tree.length} processes, ${rssMb(tree)} MB RSS, of which npm ${rssMb(npm)} MB (${tree.map((p) => p.comm).join(' → ')})`);
  } finally {
    for (const p of processTree(app.proc.pid)) { try { process.kill(p.pid, 'SIGKILL'); } catch { /* gone */ } }
  }
});
