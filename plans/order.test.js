// Run order of grid plans (interleaved by default) and the labels that name rounds.
'use strict';
const assert = require('node:assert/strict');
const { test } = require('node:test');
const { gridRounds, labelFor, parseLabel } = require('./order.js');
const { validatePlan } = require('./plan.js');

const plan = (extra = {}) => validatePlan({
  name: 'ord', apps: ['node-app', 'java-app'], instances: [1, 2],
  load: [{ loadgens: 1, parallel: 1 }, { loadgens: 2, parallel: 1 }], repetitions: 2, ...extra,
}, 'ord.yml');

const short = (r) => `${r.app[0]}${r.instances}${r.loadgens}.${r.label.slice(-1)}`;

test('interleaved: every point and app of repetition 1 before any of repetition 2, apps alternating', () => {
  const rs = gridRounds(plan());
  assert.equal(rs.length, 16);
  assert.deepEqual(rs.map(short), [
    'n11.1', 'j11.1', 'j12.1', 'n12.1', 'n21.1', 'j21.1', 'j22.1', 'n22.1',
    'j11.2', 'n11.2', 'n12.2', 'j12.2', 'j21.2', 'n21.2', 'n22.2', 'j22.2',
  ]);
  // The compared configurations of a point always run next to each other.
  for (let i = 0; i < rs.length; i += 2) {
    assert.equal(rs[i].instances, rs[i + 1].instances);
    assert.equal(rs[i].loadgens, rs[i + 1].loadgens);
    assert.notEqual(rs[i].app, rs[i + 1].app);
  }
  assert.equal(new Set(rs.map((r) => r.label)).size, rs.length, 'labels are unique');
});

test('sequential: one configuration at a time, repetitions back to back', () => {
  const rs = gridRounds(plan({ order: 'sequential' }));
  assert.deepEqual(rs.slice(0, 4).map(short), ['n11.1', 'n11.2', 'n12.1', 'n12.2']);
  assert.ok(rs.slice(0, 8).every((r) => r.app === 'node-app'));
});

test('random: a reproducible shuffle within each repetition block', () => {
  const a = gridRounds(plan({ order: 'random', seed: 7 })).map(short);
  const b = gridRounds(plan({ order: 'random', seed: 7 })).map(short);
  const c = gridRounds(plan({ order: 'random', seed: 8 })).map(short);
  assert.deepEqual(a, b);
  assert.notDeepEqual(a, c);
  assert.ok(a.slice(0, 8).every((s) => s.endsWith('.1')), 'repetition 1 block first');
  assert.deepEqual([...a].sort(), gridRounds(plan()).map(short).sort(), 'same rounds as interleaved');
});

test('variants multiply the configurations and carry their settings', () => {
  const rs = gridRounds(plan({
    apps: ['node-app'], instances: [1], load: [{ loadgens: 1, parallel: 4 }], repetitions: 1,
    settings: { TIMINGS_ENABLED: 'true' },
    variants: [{ name: 'pool30', settings: { DB_POOL_SIZE: 30 } }, { name: 'pool60', settings: { DB_POOL_SIZE: 60 } }],
  }));
  assert.deepEqual(rs.map((r) => r.variant), ['pool30', 'pool60']);
  assert.deepEqual(rs[1].settings, { TIMINGS_ENABLED: 'true', DB_POOL_SIZE: '60' });
  assert.equal(rs[0].label, 'exp:ord:node-app:pool30:i1:l1:p4:rep1');
});

test('labels round-trip through parseLabel', () => {
  const p = plan();
  const cases = [
    [{ app: 'java-app', variant: 'pool90' }, 3, { loadgens: 12, parallel: 1 }, 'rep2'],
    [{ app: 'node-app', variant: 'default' }, 1, { loadgens: 4, rate: 62.5 }, 'probe3'],
    [{ app: 'node-app', variant: 'default' }, 2, { loadgens: 4, rate: 100 }, 'soak1'],
  ];
  for (const [cfg, k, step, suffix] of cases) {
    const l = parseLabel(labelFor(p, cfg, k, step, suffix));
    assert.equal(l.experiment, 'ord');
    assert.equal(l.app, cfg.app);
    assert.equal(l.variant, cfg.variant);
    assert.equal(l.instances, k);
    assert.equal(l.loadgens, step.loadgens);
    assert.equal(l.parallel, step.parallel ?? null);
    assert.equal(l.rate, step.rate ?? null);
    assert.equal(`${l.kind}${l.rep}`, suffix);
  }
  assert.equal(parseLabel('smoke test'), null);
  assert.equal(parseLabel(null), null);
});

test('loadgensPer instance: k instances get k times the loadgens, in the spec and its label', () => {
  const rs = gridRounds(plan({ apps: ['node-app'], loadgensPer: 'instance', instances: [1, 3], load: [{ loadgens: 2, parallel: 8 }] }));
  assert.deepEqual(rs.map((r) => [r.instances, r.loadgens]), [[1, 2], [3, 6], [1, 2], [3, 6]]);
  assert.match(rs[1].label, /:i3:l6:p8:rep1$/);
});

test('loadgensPer proxy: as many loadgens as front proxies (at least the step\'s), none without proxies', () => {
  const rs = gridRounds(plan({
    apps: ['node-app'], instances: [1], loadgensPer: 'proxy', load: [{ loadgens: 1, parallel: 4 }], repetitions: 1,
    variants: [{ name: 'p0' }, { name: 'p1', frontProxies: 1 }, { name: 'p4', frontProxies: 4 }],
  }));
  assert.deepEqual(rs.map((r) => [r.variant, r.loadgens]), [['p0', 1], ['p1', 1], ['p4', 4]]);
});

test('random order: randomised complete blocks, each repetition runs every configuration and point once', () => {
  const rs = gridRounds(plan({ order: 'random', repetitions: 3, seed: 7 }));
  for (let rep = 1; rep <= 3; rep++) {
    const block = rs.filter((r) => r.label.endsWith(`rep${rep}`)).map((r) => `${r.app}:${r.instances}:${r.loadgens}`);
    assert.equal(block.length, 8);
    assert.equal(new Set(block).size, 8, `repetition ${rep} is a complete block`);
  }
  assert.deepEqual(gridRounds(plan({ order: 'random', repetitions: 3, seed: 7 })).map((r) => r.label), rs.map((r) => r.label), 'the seed fixes the order');
});

test('restart: round reaches every round spec (the runner restarts the app before each)', () => {
  assert.ok(gridRounds(plan({ restart: 'round' })).every((r) => r.restart === 'round'));
  assert.ok(gridRounds(plan()).every((r) => r.restart === 'change'));
  assert.throws(() => plan({ restart: 'always' }), /restart must be one of change, round/);
});
