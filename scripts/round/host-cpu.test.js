'use strict';
// host-cpu.test.js — the parts of the host's CPU: which instance cgroup is which part, the
// means between two snapshots, and a real snapshot that finds this process's own work (a
// child burning CPU) under run-round's control.
const test = require('node:test');
const assert = require('node:assert/strict');
const { spawn } = require('node:child_process');
const { cgroupPart, hostCpuCores, hostCpuLine, readHostCpu, PARTS } = require('./host-cpu');

test('instance cgroups: the app, the loadgens, the router, other apps', () => {
  assert.deepEqual(['node-app-0', 'node-app-12', 'loadgen-3', '_router', 'java-app-0', 'node-app-x'].map((d) => cgroupPart(d, 'node-app')),
    ['app', 'app', 'loadgens', 'router', 'other_instances', 'other_instances']);
});

test('cores per part between two snapshots; the system under test and the harness summed', () => {
  const zero = Object.fromEntries(PARTS.map((p) => [p, 0]));
  const a = { atNs: 0n, busyTicks: 1000, ns: { ...zero } };
  const b = { atNs: 2_000_000_000n, busyTicks: 1300, ns: { ...zero, app: 0.6e9, app_db: 0.2e9, loadgens: 0.3e9, results_db: 0.1e9, router: 0.2e9, other: 0.1e9 } };
  const h = hostCpuCores(a, b);
  assert.deepEqual([h.span_s, h.busy_cores, h.sut_cores, h.harness_cores, h.rest_cores, h.parts.app, h.parts.other], [2, 1.5, 0.4, 0.3, 0.75, 0.3, 0.05]);
  assert.match(hostCpuLine(h), /^host CPU over the round: 1\.50 cores busy; system under test 0\.40 \(app 0\.30, its database 0\.10\), harness 0\.30 \(loadgens 0\.15, results database 0\.05, router 0\.10,/);
  assert.equal(hostCpuCores(a, null), null);
  assert.equal(hostCpuCores(b, b), null, 'no time between them');
});

test('a real snapshot: a busy child of this process is counted as control (run-round and what it started)', async () => {
  const where = { group: 'cfscale-no-such-group', app: 'node-app' };
  const a = readHostCpu(where);
  const child = spawn(process.execPath, ['-e', 'const t = Date.now() + 5000; while (Date.now() < t);']);
  try {
    await new Promise((r) => setTimeout(r, 1000));
    const b = readHostCpu(where);
    // Its time (however loaded the machine) is the control's: the snapshot holds it there.
    const childNs = b.byPid.get(child.pid);
    assert.ok(childNs > 0, `child ${child.pid} not seen`);
    assert.ok(b.ns.control - a.ns.control >= childNs - (a.byPid.get(child.pid) ?? 0), JSON.stringify(b.ns));
    assert.ok(b.busyTicks > a.busyTicks);
  } finally {
    child.kill();
  }
});
