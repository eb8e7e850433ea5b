// Unit: the cell (lib/instances.js) with real processes (`sleep`), no cgroups, no router: an
// instance asked to stop twice gets one SIGTERM (one executor line) and one grace period; one
// ensured at an index still stopping waits for it and starts anew; two processes of an app keep
// their own indexes and take router slots of their own; a promoted process is the web one.
'use strict';

const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { Cell } = require('../lib/instances');

function cell() {
  const home = fs.mkdtempSync(path.join(os.tmpdir(), 'cfscale-cell-'));
  const lines = [];
  const app = {
    name: 'sleeper', guid: 'g', path: home, command: 'exec sleep 30', memoryMb: 64, diskMb: 64, env: {}, services: [], routes: [],
    healthCheck: { type: 'process', startTimeoutSec: 5, invocationTimeoutSec: 1, intervalSec: 30 }, version: 'v',
  };
  const c = new Cell({
    cfg: { instancesDir: path.join(home, 'instances'), instancePortBase: 45290, quotaInstances: 8, gracefulShutdownSec: 1 },
    cgroups: { prepare: () => null, enterScript: () => '', pids: () => [], remove: () => {}, oomKills: () => 0 },
    logs: { write: (_app, source, _stream, line) => lines.push(`${source} ${line}`) },
    events: { record: () => {} },
    hooks: { appOf: () => app, services: () => ({}), staged: () => ({}), cpuCores: () => null, cpuShares: () => undefined, onChange: async () => {} },
  });
  return { c, app, lines, done: () => fs.rmSync(home, { recursive: true, force: true }) };
}

const running = async (c, key, n) => {
  for (let i = 0; i < 100; i++) {
    if (c.list(key).filter((x) => x.state === 'RUNNING').length === n) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`not ${n} running`);
};

test('remove twice: one SIGTERM, one executor line; ensure at a stopping index waits, then a new instance', async () => {
  const w = cell();
  const first = await w.c.ensure(w.app, 0);
  await running(w.c, 'sleeper', 1);
  const a = w.c.remove('sleeper', 0);
  const b = w.c.remove('sleeper', 0);
  assert.equal(a, b, 'the same removal');
  const again = w.c.ensure(w.app, 0);
  await Promise.all([a, b]);
  const second = await again;
  assert.notEqual(second, first);
  await running(w.c, 'sleeper', 1);
  assert.equal(w.lines.filter((l) => l.includes(`stopping instance ${first.guid}`)).length, 1);
  await w.c.removeApp('sleeper');
  w.done();
});

test('two processes of an app: their own indexes, slots of their own; promote makes the new one the web process', async () => {
  const w = cell();
  await w.c.ensure(w.app, 0);
  await w.c.ensure(w.app, 1);
  await w.c.ensure(w.app, 0, 'sleeper@new');
  await running(w.c, 'sleeper', 2);
  await running(w.c, 'sleeper@new', 1);
  assert.deepEqual(w.c.forApp('sleeper').map((i) => [i.key, i.index, i.slot]), [['sleeper', 0, 0], ['sleeper', 1, 1], ['sleeper@new', 0, 2]]);
  await Promise.all([w.c.remove('sleeper', 0), w.c.remove('sleeper', 1)]);
  w.c.promote('sleeper@new', 'sleeper');
  assert.deepEqual(w.c.list('sleeper').map((i) => [i.key, i.index, i.slot]), [['sleeper', 0, 2]]);
  assert.deepEqual(w.c.list('sleeper@new'), []);
  await w.c.removeApp('sleeper');
  assert.ok(!fs.existsSync(path.join(w.app.path, 'instances', 'sleeper', `${'new'}-0`)), "a deployment's instance disk goes with it");
  w.done();
});
