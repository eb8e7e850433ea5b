// spec-match.js — is a recorded round what the current plan asks for? A round label
// (order.js) names the step, not the duration, warm-up, CPU quota, load balancing...: a
// plan edited after its rounds ran would otherwise get its old rounds back. So a round is
// reused on resume, and counted by the report and the adaptive procedures, only when every
// parameter it recorded equals the plan's spec for its label. One rule, used by the runner
// (resume, cpuReference) and the report; scripts/experiment/README.md "Resume" states it.
'use strict';
const { capacityOverrides, configurations, parseLabel, roundSpec, scaledStep, loadKey } = require('./order.js');
const { parseEvents } = require('../lib/round-events');
const { CPU_DEFAULT, CPU_NONE } = require('../lib/cpu-quota');

/** The `rounds` columns roundMismatches reads: a SELECT list. */
const ROUND_COLUMNS = `id, status, label, experiment, app, app_instances, loadgens, model, parallel, rate,
  duration_ms, requests, warmup_ms, timeout_ms, keepalive, scenario, plan, environment, settings, steady_gate`;

// A route without options.loadbalancing runs the platform's default algorithm: round-robin
// on Gorouter (router.balancing_algorithm) and on the local platform (HAProxy `balance
// roundrobin`, local-platform/lib/haproxy-config.js). run-round.sh records nothing then.
const DEFAULT_LOADBALANCING = 'round-robin';

const NOT_COMPARED = undefined;
// Events compared as what they do: "20000:scale:4,40000:deploy:4".
const eventsKey = (list) => list.map((e) => `${e.at_ms}:${e.kind}:${e.instances}`).join(',');
function specEvents(s) {
  try {
    return parseEvents(s.events ?? [], { instances: s.instances, durationMs: s.requests ? null : s.durationMs })
      .map((e) => ({ at_ms: e.atMs, kind: e.kind, instances: e.instances }));
  } catch {
    return [{ at_ms: -1, kind: 'invalid', instances: 0 }];
  }
}
const num = (v) => (v === null || v === undefined || v === '' ? null : Number(v));
const isOpen = (s) => s.rate !== null && s.rate !== undefined;

/**
 * The CPU quota a local round ran with, as a plan names it: CPU_DEFAULT (none asked for), CPU_NONE
 * or cores. A round records the quota the platform applied (app_cpu_quota_cores: cores or CPU_NONE)
 * and whether it was the platform's default (app_cpu_quota_default); rounds recorded before that
 * hold what --cpu said in app_cpu_quota_cores: CPU_DEFAULT without it, else CPU_NONE or cores as text.
 */
function cpuRecorded(env) {
  const q = env?.app_cpu_quota_cores;
  if (typeof env?.app_cpu_quota_default === 'boolean') {
    if (env.app_cpu_quota_default) return CPU_DEFAULT;
    return q === CPU_NONE ? CPU_NONE : num(q);
  }
  if (q === undefined || q === null) return NOT_COMPARED; // CF rounds, rounds older than the field
  return q === CPU_DEFAULT || q === CPU_NONE ? q : num(q);
}

// [what, recorded value (NOT_COMPARED when the round did not record it), the plan's value
// (NOT_COMPARED when the plan leaves it to the platform)].
const FIELDS = [
  ['app', (r) => r.app, (s) => s.app],
  ['app_instances', (r) => r.app_instances, (s) => s.instances],
  ['loadgens', (r) => r.loadgens, (s) => s.loadgens],
  ['model', (r) => r.model, (s) => (isOpen(s) ? 'open' : 'closed')],
  ['parallel', (r) => num(r.parallel), (s) => (isOpen(s) ? null : num(s.parallel))],
  ['rate', (r) => num(r.rate), (s) => num(s.rate)],
  ['duration_ms', (r) => num(r.duration_ms), (s) => (s.requests ? null : num(s.durationMs))],
  ['requests', (r) => num(r.requests), (s) => (s.requests ? num(s.requests) : null)],
  // `warmup: steady` (warmupMs null): the round ran with run-round's steady-state gate.
  ['warmup_ms', (r) => (r.steady_gate ? 'steady' : num(r.warmup_ms)), (s) => (s.warmupMs === null ? 'steady' : num(s.warmupMs))],
  ...[['window_ms', 'windowMs'], ['cv_max', 'cv'], ['trend_max', 'trend'], ['max_warmup_ms', 'maxWarmupMs']].map(([col, key]) => [
    `steady.${col}`, (r) => (r.steady_gate ? num(r.steady_gate[col]) : NOT_COMPARED), (s) => (s.steady?.[key] ?? NOT_COMPARED)]),
  ['timeout_ms', (r) => num(r.timeout_ms), (s) => num(s.timeoutMs)],
  ['keepalive', (r) => r.keepalive, (s) => s.keepalive ?? true],
  // run-round --front-proxies N records plan.front_proxies; none recorded = to the router.
  ['front_proxies', (r) => num(r.plan?.front_proxies ?? 0), (s) => num(s.frontProxies ?? 0)],
  // run-round --event records plan.events ([{at_ms, kind, instances}]); none recorded = none.
  ['events', (r) => eventsKey(r.plan?.events ?? []), (s) => eventsKey(specEvents(s))],
  ['scenario', (r) => r.scenario, (s) => s.scenario],
  // Unset cpu: the round runs with the platform's default quota (CPU_DEFAULT).
  ['cpu', (r) => cpuRecorded(r.environment), (s) => (s.cpu === CPU_NONE ? CPU_NONE : s.cpu ? Number(s.cpu) : CPU_DEFAULT)],
  // A variant's memory against what run-round recorded (environment.app_memory_mb); unset: any.
  ['memory_mb', (r) => (r.environment?.app_memory_mb == null ? NOT_COMPARED : num(r.environment.app_memory_mb)), (s) => (s.memoryMb ?? NOT_COMPARED)],
  // Unset loadbalancing leaves the route as it is: whatever the round recorded matches.
  ['loadbalancing', (r) => r.plan?.loadbalancing ?? DEFAULT_LOADBALANCING, (s) => s.loadbalancing ?? NOT_COMPARED],
  // run-round.sh records --prewarm in rounds.plan.prewarm (0 too); older rounds did not: not compared.
  ['prewarm', (r) => (r.plan?.prewarm === undefined ? NOT_COMPARED : num(r.plan.prewarm)), (s) => num(s.prewarm ?? 0)],
];

function same(a, b) {
  if (typeof a === 'number' && typeof b === 'number') return Math.abs(a - b) <= 1e-9 * Math.max(1, Math.abs(a), Math.abs(b));
  return a === b;
}

const show = (v) => (v === null ? 'none' : typeof v === 'string' ? v : JSON.stringify(v));

/**
 * What differs between a `rounds` row (ROUND_COLUMNS) and a round spec (order.js
 * roundSpec): ["warmup_ms: round 1000, plan 2000", ...]; empty when the round matches.
 * Settings: each variable the spec sets, compared when the round recorded any settings
 * (a local round before the platform served them recorded {}).
 */
function roundMismatches(row, spec) {
  const out = [];
  for (const [name, recorded, wanted] of FIELDS) {
    const w = wanted(spec);
    const r = recorded(row);
    if (w === NOT_COMPARED || r === NOT_COMPARED || same(r, w)) continue;
    out.push(`${name}: round ${show(r)}, plan ${show(w)}`);
  }
  const settings = row.settings && typeof row.settings === 'object' ? row.settings : {};
  if (spec.settings && Object.keys(settings).length > 0) {
    for (const [k, v] of Object.entries(spec.settings)) {
      const r = settings[k] === undefined || settings[k] === null ? null : String(settings[k]);
      if (r !== String(v)) out.push(`settings.${k}: round ${show(r)}, plan ${String(v)}`);
    }
  }
  return out;
}

function matchesSpec(row, spec) {
  return roundMismatches(row, spec).length === 0;
}

/**
 * The spec the plan gives a label now (what runExperiment would pass run-round.sh), or null
 * when the label is not a round of this plan. A variant the plan no longer has: its
 * settings are unknown and not compared; the plan-wide parameters still are.
 */
function specForLabel(plan, label) {
  const p = parseLabel(label);
  if (!p || p.experiment !== plan.name) return null;
  const cfg = configurations(plan).find((c) => c.app === p.app && c.variant === p.variant)
    ?? { app: p.app, variant: p.variant, settings: null, keepalive: plan.keepalive, frontProxies: plan.frontProxies };
  const step = p.rate !== null ? { loadgens: p.loadgens, rate: p.rate } : { loadgens: p.loadgens, parallel: p.parallel };
  return roundSpec(plan, cfg, p.instances, step, `${p.kind}${p.rep ?? ''}`, capacityOverrides(plan, p.kind));
}

const pointKey = (instances, step) => `i${instances}:l${step.loadgens}:${loadKey(step)}`;

/**
 * A grid plan's round at an instance count and load the plan no longer runs (its label names
 * them, so the spec built from the label would match): the mismatch, or null. Adaptive plans
 * choose their steps as they go: not judged here.
 */
function stepMismatch(plan, label) {
  const p = parseLabel(label);
  if (!p || p.experiment !== plan.name || plan.kind !== 'grid' || p.kind !== 'rep') return null;
  const cfg = configurations(plan).find((c) => c.app === p.app && c.variant === p.variant);
  if (!cfg) return null;
  const points = plan.instances.flatMap((k) => plan.load.map((step) => pointKey(k, scaledStep(plan, cfg, k, step))));
  const mine = pointKey(p.instances, p);
  return points.includes(mine) ? null : `step: round ${mine}, plan ${points.join(', ')}`;
}

/**
 * Split rounds rows (ROUND_COLUMNS) into those the plan still stands behind and the stale
 * ones (a round of this plan recorded under other parameters, or at a step it no longer
 * runs): {current, stale: [{row, mismatches}]}. Rows that are not rounds of this plan are
 * current (not judged).
 */
function judgeRounds(rows, plan) {
  const current = [];
  const stale = [];
  for (const row of rows) {
    const spec = specForLabel(plan, row.label);
    const step = stepMismatch(plan, row.label);
    const mismatches = [...(step ? [step] : []), ...(spec ? roundMismatches(row, spec) : [])];
    if (mismatches.length) stale.push({ row, mismatches }); else current.push(row);
  }
  return { current, stale };
}

module.exports = { roundMismatches, matchesSpec, specForLabel, stepMismatch, judgeRounds, ROUND_COLUMNS, DEFAULT_LOADBALANCING };
