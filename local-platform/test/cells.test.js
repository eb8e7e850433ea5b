// cells.test.js — the split of the CPUs into the system under test's cell and the harness's
// (cells.js), the CPU list format (lib/cpu-list.js), and which PostgreSQL backends go to which
// cell (db-backends.js), against a /proc laid out in a temp dir. Where cpuset cgroups are
// writable (root), a real process joins a real cell and runs only on its CPUs.
'use strict';
const test = require('node:test');
const assert = require('node:assert');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { spawn } = require('node:child_process');
const { Cells, splitCpus } = require('../lib/cells');
const { parseCpuList, formatCpuList } = require('../../lib/cpu-list');
const { backends, placeBackends } = require('../lib/db-backends');

test('CPU lists read and written as the kernel writes them', () => {
  assert.deepStrictEqual(parseCpuList('0-2,5'), [0, 1, 2, 5]);
  assert.deepStrictEqual(parseCpuList('3,1,1'), [1, 3]);
  assert.strictEqual(formatCpuList([5, 0, 1, 2]), '0-2,5');
  for (const bad of ['x', '2-1', '1-', '-1', '1;2']) assert.throws(() => parseCpuList(bad), /not a CPU list/, bad);
});

test('the default split gives the upper half of the CPUs to the system under test', () => {
  assert.deepStrictEqual(splitCpus('', [0, 1]), { sut: [1], harness: [0] });
  assert.deepStrictEqual(splitCpus('', [0, 1, 2, 3, 4]), { sut: [3, 4], harness: [0, 1, 2] });
  assert.strictEqual(splitCpus('', [0]), null, 'one CPU: no cells');
  assert.strictEqual(splitCpus('off', [0, 1]), null);
  assert.deepStrictEqual(splitCpus('0', [0, 1, 2]), { sut: [0], harness: [1, 2] });
  assert.throws(() => splitCpus('0-1', [0, 1]), /at least one .* to the harness/);
  assert.throws(() => splitCpus('4', [0, 1]), /CPU 4 not online/);
});

/** A /proc with a postmaster (pid 100) and its children titled as PostgreSQL titles them. */
function fakeProc(children) {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'cfscale-proc-'));
  fs.mkdirSync(path.join(root, '100', 'task', '100'), { recursive: true });
  fs.writeFileSync(path.join(root, '100', 'task', '100', 'children'), `${Object.keys(children).join(' ')} `);
  for (const [pid, title] of Object.entries(children)) {
    fs.mkdirSync(path.join(root, pid));
    fs.writeFileSync(path.join(root, pid, 'cmdline'), `${title}\0`);
  }
  return root;
}

test('app database backends go to the SUT cell, the rest to the harness, each moved once', (t) => {
  const root = fakeProc({
    101: 'postgres: checkpointer', 102: 'postgres: svc_node_db node-db 127.0.0.1(5000) idle',
    103: 'postgres: svc_results results-db 127.0.0.1(5001) COPY', 104: 'postgres: walwriter',
  });
  t.after(() => fs.rmSync(root, { recursive: true, force: true }));
  assert.deepStrictEqual(backends(100, root), [{ pid: 102, database: 'node-db' }, { pid: 103, database: 'results-db' }]);
  const joined = [];
  const cells = { available: true, join: (cell, pid) => { joined.push([cell, pid]); return true; } };
  const placed = new Map();
  assert.strictEqual(placeBackends(cells, 100, new Set(['node-db']), placed, root), 2);
  assert.deepStrictEqual(joined, [['sut', 102], ['harness', 103]]);
  assert.strictEqual(placeBackends(cells, 100, new Set(['node-db']), placed, root), 0, 'already placed: not written again');
  fs.writeFileSync(path.join(root, '100', 'task', '100', 'children'), '103 ');
  placeBackends(cells, 100, new Set(['node-db']), placed, root);
  assert.deepStrictEqual([...placed.keys()], [103], 'a backend that ended is forgotten');
});

const cpusetWritable = (() => { try { fs.accessSync('/sys/fs/cgroup/cpuset/cgroup.procs', fs.constants.W_OK); return true; } catch { return false; } })();

test('a process in a real cell runs only on its CPUs', { skip: !cpusetWritable || os.cpus().length < 2 ? 'no writable cpuset cgroups or one CPU' : false }, async (t) => {
  const cells = new Cells({ root: '/sys/fs/cgroup', group: `cfscale-test-${process.pid}`, split: splitCpus('', [0, 1]), log: () => {} });
  assert.ok(cells.available);
  const child = spawn('sh', ['-c', `${cells.enterScript('sut')} && exec sleep 30`], { stdio: 'ignore' });
  t.after(() => { child.kill('SIGKILL'); });
  let allowed = '';
  for (let i = 0; i < 50 && !/^1$/.test(allowed); i++) {
    await new Promise((r) => setTimeout(r, 50));
    allowed = (/Cpus_allowed_list:\s*(\S+)/.exec(fs.readFileSync(`/proc/${child.pid}/status`, 'utf8')) || [])[1] || '';
  }
  assert.strictEqual(allowed, '1');
  assert.deepStrictEqual(cells.pids('sut'), [child.pid]);
  assert.ok(cells.join('harness', child.pid));
  assert.match(fs.readFileSync(`/proc/${child.pid}/status`, 'utf8'), /Cpus_allowed_list:\s*0\n/);
  child.kill('SIGKILL');
  await new Promise((r) => child.on('exit', r));
  cells.removeAll();
  assert.ok(!fs.existsSync(`/sys/fs/cgroup/cpuset/cfscale-test-${process.pid}`), 'the groups are gone');
});

// The shield takes a group's processes: here a group of the test's own (the machine's root
// cpuset in use), so that the suites beside it keep their CPUs.
test('the shield moves a cpuset\'s processes onto the harness\'s CPUs and back', { skip: !cpusetWritable || os.cpus().length < 2 ? 'no writable cpuset cgroups or one CPU' : false }, async (t) => {
  const from = `/sys/fs/cgroup/cpuset/cfscale-test-from-${process.pid}`;
  fs.mkdirSync(from);
  for (const f of ['cpuset.cpus', 'cpuset.mems']) fs.writeFileSync(path.join(from, f), fs.readFileSync(path.join('/sys/fs/cgroup/cpuset', f)));
  const cells = new Cells({ root: '/sys/fs/cgroup', group: `cfscale-test-shield-${process.pid}`, split: splitCpus('', [0, 1]), log: () => {}, shieldFrom: from });
  const child = spawn('sh', ['-c', `echo $$ > ${from}/cgroup.procs && exec sleep 30`], { stdio: 'ignore' });
  t.after(async () => {
    child.kill('SIGKILL');
    await new Promise((r) => (child.exitCode !== null || child.signalCode !== null ? r() : child.on('exit', r)));
    cells.removeAll();
    fs.rmdirSync(from);
  });
  await new Promise((r) => child.on('spawn', r));
  for (let i = 0; i < 50 && !fs.readFileSync(`${from}/cgroup.procs`, 'utf8').includes(String(child.pid)); i++) await new Promise((r) => setTimeout(r, 20));
  const allowed = () => (/Cpus_allowed_list:\s*(\S+)/.exec(fs.readFileSync(`/proc/${child.pid}/status`, 'utf8')) || [])[1];
  assert.strictEqual(allowed(), '0-1');
  assert.ok(cells.raiseShield() >= 1);
  assert.strictEqual(allowed(), '0', 'off the SUT\'s CPU while the shield is up');
  assert.ok(cells.pids('shield').includes(child.pid));
  assert.ok(cells.lowerShield() >= 1);
  assert.strictEqual(allowed(), '0-1', 'back on every CPU');
  assert.deepStrictEqual(cells.pids('shield'), []);
});
