// plan-fields.js — the checks of plan.js, one kind of field each: numbers, durations, choices,
// settings, the load grid, the nested mappings, a variant's events and memory, the warm-up.
// Each returns the field's value in its type or throws a PlanError naming the field.
'use strict';
const { parseEvent } = require('../lib/round-events');

const SETTING_RE = /^[A-Z][A-Z0-9_]*$/;

class PlanError extends Error {}

function fail(where, msg) { throw new PlanError(`${where}${msg}`); }
function show(v) { return JSON.stringify(v); }
/** A YAML/JSON mapping: an object, not null, not a list. */
const isMapping = (v) => v !== null && typeof v === 'object' && !Array.isArray(v);

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
      if (!isMapping(v)) fail(where, `${key} must be a mapping, got ${show(v)}`);
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
  if (!isMapping(settings)) {
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
  if (isMapping(load)) {
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
    if (!isMapping(s)) fail(where, `load[${i}] must be a mapping, got ${show(s)}`);
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

module.exports = {
  PlanError, fail, show, isMapping, parseDurationMs, makeCheck, CONTROL_SETTINGS, checkSettings, checkLoad, checkSub, checkEvents, checkMemory,
  checkRegenerates, warmupOf, gated, checkSteady, checkKeepalive, checkCpuReference,
};
