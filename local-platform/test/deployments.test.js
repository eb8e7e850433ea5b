// Unit: CC's rolling deployment as the local updater runs it (lib/deployments.js) — the
// scale step of each tick (table), and whole deployments (create, ticks, finalize, cancel)
// on a cell whose instances start when the test says so. No platform, no processes.
'use strict';

const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { Deployments, scaleStep, instanceCounts } = require('../lib/deployments');
const { RouterSync } = require('../lib/router-sync');

// Each row: the counts of one tick → CC's answer (up_scaler.rb, down_scaler.rb, scale.rb).
const STEPS = [
  { name: 'first tick: the new instance routable, one old goes, one more new',
    c: { target: 4, maxInFlight: 1, oldInstances: 4, newInstances: 1, starting: 0, routable: 1, unhealthy: 0 },
    want: { oldInstances: 3, newInstances: 2, finished: false } },
  { name: 'the new instance still starting: nothing (no down-scale before it is routable)',
    c: { target: 4, maxInFlight: 1, oldInstances: 4, newInstances: 1, starting: 1, routable: 0, unhealthy: 0 },
    want: null },
  { name: 'an unhealthy new instance: old ones still go as far as routable ones replace them, no new',
    c: { target: 4, maxInFlight: 2, oldInstances: 4, newInstances: 3, starting: 0, routable: 2, unhealthy: 1 },
    want: { oldInstances: 2, newInstances: 3, finished: false } },
  { name: 'max_in_flight 2: two more at a time',
    c: { target: 4, maxInFlight: 2, oldInstances: 4, newInstances: 2, starting: 0, routable: 2, unhealthy: 0 },
    want: { oldInstances: 2, newInstances: 4, finished: false } },
  { name: 'all new routable: the old go and it is finished',
    c: { target: 2, maxInFlight: 1, oldInstances: 1, newInstances: 2, starting: 0, routable: 2, unhealthy: 0 },
    want: { oldInstances: 0, newInstances: 2, finished: true } },
  { name: 'more new than the router has: no up-scale until it catches up',
    c: { target: 6, maxInFlight: 1, oldInstances: 3, newInstances: 4, starting: 0, routable: 2, unhealthy: 0 },
    want: null },
];

for (const row of STEPS) {
  test(`scaleStep: ${row.name}`, () => assert.deepEqual(scaleStep(row.c), row.want));
}

test('instanceCounts: starting, routable (running and ready), unhealthy; a missing index is starting', () => {
  const insts = [{ index: 0, state: 'RUNNING' }, { index: 1, state: 'RUNNING', ready: false }, { index: 2, state: 'CRASHED' }, { index: 3, state: 'STARTING' }];
  assert.deepEqual(instanceCounts(insts, 5), { starting: 3, routable: 1, unhealthy: 1 });
});

// A cell as instances.js keeps it, whose instances start when the test calls up().
class FakeCell {
  constructor() { this.byKey = new Map(); this.slots = 0; }
  list(key) { return [...(this.byKey.get(key) || new Map()).values()].sort((a, b) => a.index - b.index); }
  forApp(name) { return [...this.byKey.values()].flatMap((m) => [...m.values()]).filter((i) => i.app === name); }
  async ensure(record, index, key = record.name) {
    const m = this.byKey.get(key) || new Map();
    this.byKey.set(key, m);
    if (!m.has(index)) m.set(index, { app: record.name, key, index, slot: this.slots++, state: 'STARTING', droplet: record.path, desired: true });
    return m.get(index);
  }
  async remove(key, index) { this.byKey.get(key)?.delete(index); }
  async removeApp(key) { this.byKey.delete(key); }
  promote(from, to) {
    const m = this.byKey.get(to) || new Map();
    for (const i of this.byKey.get(from)?.values() || []) { i.key = to; m.set(i.index, i); }
    this.byKey.set(to, m);
    this.byKey.delete(from);
  }
  up() { for (const m of this.byKey.values()) for (const i of m.values()) i.state = 'RUNNING'; }
}

function world(instances) {
  const home = fs.mkdtempSync(path.join(os.tmpdir(), 'cfscale-deployments-'));
  const app = { name: 'web', guid: 'app-guid', state: 'STARTED', instances, memoryMb: 64, diskMb: 64, createdAt: new Date().toISOString(),
    buildpack: 'nodejs_buildpack', command: 'exec node server.js', path: '/droplets/old', dropletGuid: 'old-droplet' };
  const platform = {
    cfg: { home }, state: { apps: { web: app }, deployments: {} }, cell: new FakeCell(), staged: new Map(), held: new Map(),
    log: () => {}, logs: { write: () => {} }, events: { app: () => {} }, routes: { sync: async () => {} },
    save: () => {}, quotaErrors: () => [], exclusive: (fn) => fn(), appByGuid: (g) => (g === app.guid ? app : null),
  };
  platform.deployments = new Deployments(platform);
  return { app, platform, d: platform.deployments, cell: platform.cell, done: () => fs.rmSync(home, { recursive: true, force: true }) };
}

const NEW = { guid: 'new-droplet', path: '/droplets/new', buildpack: 'nodejs_buildpack' };

test('a rolling deployment of 3 instances, max_in_flight 1: new ones up one at a time, old ones down as they come, then the new process is the web process', async () => {
  const w = world(3);
  for (let i = 0; i < 3; i++) await w.cell.ensure(w.app, i);
  w.cell.up();
  const dep = await w.d.create(w.app, { droplet: NEW, maxInFlight: 1 });
  assert.equal(w.app.dropletGuid, 'new-droplet', 'the app has the new droplet at once');
  const key = w.d.processes(w.app)[1].key;
  const counts = () => [w.cell.list('web').length, w.cell.list(key).length];
  assert.deepEqual(counts(), [3, 1]);
  assert.equal(w.d.record('web').path, '/droplets/old', 'the old process keeps its droplet');
  assert.equal(w.d.record(key).path, '/droplets/new');
  await w.d.tick();
  assert.deepEqual(counts(), [3, 1], 'nothing while the new instance starts');
  const seen = [];
  for (let t = 0; t < 6 && dep.state === 'DEPLOYING'; t++) {
    w.cell.up();
    await w.d.tick();
    seen.push(dep.state === 'DEPLOYING' ? counts() : 'done');
  }
  assert.deepEqual(seen, [[2, 2], [1, 3], 'done']);
  assert.deepEqual([dep.state, dep.statusValue, dep.statusReason], ['DEPLOYED', 'FINALIZED', 'DEPLOYED']);
  assert.deepEqual(w.cell.list('web').map((i) => [i.index, i.droplet]), [[0, '/droplets/new'], [1, '/droplets/new'], [2, '/droplets/new']]);
  assert.equal(w.app.instances, 3);
  assert.equal(w.d.processes(w.app).length, 1);
  assert.equal(w.d.byGuid(dep.processGuid).proc.original, true, "the finalized process's guid finds the web process");
  w.done();
});

test('cancel: the previous droplet back on the app, the new process gone, the old one at its count again', async () => {
  const w = world(2);
  for (let i = 0; i < 2; i++) await w.cell.ensure(w.app, i);
  w.cell.up();
  const dep = await w.d.create(w.app, { droplet: NEW, maxInFlight: 1 });
  w.cell.up();
  await w.d.tick();
  assert.equal(w.app.instances, 1, 'one old instance went');
  w.d.cancel(dep);
  assert.equal(w.app.dropletGuid, 'old-droplet');
  assert.deepEqual([dep.state, dep.statusValue, dep.statusReason], ['CANCELING', 'ACTIVE', 'CANCELING']);
  await w.d.tick();
  assert.deepEqual([dep.state, dep.statusValue, dep.statusReason], ['CANCELED', 'FINALIZED', 'CANCELED']);
  assert.deepEqual(w.cell.forApp('web').map((i) => [i.key, i.index]).sort(), [['web', 0], ['web', 1]]);
  assert.throws(() => w.d.cancel(dep), /Cannot cancel a deployment with status: FINALIZED and reason: CANCELED/);
  w.done();
});

test('a second deployment supersedes the first; a stopped app just starts with the droplet', async () => {
  const w = world(2);
  for (let i = 0; i < 2; i++) await w.cell.ensure(w.app, i);
  const first = await w.d.create(w.app, { droplet: NEW, maxInFlight: 1 });
  const second = await w.d.create(w.app, { droplet: { ...NEW, guid: 'newer' }, maxInFlight: 1 });
  assert.deepEqual([first.state, first.statusReason, second.state], ['DEPLOYED', 'SUPERSEDED', 'DEPLOYING']);
  assert.equal(second.originalInstances, 2);
  w.done();
  const s = world(2);
  s.app.state = 'STOPPED';
  let started = null;
  s.platform.start = async ({ appName }) => { started = appName; };
  const dep = await s.d.create(s.app, { droplet: NEW, maxInFlight: 1 });
  assert.deepEqual([dep.state, dep.statusReason, started], ['DEPLOYED', 'DEPLOYED', 'web']);
  s.done();
});

test('router: both processes of a deploying app in its one backend, each instance in its slot; the pin is the web process\'s', () => {
  const app = { name: 'web', guid: 'g', routes: ['web.localhost'], routeOptions: {}, instances: 2 };
  const insts = [
    { app: 'web', key: 'web', index: 0, slot: 0, port: 5000, state: 'RUNNING' },
    { app: 'web', key: 'web@1', index: 0, slot: 1, port: 5001, state: 'RUNNING' },
    { app: 'web', key: 'web@1', index: 1, slot: 2, port: 5002, state: 'STARTING' },
  ];
  const sync = new RouterSync({ router: {}, log: () => {}, apps: () => [app], instances: () => insts });
  const [m] = sync.model().apps;
  assert.deepEqual(m.instances, { 0: { port: 5000, ready: true }, 1: { port: 5001, ready: true }, 2: { port: 5002, ready: false } });
  assert.deepEqual(m.pins, { 0: { port: 5000, ready: true }, 1: { port: 5002, ready: false } });
  assert.equal(sync.target({ b: 'app_web', s: 's2' }).index, 1, 'the access log names the index, not the slot');
  assert.equal(sync.target({ b: 'pin_web_0', s: 's0' }).instance.key, 'web');
});
