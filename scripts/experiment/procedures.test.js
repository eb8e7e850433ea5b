// The adaptive procedures driven by model systems with known behaviour: scale-until-SLO
// (study §7.3) and the capacity bisection.
'use strict';
const assert = require('node:assert/strict');
const { test } = require('node:test');
const { parseLabel } = require('../../plans/order.js');
const { validatePlan } = require('../../plans/plan.js');
const { capacitySearch, climbing, scaleUntilSlo } = require('./procedures.js');

const cfg = { app: 'node-app', variant: 'default', settings: {} };

/** Drive a generator with model(spec) → metrics; returns {result, specs}. */
function drive(gen, model) {
  const specs = [];
  let cur = gen.next();
  while (!cur.done) {
    specs.push(...cur.value);
    cur = gen.next(cur.value.map(model));
  }
  return { result: cur.value, specs };
}

// A system where each instance serves `perInstance` req/s; latency explodes past capacity.
function model({ perInstance = 100, routerCap = Infinity, cpuPerRps = 0.01 } = {}) {
  return (spec) => {
    const offered = spec.loadgens * spec.parallel * 20; // 20 req/s per single-request loadgen
    const cap = Math.min(spec.instances * perInstance, routerCap);
    const tput = Math.min(offered, cap);
    const util = offered / cap;
    const lat = util < 0.8 ? 5 : 5 + 100 * (util - 0.8);
    return { throughputRps: tput, errorRate: 0, meanMs: lat, p50Ms: lat, p95Ms: lat * 1.5, p99Ms: lat * 2, cpuCores: tput * cpuPerRps, lateFraction: 0 };
  };
}

const scalePlan = (scale, slo = { metric: 'mean', threshold: '20ms' }) =>
  validatePlan({ name: 's', kind: 'scale-until-slo', apps: ['node-app'], repetitions: 2, slo, scale }, 's.yml');

test('climbing: rising at every step by the given factor', () => {
  assert.equal(climbing([5, 6, 9], 3, 0.5), true);
  assert.equal(climbing([5, 6, 7], 3, 0.5), false, 'rises, but less than 50 %');
  assert.equal(climbing([5, 9, 8, 12], 3, 0.2), false, 'not monotonic in the window');
  assert.equal(climbing([5, 9], 3, 0.1), false, 'too few steps');
});

test('scale-until-SLO adds loadgens in steps and one instance when the SLO is passed', () => {
  const plan = scalePlan({ loadgensStart: 4, loadgensStep: 4, loadgensMax: 40, maxInstances: 3, trendSteps: 3, trendRise: 10 });
  const { result, specs } = drive(scaleUntilSlo(plan, cfg), model());
  const steps = specs.filter((s) => s.label.endsWith(':rep1')).map((s) => `${s.instances}/${s.loadgens}`);
  // 1 instance serves 100 req/s = 5 loadgens; 20 ms passes at util 0.95 → 8 loadgens (util 1.6)
  assert.deepEqual(steps.slice(0, 3), ['1/4', '1/8', '2/8']);
  assert.ok(specs.every((s) => s.parallel === 1));
  assert.equal(specs.length, steps.length * 2, 'every step runs the plan repetitions');
  assert.equal(result.instances, 3);
  assert.match(result.reason, /maxInstances 3/);
  for (const s of specs) assert.equal(parseLabel(s.label).experiment, 's');
});

test('scale-until-SLO stops at loadgensMax when the app keeps up', () => {
  const plan = scalePlan({ loadgensStart: 4, loadgensStep: 4, loadgensMax: 12 });
  const { result, specs } = drive(scaleUntilSlo(plan, cfg), model({ perInstance: 10_000 }));
  assert.deepEqual([...new Set(specs.map((s) => s.loadgens))], [4, 8, 12]);
  assert.match(result.reason, /loadgensMax 12/);
});

test('scale-until-SLO stops on router saturation: one more instance gave no throughput', () => {
  const plan = scalePlan({ loadgensStart: 4, loadgensStep: 4, loadgensMax: 96, maxInstances: 5 });
  const { result } = drive(scaleUntilSlo(plan, cfg), model({ perInstance: 100, routerCap: 150 }));
  // 1 instance: 100 req/s; 2: 150 (the router's cap); the third adds nothing.
  assert.match(result.reason, /router saturation: 3 instances gave no more throughput than 2/);
  assert.equal(result.instances, 3);
});

test('scale-until-SLO stops when CPU reaches the reference', () => {
  const plan = scalePlan({ loadgensStart: 4, loadgensStep: 4, loadgensMax: 96, maxInstances: 9, cpuReference: 2.5 });
  const { result } = drive(scaleUntilSlo(plan, cfg, { cpuReferenceCores: 2.5 }), model({ cpuPerRps: 0.01 }));
  assert.match(result.reason, /reached the reference 2\.50/);
  assert.ok(result.instances >= 3);
});

test('scale-until-SLO stops when the router\'s CPU reaches 70 % of what it has (study §7.3)', () => {
  const plan = scalePlan({ loadgensStart: 4, loadgensStep: 4, loadgensMax: 96, maxInstances: 9 });
  assert.equal(plan.scale.routerLoad, 0.7, 'the study\'s 70 %');
  // The app keeps up (20 req/s per loadgen); the router spends 1 ms of CPU per request:
  // 0.7 cores at 700 req/s = 35 loadgens.
  const routed = (quota) => (spec) => { const m = model({ perInstance: 10_000 })(spec); return { ...m, routerCores: m.throughputRps / 1000, routerQuotaCores: quota }; };
  const noQuota = drive(scaleUntilSlo(plan, cfg), routed(null));
  assert.equal(noQuota.result.stop, 'router-load');
  assert.equal(noQuota.result.loadgens, 36, 'first step at or past 700 req/s: 36 loadgens, 720 req/s');
  assert.equal(noQuota.result.reason, 'router CPU 0.72 cores reached 70 % of its 1.00 (72 %)');
  // A quota of 0.5 cores: 70 % is 0.35 cores = 350 req/s, reached at 20 loadgens (400 req/s).
  const quoted = drive(scaleUntilSlo(plan, cfg), routed(0.5));
  assert.equal(quoted.result.loadgens, 20);
  assert.equal(quoted.result.reason, 'router CPU 0.40 cores reached 70 % of its 0.50 (80 %)');
  // On CF the router's load is not observable (null): the rule cannot apply, another stop does.
  const cf = drive(scaleUntilSlo(plan, cfg), (spec) => ({ ...model({ perInstance: 10_000 })(spec), routerCores: null, routerQuotaCores: null }));
  assert.equal(cf.result.stop, 'loadgens-max');
  // routerLoad: none turns the rule off.
  const off = scalePlan({ loadgensStart: 4, loadgensStep: 4, loadgensMax: 96, maxInstances: 9, routerLoad: 'none' });
  assert.equal(drive(scaleUntilSlo(off, cfg), routed(null)).result.stop, 'loadgens-max');
});

test('scale-until-SLO scales on a clearly climbing trend below the SLO', () => {
  const plan = scalePlan({ loadgensStart: 1, loadgensStep: 1, loadgensMax: 6, maxInstances: 2, trendSteps: 3, trendRise: 0.5 }, { metric: 'mean', threshold: '1s' });
  const lat = { 1: 5, 2: 6, 3: 9 };
  const { specs } = drive(scaleUntilSlo(plan, cfg), (s) => ({ throughputRps: 10, errorRate: 0, meanMs: s.instances === 1 ? lat[s.loadgens] ?? 50 : 5, p95Ms: 1, p99Ms: 1, cpuCores: null }));
  const steps = [...new Set(specs.map((s) => `${s.instances}/${s.loadgens}`))];
  assert.deepEqual(steps.slice(0, 4), ['1/1', '1/2', '1/3', '2/3']);
});

test('capacity search finds the highest passing rate by bisection and soaks it', () => {
  const plan = validatePlan({ name: 'c', kind: 'capacity', apps: ['node-app'], slo: { threshold: '50ms' },
    capacity: { loadgens: 4, rateMin: 10, rateMax: 2000, tolerance: 0.02, maxProbes: 20, probeDuration: '5s', soakDuration: '30s' } }, 'c.yml');
  const truth = 730; // total req/s the model sustains with p99 under 50 ms
  const m = (s) => {
    const total = s.rate * s.loadgens;
    const p99 = total <= truth ? 20 : 200;
    return { throughputRps: total, errorRate: 0, p99Ms: p99, p95Ms: p99, meanMs: 10, p50Ms: 10, lateFraction: 0, cpuCores: 1 };
  };
  const { result, specs } = drive(capacitySearch(plan, { app: 'node-app', variant: 'default', settings: {} }, 2), m);
  assert.ok(result.capacityRps <= truth && result.capacityRps >= truth * 0.97, `capacity ${result.capacityRps}`);
  assert.equal(result.confirmed, true);
  const probes = specs.filter((s) => /:probe\d+$/.test(s.label));
  assert.equal(probes[0].rate * 4, 2000, 'first probe at rateMax');
  assert.ok(probes.every((s) => s.durationMs === 5000 && s.instances === 2));
  const soak = specs.at(-1);
  assert.match(soak.label, /:soak1$/);
  assert.equal(soak.durationMs, 30_000);
  assert.equal(soak.rate * 4, result.capacityRps);
});

test('capacity search reports none when even the lowest rates fail, and an unconfirmed soak', () => {
  const plan = validatePlan({ name: 'c', kind: 'capacity', apps: ['node-app'], capacity: { rateMin: 10, rateMax: 100, maxProbes: 10 } }, 'c.yml');
  const fail = () => ({ throughputRps: 1, errorRate: 0.5, p99Ms: 999, lateFraction: 0 });
  assert.equal(drive(capacitySearch(plan, cfg, 1), fail).result.capacityRps, null);
  let n = 0;
  const soakFails = (s) => (/soak/.test(s.label) ? fail() : { throughputRps: 1, errorRate: 0, p99Ms: 1, lateFraction: 0, n: n++ });
  const r = drive(capacitySearch(plan, cfg, 1), soakFails).result;
  assert.equal(r.capacityRps, 100);
  assert.equal(r.confirmed, false);
});
