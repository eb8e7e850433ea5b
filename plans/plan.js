// plan.js — read and validate an experiment plan (YAML or JSON) into one normalised
// object with every default filled in. Bad plans stop with one line naming the field:
//   plan pool-size.yml: load[1].parallel must be an integer >= 1, got "x"
// Defaults live here once; scripts/experiment/README.md documents each field, default and unit.
'use strict';
const fs = require('node:fs');
const path = require('node:path');
const YAML = require('yaml');
const { PlanError, fail, show, parseDurationMs, makeCheck, CONTROL_SETTINGS, checkSettings, checkLoad, checkSub, checkEvents, checkMemory,
  checkRegenerates, warmupOf, gated, isMapping, checkSteady, checkKeepalive, checkCpuReference } = require('./plan-fields');

const KINDS = ['grid', 'scale-until-slo', 'capacity'];
const ORDERS = ['interleaved', 'sequential', 'random'];
const SLO_METRICS = ['p50', 'p95', 'p99', 'mean'];
// Gorouter's per-route algorithms run-round.sh sets (`--loadbalancing`; CF's `hash` needs a
// header and is not supported by the local platform).
const LOADBALANCING = ['round-robin', 'least-connection'];

const DEFAULTS = Object.freeze({
  kind: 'grid',
  platform: 'local',
  instances: [1],
  durationMs: 60_000,
  timeoutMs: 10_000,
  scenario: 'read',
  repetitions: 3,
  order: 'interleaved',
  seed: 1,
  slo: { metric: 'p95', thresholdMs: 100, maxErrorRate: 0.01 },
  // Study §7.3: add 4 loadgen instances per round, at most 96 (database connection limit).
  scale: {
    startInstances: 1, maxInstances: 5, loadgensStart: 4, loadgensStep: 4, loadgensMax: 96,
    parallel: 1, trendSteps: 3, trendRise: 0.5, routerSaturation: true, cpuReference: null,
    // Study §7.3: "Java application will stop scaling when router has reached its limit (70% load)".
    routerLoad: 0.7,
  },
  capacity: {
    instances: [1], loadgens: 2, rateMin: 10, rateMax: 2000, tolerance: 0.05, maxProbes: 8,
    probeDurationMs: 20_000, soakDurationMs: 120_000, maxLateFraction: 0.01,
  },
  validity: {
    loadgenCpuMax: 0.9, eventLoopP99MaxMs: 50, lateMax: 0.01, errorRateMax: 0.01,
    // The measured window (report/lib/report/steady-flags.js): a significant trend beyond
    // ±10 % over it; throttled in over half the CFS periods; above the CPU entitlement (CF).
    trendMax: 0.1, throttledMax: 0.5, entitlementMax: 1.0,
  },
  // The first round after a change of instances, settings, routing or quota is run again
  // (rerun) and left out, or kept (keep).
  afterChange: 'rerun',
  restart: 'change',
  loadgensPer: 'round',
  // The loadgens keep connections alive (run-round's default) and send to the router, not
  // through TLS front proxies (local only: run-round --front-proxies N, study §5.2.3).
  keepalive: true,
  frontProxies: 0,
});
// What the router has when its cgroup has no quota (cores): the share `scale.routerLoad` is of.
const ROUTER_CORES_WITHOUT_QUOTA = 1;
const AFTER_CHANGE = ['rerun', 'keep'];
// change: restart the app only when a round's settings or memory change; round: before every round too (each round a fresh process: a JVM's warm-up is the gate's, never the round before's)
const RESTART = ['change', 'round'];
// A load step's loadgens per round (as written), per app instance, or per front proxy (order.js scaledStep).
const LOADGENS_PER = ['round', 'instance', 'proxy'];

const NAME_RE = /^[a-z0-9][a-z0-9_-]{0,62}$/;

/** Validate a parsed plan object; `source` names the file in errors. */
function validatePlan(raw, source = 'plan') {
  const where = `plan ${source}: `;
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) fail(where, 'must be a mapping of fields');
  const c = makeCheck(where);
  c.known(raw, ['name', 'description', 'regenerates', 'kind', 'platform', 'apps', 'variants', 'settings', 'instances', 'cpu',
    'keepalive', 'frontProxies', 'load', 'duration', 'requests', 'warmup', 'steady', 'afterChange', 'restart', 'loadgensPer', 'prewarm', 'loadbalancing', 'timeout', 'scenario', 'repetitions',
    'order', 'seed', 'slo', 'scale', 'capacity', 'validity', 'local', 'notes', 'stopping'], '');
  const fileBase = path.basename(source).replace(/\.(ya?ml|json)$/, '');
  const name = raw.name ?? fileBase;
  if (typeof name !== 'string' || !NAME_RE.test(name)) fail(where, `name must match ${NAME_RE} (lower case, digits, - and _), got ${show(name)}`);
  const kind = c.oneOf(raw, 'kind', KINDS, DEFAULTS.kind);
  checkApps(where, raw);
  const settings = checkSettings(where, raw.settings, 'settings');
  const variants = checkVariants(where, raw);
  const instances = checkInstances(where, raw);
  if (raw.duration !== undefined && raw.requests !== undefined) fail(where, 'give one of duration or requests, not both');
  const slo = checkSlo(where, raw);
  const scale = checkScale(where, raw);
  const capacity = checkCapacity(where, raw);
  if (capacity.rateMin >= capacity.rateMax) fail(where, `capacity.rateMin (${capacity.rateMin}) must be below capacity.rateMax (${capacity.rateMax})`);
  if (scale.startInstances > scale.maxInstances) fail(where, 'scale.startInstances must not exceed scale.maxInstances');
  const validity = checkValidity(where, raw);
  const steady = checkSteady(where, raw);
  const load = kind === 'grid' ? checkLoad(where, raw.load, c) : null;
  if (kind !== 'grid' && raw.load !== undefined) fail(where, `load is only for kind grid (kind ${kind} chooses its own load)`);
  if (raw.cpu !== undefined && raw.cpu !== null && raw.cpu !== 'none') c.num(raw, 'cpu', 0, undefined, { exclusive: true });
  if (raw.notes !== undefined && typeof raw.notes !== 'string') fail(where, 'notes must be text');
  if (raw.stopping !== undefined && typeof raw.stopping !== 'string') fail(where, 'stopping must be text (the stopping rule: how many rounds a point, and why)');
  if (raw.description !== undefined && typeof raw.description !== 'string') fail(where, 'description must be text');
  const regenerates = checkRegenerates(where, raw.regenerates);
  if (raw.scenario !== undefined && (typeof raw.scenario !== 'string' || !/^[a-z][a-z0-9_-]*$/.test(raw.scenario))) fail(where, `scenario must be a scenario name like read, got ${show(raw.scenario)}`);
  return {
    name, description: raw.description ?? '', regenerates, kind, notes: raw.notes ?? '', stopping: raw.stopping ?? '',
    platform: c.oneOf(raw, 'platform', ['local', 'cf'], DEFAULTS.platform),
    apps: raw.apps, variants, settings, instances,
    cpu: raw.cpu ?? null,
    keepalive: checkKeepalive(c, raw, DEFAULTS.keepalive),
    frontProxies: c.int(raw, 'frontProxies', 0, DEFAULTS.frontProxies),
    load,
    durationMs: raw.requests !== undefined ? null : c.dur(raw, 'duration', DEFAULTS.durationMs),
    requests: raw.requests !== undefined ? c.int(raw, 'requests', 1) : null,
    warmupMs: warmupOf(c, raw),
    steady,
    afterChange: c.oneOf(raw, 'afterChange', AFTER_CHANGE, DEFAULTS.afterChange),
    restart: c.oneOf(raw, 'restart', RESTART, DEFAULTS.restart),
    loadgensPer: c.oneOf(raw, 'loadgensPer', LOADGENS_PER, DEFAULTS.loadgensPer),
    prewarm: c.int(raw, 'prewarm', 0, 0),
    loadbalancing: c.oneOf(raw, 'loadbalancing', LOADBALANCING, null),
    timeoutMs: c.dur(raw, 'timeout', DEFAULTS.timeoutMs),
    scenario: raw.scenario ?? DEFAULTS.scenario,
    repetitions: c.int(raw, 'repetitions', 1, DEFAULTS.repetitions, 100),
    order: c.oneOf(raw, 'order', ORDERS, DEFAULTS.order),
    seed: c.int(raw, 'seed', 0, DEFAULTS.seed),
    slo, scale, capacity, validity,
  };
}

// apps: a non-empty list of distinct app names.
function checkApps(where, raw) {
  if (!Array.isArray(raw.apps) || raw.apps.length === 0) fail(where, 'apps must be a non-empty list of app names, e.g. [node-app, java-app]');
  raw.apps.forEach((a, i) => { if (typeof a !== 'string' || !NAME_RE.test(a)) fail(where, `apps[${i}] must be an app name, got ${show(a)}`); });
  if (new Set(raw.apps).size !== raw.apps.length) fail(where, 'apps lists an app twice');
}

// variants: each a name, apps, settings, memory, keep-alive, front proxies and events; one
// default variant when none is given.
function checkVariants(where, raw) {
  const c = makeCheck(where);
  let variants = [{ name: 'default', apps: null, settings: {}, memoryMb: null }];
  if (raw.variants !== undefined) {
    if (!Array.isArray(raw.variants) || raw.variants.length === 0) fail(where, 'variants must be a non-empty list of {name, settings}');
    variants = raw.variants.map((v, i) => {
      if (v === null || typeof v !== 'object') fail(where, `variants[${i}] must be a mapping`);
      c.known(v, ['name', 'apps', 'settings', 'memory', 'keepalive', 'frontProxies', 'events'], `variants[${i}].`);
      if (typeof v.name !== 'string' || !NAME_RE.test(v.name)) fail(where, `variants[${i}].name must match ${NAME_RE}, got ${show(v.name)}`);
      let apps = null;
      if (v.apps !== undefined) {
        if (!Array.isArray(v.apps) || v.apps.some((a) => !raw.apps.includes(a))) fail(where, `variants[${i}].apps must list apps from apps, got ${show(v.apps)}`);
        apps = v.apps;
      }
      const vc = makeCheck(`${where}variants[${i}].`);
      return {
        name: v.name, apps, settings: checkSettings(where, v.settings, `variants[${i}].settings`), memoryMb: checkMemory(where, v.memory, i),
        keepalive: checkKeepalive(vc, v, null), frontProxies: vc.int(v, 'frontProxies', 0, null), events: checkEvents(where, v.events, i),
      };
    });
    if (new Set(variants.map((v) => v.memoryMb === null)).size > 1) fail(where, 'variants must all set memory or none, so no round inherits the memory of the one before');
    if (new Set(variants.map((v) => v.name)).size !== variants.length) fail(where, 'variants has a name twice');
    // A variable set by one variant and not another would leak from round to round.
    const keys0 = Object.keys(variants[0].settings).sort().join(',');
    variants.forEach((v, i) => {
      if (Object.keys(v.settings).sort().join(',') !== keys0) {
        fail(where, `variants[${i}].settings must set the same variables as variants[0] (${keys0 || 'none'}), so no round inherits a setting of the one before`);
      }
    });
  }
  return variants;
}

// instances: a number or a list of them, each >= 1.
function checkInstances(where, raw) {
  let instances = DEFAULTS.instances;
  if (raw.instances !== undefined) {
    instances = [].concat(raw.instances);
    instances.forEach((k, i) => { if (!Number.isInteger(k) || k < 1) fail(where, `instances[${i}] must be an integer >= 1, got ${show(k)}`); });
    if (instances.length === 0) fail(where, 'instances must not be empty');
  }
  return instances;
}

function checkSlo(where, raw) {
  return checkSub(where, raw, 'slo', DEFAULTS.slo, {
    metric: ['metric', (sc, o, d) => sc.oneOf(o, 'metric', SLO_METRICS, d)],
    threshold: ['thresholdMs', (sc, o, d) => sc.dur(o, 'threshold', d)],
    maxErrorRate: ['maxErrorRate', (sc, o, d) => sc.num(o, 'maxErrorRate', 0, d, { max: 1 })],
  });
}

function checkScale(where, raw) {
  return checkSub(where, raw, 'scale', DEFAULTS.scale, {
    startInstances: ['startInstances', (sc, o, d) => sc.int(o, 'startInstances', 1, d)],
    maxInstances: ['maxInstances', (sc, o, d) => sc.int(o, 'maxInstances', 1, d)],
    loadgensStart: ['loadgensStart', (sc, o, d) => sc.int(o, 'loadgensStart', 1, d)],
    loadgensStep: ['loadgensStep', (sc, o, d) => sc.int(o, 'loadgensStep', 1, d)],
    loadgensMax: ['loadgensMax', (sc, o, d) => sc.int(o, 'loadgensMax', 1, d)],
    parallel: ['parallel', (sc, o, d) => sc.int(o, 'parallel', 1, d)],
    trendSteps: ['trendSteps', (sc, o, d) => sc.int(o, 'trendSteps', 2, d)],
    trendRise: ['trendRise', (sc, o, d) => sc.num(o, 'trendRise', 0, d, { exclusive: true })],
    routerSaturation: ['routerSaturation', (sc, o, d) => { if (o.routerSaturation !== undefined && typeof o.routerSaturation !== 'boolean') fail(where, `scale.routerSaturation must be true or false, got ${show(o.routerSaturation)}`); return o.routerSaturation ?? d; }],
    cpuReference: ['cpuReference', (sc, o, d) => checkCpuReference(where, o.cpuReference, raw.apps, d)],
    routerLoad: ['routerLoad', (sc, o, d) => (o.routerLoad === 'none' ? null : sc.num(o, 'routerLoad', 0, d, { exclusive: true, max: 1 }))],
  });
}

function checkCapacity(where, raw) {
  return checkSub(where, raw, 'capacity', DEFAULTS.capacity, {
    instances: ['instances', (sc, o, d) => { const v = o.instances === undefined ? d : [].concat(o.instances); v.forEach((k) => { if (!Number.isInteger(k) || k < 1) fail(where, `capacity.instances must be integers >= 1, got ${show(o.instances)}`); }); return v; }],
    loadgens: ['loadgens', (sc, o, d) => sc.int(o, 'loadgens', 1, d)],
    rateMin: ['rateMin', (sc, o, d) => sc.num(o, 'rateMin', 0, d, { exclusive: true })],
    rateMax: ['rateMax', (sc, o, d) => sc.num(o, 'rateMax', 0, d, { exclusive: true })],
    tolerance: ['tolerance', (sc, o, d) => sc.num(o, 'tolerance', 0, d, { exclusive: true, max: 1 })],
    maxProbes: ['maxProbes', (sc, o, d) => sc.int(o, 'maxProbes', 1, d, 50)],
    probeDuration: ['probeDurationMs', (sc, o, d) => sc.dur(o, 'probeDuration', d)],
    soakDuration: ['soakDurationMs', (sc, o, d) => sc.dur(o, 'soakDuration', d)],
    maxLateFraction: ['maxLateFraction', (sc, o, d) => sc.num(o, 'maxLateFraction', 0, d, { max: 1 })],
  });
}

function checkValidity(where, raw) {
  return checkSub(where, raw, 'validity', DEFAULTS.validity, {
    loadgenCpuMax: ['loadgenCpuMax', (sc, o, d) => sc.num(o, 'loadgenCpuMax', 0, d, { exclusive: true })],
    eventLoopP99MaxMs: ['eventLoopP99MaxMs', (sc, o, d) => sc.num(o, 'eventLoopP99MaxMs', 0, d, { exclusive: true })],
    lateMax: ['lateMax', (sc, o, d) => sc.num(o, 'lateMax', 0, d, { max: 1 })],
    errorRateMax: ['errorRateMax', (sc, o, d) => sc.num(o, 'errorRateMax', 0, d, { max: 1 })],
    trendMax: ['trendMax', (sc, o, d) => sc.num(o, 'trendMax', 0, d, { exclusive: true })],
    throttledMax: ['throttledMax', (sc, o, d) => sc.num(o, 'throttledMax', 0, d, { max: 1 })],
    entitlementMax: ['entitlementMax', (sc, o, d) => sc.num(o, 'entitlementMax', 0, d, { exclusive: true })],
  });
}

// The scales a plan runs at: cf, the fields as written; local, with its `local:` mapping laid
// over them (fewer instances, loadgens and repetitions, shorter rounds), so the study fits
// one small machine. A plan without `local:` runs the same at both.
const SCALES = ['local', 'cf'];
// Fields of a plan that its local profile may not change: what the plan is.
const FIXED_FIELDS = ['name', 'description', 'regenerates', 'kind', 'platform', 'local'];
// Mappings the profile sets key by key; every other field it replaces whole.
const MERGED_FIELDS = ['scale', 'capacity', 'steady', 'slo', 'validity'];

// The steady-state gate of every local profile, under the profile's own steady: settings. One
// instance under a CPU quota of 0.1–0.2 core wanders by some 15 % from second to second here,
// in long stretches (bench/rounds/README.md, "cells.sh and the per-second scatter"): run-round's
// defaults (cv 0.1, trend 0.1 over 20 s) would give most rounds up. The report's own trend
// flag (report/lib/report/steady-flags.js) still judges the measured window.
const LOCAL_STEADY = Object.freeze({ window: '10s', cv: 0.25, trend: 0.15, maxWarmup: '30s' });

/** The scale a run takes when --scale is not given: the platform's own (local → local). */
const defaultScale = (platform) => (platform === 'local' ? 'local' : 'cf');

/** The raw plan at a scale: at local, its `local:` mapping laid over it. */
function atScale(raw, scale, where) {
  const { local, ...base } = raw;
  if (local === undefined || scale === 'cf') return base;
  if (!isMapping(local)) fail(where, `local must be a mapping of the fields the local profile changes, got ${show(local)}`);
  const fixed = Object.keys(local).filter((k) => FIXED_FIELDS.includes(k));
  if (fixed.length) fail(where, `local.${fixed[0]} cannot differ at local scale (the profile changes size, not what the plan is)`);
  const out = { ...base };
  for (const [k, v] of Object.entries(local)) {
    out[k] = MERGED_FIELDS.includes(k) && isMapping(v) ? { ...(base[k] ?? {}), ...v } : v;
  }
  // Not when either steady: is malformed: checkSteady says so about the plan's own.
  const mapping = (v) => v === undefined || isMapping(v);
  if (gated(out) && mapping(base.steady) && mapping(local.steady)) out.steady = { ...base.steady, ...LOCAL_STEADY, ...local.steady };
  return out;
}

/**
 * Validate a parsed plan at a scale (local | cf, SCALES); the result says which
 * (`scaleProfile`) and whether the plan has a local profile at all (`hasLocalProfile`).
 */
function validatePlanAt(raw, source, scale) {
  if (!SCALES.includes(scale)) throw new PlanError(`--scale must be one of ${SCALES.join(', ')}, got ${show(scale)}`);
  const where = `plan ${source}: `;
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) fail(where, 'must be a mapping of fields');
  let plan;
  try {
    plan = validatePlan(atScale(raw, scale, where), source);
  } catch (e) {
    // A field the local profile set is named as the profile's.
    if (e instanceof PlanError && scale === 'local' && raw.local && typeof raw.local === 'object') {
      const m = /^plan [^:]+: ([a-zA-Z]+)/.exec(e.message);
      if (m && m[1] in raw.local) throw new PlanError(e.message.replace(`${where}`, `${where}local.`));
    }
    throw e;
  }
  return { ...plan, scaleProfile: scale, hasLocalProfile: raw.local !== undefined };
}

/**
 * Read and validate a plan file at a scale; null: the scale of the plan's platform
 * (defaultScale: a local plan runs its local profile).
 */
function loadPlan(file, scale = null) {
  let text;
  try { text = fs.readFileSync(file, 'utf8'); } catch (e) { throw new PlanError(`plan ${file}: cannot read: ${e.code || e.message}`); }
  let raw;
  try { raw = file.endsWith('.json') ? JSON.parse(text) : YAML.parse(text); } catch (e) {
    throw new PlanError(`plan ${path.basename(file)}: not valid ${file.endsWith('.json') ? 'JSON' : 'YAML'}: ${String(e.message).split('\n')[0]}`);
  }
  return validatePlanAt(raw, path.basename(file), scale ?? defaultScale(raw?.platform ?? DEFAULTS.platform));
}

module.exports = { LOCAL_STEADY, PlanError, parseDurationMs, validatePlan, validatePlanAt, loadPlan, defaultScale, SCALES, KINDS, ORDERS, SLO_METRICS, LOADBALANCING, DEFAULTS, AFTER_CHANGE, RESTART, CONTROL_SETTINGS, ROUTER_CORES_WITHOUT_QUOTA };
