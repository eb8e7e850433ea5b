// order.js — turn a grid plan into the ordered list of rounds to run, each with a stable
// label that names it in `rounds.label` (how a resumed run finds finished rounds):
//   exp:<plan>:<app>:<variant>:i<instances>:l<loadgens>:p<parallel>|r<rate>:rep<r>
// Order "interleaved" (the default) runs repetition 1 of every point and every compared
// configuration before repetition 2, and alternates the compared configurations (apps,
// variants) at every point, so drift over time hits all of them alike (talk 004:
// "interleave comparison runs"; change one thing between compared runs).
'use strict';
const { seededRandom } = require('../lib/seeded-random.js');

/** The configurations compared in a plan: every app × every variant that applies to it. */
function configurations(plan) {
  const out = [];
  for (const app of plan.apps) {
    for (const v of plan.variants) {
      if (v.apps && !v.apps.includes(app)) continue;
      out.push({
        app, variant: v.name, settings: { ...plan.settings, ...v.settings }, memoryMb: v.memoryMb ?? null,
        keepalive: v.keepalive ?? plan.keepalive ?? true, frontProxies: v.frontProxies ?? plan.frontProxies ?? 0,
        events: v.events ?? [],
      });
    }
  }
  return out;
}

function loadKey(step) {
  return step.rate !== undefined && step.rate !== null ? `r${step.rate}` : `p${step.parallel}`;
}

/** The step key (label without the `exp:` prefix and repetition suffix). */
function stepKey(plan, cfg, instances, step) {
  return `${plan.name}:${cfg.app}:${cfg.variant}:i${instances}:l${step.loadgens}:${loadKey(step)}`;
}

function labelFor(plan, cfg, instances, step, suffix) {
  return `exp:${stepKey(plan, cfg, instances, step)}:${suffix}`;
}

/** Parse a label made by labelFor; null when it is not an experiment label. */
function parseLabel(label) {
  const m = /^exp:([^:]+):([^:]+):([^:]+):i(\d+):l(\d+):(p|r)([0-9.]+):([a-z]+)(\d*)$/.exec(label || '');
  if (!m) return null;
  return {
    experiment: m[1], app: m[2], variant: m[3], instances: Number(m[4]), loadgens: Number(m[5]),
    parallel: m[6] === 'p' ? Number(m[7]) : null, rate: m[6] === 'r' ? Number(m[7]) : null,
    kind: m[8], rep: m[9] === '' ? null : Number(m[9]),
  };
}

/** One round description, everything run-round.sh needs. */
function roundSpec(plan, cfg, instances, step, suffix, overrides = {}) {
  return {
    label: labelFor(plan, cfg, instances, step, suffix),
    experiment: plan.name,
    platform: plan.platform,
    app: cfg.app,
    variant: cfg.variant,
    settings: cfg.settings,
    memoryMb: cfg.memoryMb ?? null,
    instances,
    loadgens: step.loadgens,
    parallel: step.parallel ?? null,
    rate: step.rate ?? null,
    durationMs: plan.durationMs,
    requests: plan.requests,
    warmupMs: plan.warmupMs, // null: run-round's steady-state gate (plan `warmup: steady`)
    steady: plan.steady ?? null,
    afterChange: plan.afterChange ?? 'rerun',
    restart: plan.restart ?? 'change',
    prewarm: plan.prewarm ?? 0,
    loadbalancing: plan.loadbalancing ?? null,
    timeoutMs: plan.timeoutMs,
    keepalive: cfg.keepalive ?? true,
    frontProxies: cfg.frontProxies ?? 0,
    events: cfg.events ?? [],
    scenario: plan.scenario,
    cpu: plan.cpu,
    maxErrorRate: plan.slo.maxErrorRate,
    ...overrides,
  };
}

/** Round spec overrides of a capacity round kind (probe, soak): its own duration. */
function capacityOverrides(plan, kind) {
  if (kind === 'probe') return { durationMs: plan.capacity.probeDurationMs, requests: null };
  if (kind === 'soak') return { durationMs: plan.capacity.soakDurationMs, requests: null };
  return {};
}

function shuffle(xs, rand) {
  const a = xs.slice();
  for (let i = a.length - 1; i > 0; i--) {
    const j = Math.floor(rand() * (i + 1));
    [a[i], a[j]] = [a[j], a[i]];
  }
  return a;
}

/**
 * A load step with its loadgens multiplied as the plan's `loadgensPer` says: by the instance
 * count (the same load per instance at every k) or by the front proxies (one loadgen per proxy
 * and more: loadgen i goes to proxy i mod n, so fewer loadgens leave proxies idle).
 */
function scaledStep(plan, cfg, instances, step) {
  const per = plan.loadgensPer ?? 'round';
  const factor = per === 'instance' ? instances : per === 'proxy' ? Math.max(1, cfg.frontProxies) : 1;
  return factor === 1 ? step : { ...step, loadgens: step.loadgens * factor };
}

/** Every round of a grid plan, in run order. */
function gridRounds(plan) {
  const cfgs = configurations(plan);
  const points = [];
  for (const k of plan.instances) for (const step of plan.load) points.push({ k, step });
  const out = [];
  const add = (cfg, p, rep) => out.push(roundSpec(plan, cfg, p.k, scaledStep(plan, cfg, p.k, p.step), `rep${rep}`));
  if (plan.order === 'sequential') {
    for (const cfg of cfgs) for (const p of points) for (let r = 1; r <= plan.repetitions; r++) add(cfg, p, r);
    return out;
  }
  const rand = seededRandom(plan.seed);
  for (let r = 1; r <= plan.repetitions; r++) {
    const block = [];
    for (const p of points) {
      // Alternate which configuration goes first at successive points and repetitions.
      const shift = (r - 1 + points.indexOf(p)) % cfgs.length;
      const rotated = cfgs.slice(shift).concat(cfgs.slice(0, shift));
      for (const cfg of rotated) block.push([cfg, p]);
    }
    for (const [cfg, p] of plan.order === 'random' ? shuffle(block, rand) : block) add(cfg, p, r);
  }
  return out;
}

module.exports = { configurations, loadKey, stepKey, labelFor, parseLabel, roundSpec, capacityOverrides, gridRounds, scaledStep };
