// plan.js — read and validate an experiment plan (YAML or JSON) into one normalised
// object with every default filled in. Bad plans stop with one line naming the field:
//   plan pool-size.yml: load[1].parallel must be an integer >= 1, got "x"
// Defaults live here once; scripts/experiment/README.md documents each field, default and unit.
'use strict';
const fs = require('node:fs');
const path = require('node:path');
const YAML = require('yaml');
const { parseEvent } = require('../lib/round-events');

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
const SETTING_RE = /^[A-Z][A-Z0-9_]*$/;

class PlanError extends Error {}

function fail(where, msg) { throw new PlanError(`${where}${msg}`); }
function show(v) { return JSON.stringify(v); }

/** "60s" | "2m" | "500ms" | 60 (seconds) → milliseconds. */
function parseDurationMs(v) {
  if (typeof v === 'number' && v > 0) return Math.round(v * 1000);
  if (typeof v !== 'string') return NaN;
  const m = /^(\d+(?:\.\d+)?)(ms|s|m|h)?$/.exec(v.trim());
  if (!m) return NaN;
  const f = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 }[m[2] || 's'];
  const ms = Math.round(Number(m[1]) * f);
  return ms > 0 ? ms : NaN;
}

function makeCheck(where) {
  const c = {
    int(obj, key, min, dflt, max = Infinity) {
      const v = obj[key];
      if (v === undefined) return dflt;
      if (!Number.isInteger(v) || v < min || v > max) {
        fail(where, `${key} must be an integer ${max === Infinity ? `>= ${min}` : `from ${min} to ${max}`}, got ${show(v)}`);
      }
      return v;
    },
    num(obj, key, min, dflt, { exclusive = false, max = Infinity } = {}) {
      const v = obj[key];
      if (v === undefined) return dflt;
      if (typeof v !== 'number' || !Number.isFinite(v) || (exclusive ? v <= min : v < min) || v > max) {
        fail(where, `${key} must be a number ${exclusive ? '>' : '>='} ${min}${max < Infinity ? ` and <= ${max}` : ''}, got ${show(v)}`);
      }
      return v;
    },
    dur(obj, key, dflt) {
      const v = obj[key];
      if (v === undefined) return dflt;
      const ms = parseDurationMs(v);
      if (!Number.isFinite(ms)) fail(where, `${key} must be a duration like 30s, 2m or 500ms, got ${show(v)}`);
      return ms;
    },
    oneOf(obj, key, allowed, dflt) {
      const v = obj[key];
      if (v === undefined) return dflt;
      if (!allowed.includes(v)) fail(where, `${key} must be one of ${allowed.join(', ')}, got ${show(v)}`);
      return v;
    },
    obj(obj, key) {
      const v = obj[key];
      if (v === undefined) return {};
      if (v === null || typeof v !== 'object' || Array.isArray(v)) fail(where, `${key} must be a mapping, got ${show(v)}`);
      return v;
    },
    fail(msg) { fail(where, msg); },
    known(obj, keys, prefix) {
      for (const k of Object.keys(obj)) {
        if (!keys.includes(k)) fail(where, `${prefix}${k} is not a known field (known: ${keys.join(', ')})`);
      }
    },
  };
  return c;
}

const CONTROL_SETTINGS = ['CONTROL_TOKEN', 'LOCAL_DEV_NO_CONTROL_TOKEN'];

function checkSettings(where, settings, prefix) {
  if (settings === undefined) return {};
  if (settings === null || typeof settings !== 'object' || Array.isArray(settings)) {
    fail(where, `${prefix} must be a mapping of VARIABLE: value, got ${show(settings)}`);
  }
  const out = {};
  for (const [k, v] of Object.entries(settings)) {
    if (!SETTING_RE.test(k)) fail(where, `${prefix}.${k} is not an environment variable name (A-Z, 0-9, _)`);
    // A plan file is committed; the credential of the apps' /timings is made at push instead.
    if (CONTROL_SETTINGS.includes(k)) fail(where, `${prefix}.${k} is not a plan setting: scripts/push.sh sets the control credential (docs/control-credential.md)`);
    if (!['string', 'number', 'boolean'].includes(typeof v)) fail(where, `${prefix}.${k} must be a string, number or boolean, got ${show(v)}`);
    out[k] = String(v);
  }
  return out;
}

function checkLoad(where, load, c) {
  // Either a list of {loadgens, parallel|rate} or a grid {loadgens: [..], parallel|rate: [..]}.
  let steps = load;
  if (load && !Array.isArray(load) && typeof load === 'object') {
    c.known(load, ['loadgens', 'parallel', 'rate'], 'load.');
    const lg = [].concat(load.loadgens ?? []);
    const key = load.rate !== undefined ? 'rate' : 'parallel';
    const vals = [].concat(load[key] ?? []);
    if (load.rate !== undefined && load.parallel !== undefined) fail(where, 'load has both parallel and rate; give one');
    steps = [];
    for (const l of lg) for (const v of vals) steps.push({ loadgens: l, [key]: v });
    if (steps.length === 0) fail(where, 'load needs loadgens and parallel (or rate) values');
  }
  if (!Array.isArray(steps) || steps.length === 0) fail(where, 'load must be a non-empty list of {loadgens, parallel | rate}');
  return steps.map((s, i) => {
    const p = `load[${i}].`;
    if (s === null || typeof s !== 'object' || Array.isArray(s)) fail(where, `load[${i}] must be a mapping, got ${show(s)}`);
    c.known(s, ['loadgens', 'parallel', 'rate'], p);
    const sc = makeCheck(`${where}${p}`);
    const loadgens = sc.int(s, 'loadgens', 1, undefined);
    if (loadgens === undefined) fail(where, `${p}loadgens is required`);
    if ((s.parallel === undefined) === (s.rate === undefined)) fail(where, `load[${i}] needs exactly one of parallel (closed model) or rate (open model, req/s per loadgen)`);
    if (s.parallel !== undefined) return { loadgens, parallel: sc.int(s, 'parallel', 1) };
    return { loadgens, rate: sc.num(s, 'rate', 0, undefined, { exclusive: true }) };
  });
}

// A nested mapping (slo, scale, capacity, validity): spec is inKey → [outKey, check].
function checkSub(where, raw, key, defaults, spec) {
  const obj = makeCheck(where).obj(raw, key);
  makeCheck(where).known(obj, Object.keys(spec), `${key}.`);
  const c = makeCheck(`${where}${key}.`);
  const out = { ...defaults };
  for (const [outKey, check] of Object.values(spec)) out[outKey] = check(c, obj, defaults[outKey]);
  return out;
}

/** Validate a parsed plan object; `source` names the file in errors. */
function validatePlan(raw, source = 'plan') {
  const where = `plan ${source}: `;
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) fail(where, 'must be a mapping of fields');
  const c = makeCheck(where);
  c.known(raw, ['name', 'description', 'regenerates', 'kind', 'platform', 'apps', 'variants', 'settings', 'instances', 'cpu',
    'keepalive', 'frontProxies', 'load', 'duration', 'requests', 'warmup', 'steady', 'afterChange', 'restart', 'loadgensPer', 'prewarm', 'loadbalancing', 'timeout', 'scenario', 'repetitions',
    'order', 'seed', 'slo', 'scale', 'capacity', 'validity', 'local', 'notes'], '');
  const fileBase = path.basename(source).replace(/\.(ya?ml|json)$/, '');
  const name = raw.name ?? fileBase;
  if (typeof name !== 'string' || !NAME_RE.test(name)) fail(where, `name must match ${NAME_RE} (lower case, digits, - and _), got ${show(name)}`);
  const kind = c.oneOf(raw, 'kind', KINDS, DEFAULTS.kind);
  if (!Array.isArray(raw.apps) || raw.apps.length === 0) fail(where, 'apps must be a non-empty list of app names, e.g. [node-app, java-app]');
  raw.apps.forEach((a, i) => { if (typeof a !== 'string' || !NAME_RE.test(a)) fail(where, `apps[${i}] must be an app name, got ${show(a)}`); });
  if (new Set(raw.apps).size !== raw.apps.length) fail(where, 'apps lists an app twice');
  const settings = checkSettings(where, raw.settings, 'settings');
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
  let instances = DEFAULTS.instances;
  if (raw.instances !== undefined) {
    instances = [].concat(raw.instances);
    instances.forEach((k, i) => { if (!Number.isInteger(k) || k < 1) fail(where, `instances[${i}] must be an integer >= 1, got ${show(k)}`); });
    if (instances.length === 0) fail(where, 'instances must not be empty');
  }
  if (raw.duration !== undefined && raw.requests !== undefined) fail(where, 'give one of duration or requests, not both');
  const slo = checkSub(where, raw, 'slo', DEFAULTS.slo, {
    metric: ['metric', (sc, o, d) => sc.oneOf(o, 'metric', SLO_METRICS, d)],
    threshold: ['thresholdMs', (sc, o, d) => sc.dur(o, 'threshold', d)],
    maxErrorRate: ['maxErrorRate', (sc, o, d) => sc.num(o, 'maxErrorRate', 0, d, { max: 1 })],
  });
  const scale = checkSub(where, raw, 'scale', DEFAULTS.scale, {
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
  const capacity = checkSub(where, raw, 'capacity', DEFAULTS.capacity, {
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
  if (capacity.rateMin >= capacity.rateMax) fail(where, `capacity.rateMin (${capacity.rateMin}) must be below capacity.rateMax (${capacity.rateMax})`);
  if (scale.startInstances > scale.maxInstances) fail(where, 'scale.startInstances must not exceed scale.maxInstances');
  const validity = checkSub(where, raw, 'validity', DEFAULTS.validity, {
    loadgenCpuMax: ['loadgenCpuMax', (sc, o, d) => sc.num(o, 'loadgenCpuMax', 0, d, { exclusive: true })],
    eventLoopP99MaxMs: ['eventLoopP99MaxMs', (sc, o, d) => sc.num(o, 'eventLoopP99MaxMs', 0, d, { exclusive: true })],
    lateMax: ['lateMax', (sc, o, d) => sc.num(o, 'lateMax', 0, d, { max: 1 })],
    errorRateMax: ['errorRateMax', (sc, o, d) => sc.num(o, 'errorRateMax', 0, d, { max: 1 })],
    trendMax: ['trendMax', (sc, o, d) => sc.num(o, 'trendMax', 0, d, { exclusive: true })],
    throttledMax: ['throttledMax', (sc, o, d) => sc.num(o, 'throttledMax', 0, d, { max: 1 })],
    entitlementMax: ['entitlementMax', (sc, o, d) => sc.num(o, 'entitlementMax', 0, d, { exclusive: true })],
  });
  const steady = checkSteady(where, raw);
  const load = kind === 'grid' ? checkLoad(where, raw.load, c) : null;
  if (kind !== 'grid' && raw.load !== undefined) fail(where, `load is only for kind grid (kind ${kind} chooses its own load)`);
  if (raw.cpu !== undefined && raw.cpu !== null && raw.cpu !== 'none') c.num(raw, 'cpu', 0, undefined, { exclusive: true });
  if (raw.notes !== undefined && typeof raw.notes !== 'string') fail(where, 'notes must be text');
  if (raw.description !== undefined && typeof raw.description !== 'string') fail(where, 'description must be text');
  const regenerates = checkRegenerates(where, raw.regenerates);
  if (raw.scenario !== undefined && (typeof raw.scenario !== 'string' || !/^[a-z][a-z0-9_-]*$/.test(raw.scenario))) fail(where, `scenario must be a scenario name like read, got ${show(raw.scenario)}`);
  return {
    name, description: raw.description ?? '', regenerates, kind, notes: raw.notes ?? '',
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

/**
 * A variant's events inside each round (run-round --event AT:ACTION, lib/round-events.js):
 * the specs as written, each checked alone (the round's instance count and duration check
 * them together when run-round parses them); [] when none.
 */
function checkEvents(where, v, i) {
  if (v === undefined) return [];
  if (!Array.isArray(v) || v.some((e) => typeof e !== 'string')) fail(where, `variants[${i}].events must be a list of AT:ACTION like "20s:scale=4", got ${show(v)}`);
  for (const e of v) {
    try { parseEvent(e); } catch (err) { fail(where, `variants[${i}].events: ${err.message}`); }
  }
  return v;
}

/** A variant's container memory ("512M", "1G": `cf scale -m`) in MB, or null. */
function checkMemory(where, v, i) {
  if (v === undefined) return null;
  const m = /^(\d+)(M|G)$/.exec(String(v));
  if (!m || Number(m[1]) < 1) fail(where, `variants[${i}].memory must be a size like 512M or 1G, got ${show(v)}`);
  return Number(m[1]) * (m[2] === 'G' ? 1024 : 1);
}

// What of the study a plan regenerates: "Fig. 6.2", "Table 7.1", "§5.2.3 keep-alive finding".
const REGENERATES_RE = /^(Fig\. \d+\.\d+|Table \d+\.\d+|§\d+(\.\d+)*)( .+)?$/;

function checkRegenerates(where, v) {
  if (v === undefined) return [];
  const list = [].concat(v);
  list.forEach((x, i) => {
    if (typeof x !== 'string' || !REGENERATES_RE.test(x)) {
      fail(where, `regenerates[${i}] must name a figure, table or section of the study like "Fig. 6.2", "Table 7.1" or "§5.2.3 keep-alive finding", got ${show(x)}`);
    }
  });
  return list;
}

// Is the plan's warm-up the steady-state gate? Unset, it is for a plan by duration: the gate's
// identical rounds repeat within about 5 % where a guessed warm-up scattered by some 25 %
// (bench/rounds/README.md). A plan by requests has no window to gate.
const gated = (raw) => raw.warmup === 'steady' || (raw.warmup === undefined && raw.requests === undefined);

/** The warm-up in ms, or null for the steady-state gate. */
function warmupOf(c, raw) {
  if (gated(raw)) return null;
  if (raw.warmup === undefined || /^0+(\.0+)?(ms|s|m|h)?$/.test(String(raw.warmup))) return 0;
  return c.dur(raw, 'warmup', null);
}

/**
 * `warmup: steady` (the default for a plan by duration) hands the warm-up to run-round's
 * steady-state gate; `steady` may set its settings (unset: run-round's defaults,
 * scripts/round/run-round-args.js).
 */
function checkSteady(where, raw) {
  const o = makeCheck(where).obj(raw, 'steady');
  if (raw.steady !== undefined && !gated(raw)) fail(where, 'steady is for warmup: steady (the steady-state gate)');
  if (raw.warmup === 'steady' && raw.requests !== undefined) fail(where, 'warmup: steady needs a duration, not requests');
  makeCheck(where).known(o, ['window', 'cv', 'trend', 'maxWarmup'], 'steady.');
  const c = makeCheck(`${where}steady.`);
  return {
    windowMs: c.dur(o, 'window', null), cv: c.num(o, 'cv', 0, null, { exclusive: true, max: 1 }),
    trend: c.num(o, 'trend', 0, null, { exclusive: true, max: 1 }), maxWarmupMs: c.dur(o, 'maxWarmup', null),
  };
}

function checkKeepalive(c, obj, dflt) {
  const v = obj.keepalive;
  if (v === undefined) return dflt;
  if (typeof v !== 'boolean') c.fail(`keepalive must be true or false, got ${show(v)}`);
  return v;
}

function checkCpuReference(where, v, apps, dflt) {
  if (v === undefined || v === null) return dflt;
  if (typeof v === 'number' && v > 0) return { cores: v };
  if (typeof v === 'object' && typeof v.app === 'string' && apps.includes(v.app)) return { app: v.app };
  return fail(where, `scale.cpuReference must be a number of cores or {app: NAME} of an app in apps, got ${show(v)}`);
}

// The scales a plan runs at: cf, the fields as written; local, with its `local:` mapping laid
// over them (fewer instances, loadgens and repetitions, shorter rounds), so the study fits
// one small machine. A plan without `local:` runs the same at both.
const SCALES = ['local', 'cf'];
// Fields of a plan that its local profile may not change: what the plan is.
const FIXED_FIELDS = ['name', 'description', 'regenerates', 'kind', 'platform', 'local'];
// Mappings the profile sets key by key; every other field it replaces whole.
const MERGED_FIELDS = ['scale', 'capacity', 'steady', 'slo', 'validity'];

/** The scale a run takes when --scale is not given: the platform's own (local → local). */
const defaultScale = (platform) => (platform === 'local' ? 'local' : 'cf');

/** The raw plan at a scale: at local, its `local:` mapping laid over it. */
function atScale(raw, scale, where) {
  const { local, ...base } = raw;
  if (local === undefined || scale === 'cf') return base;
  if (local === null || typeof local !== 'object' || Array.isArray(local)) fail(where, `local must be a mapping of the fields the local profile changes, got ${show(local)}`);
  const fixed = Object.keys(local).filter((k) => FIXED_FIELDS.includes(k));
  if (fixed.length) fail(where, `local.${fixed[0]} cannot differ at local scale (the profile changes size, not what the plan is)`);
  const out = { ...base };
  for (const [k, v] of Object.entries(local)) {
    out[k] = MERGED_FIELDS.includes(k) && v && typeof v === 'object' && !Array.isArray(v) ? { ...(base[k] ?? {}), ...v } : v;
  }
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

module.exports = { PlanError, parseDurationMs, validatePlan, validatePlanAt, loadPlan, defaultScale, SCALES, KINDS, ORDERS, SLO_METRICS, LOADBALANCING, DEFAULTS, AFTER_CHANGE, RESTART, CONTROL_SETTINGS, ROUTER_CORES_WITHOUT_QUOTA };
