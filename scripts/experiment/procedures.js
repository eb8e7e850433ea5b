// procedures.js — the adaptive experiments as generators. Each yields a batch of round
// specs (the repetitions of one step), receives their measured figures (results.js
// roundMetrics; null for a failed round) and decides the next step. Decisions depend only
// on the figures, so a resumed run replays them from the database and skips what is done.
'use strict';
const { capacityOverrides, roundSpec } = require('../../plans/order.js');
const { ROUTER_CORES_WITHOUT_QUOTA } = require('../../plans/plan.js');
const { mean } = require('../../lib/inference.js');

const METRIC_FIELD = { p50: 'p50Ms', p95: 'p95Ms', p99: 'p99Ms', mean: 'meanMs' };

/** Mean over the repetitions of a step (failed rounds count as SLO violations). */
function aggregate(ms, sloMetric) {
  const ok = ms.filter(Boolean);
  const field = METRIC_FIELD[sloMetric];
  return {
    n: ok.length,
    failed: ms.length - ok.length,
    latencyMs: ok.length ? mean(ok.map((m) => m[field] ?? Infinity)) : Infinity,
    p99Ms: ok.length ? mean(ok.map((m) => m.p99Ms ?? Infinity)) : Infinity,
    throughputRps: ok.length ? mean(ok.map((m) => m.throughputRps)) : 0,
    errorRate: ok.length ? mean(ok.map((m) => m.errorRate)) : 1,
    lateFraction: ok.length ? mean(ok.map((m) => m.lateFraction ?? 0)) : 1,
    cpuCores: meanOrNull(ok, 'cpuCores'),
    routerCores: meanOrNull(ok, 'routerCores'),
    // What the router has: its cgroup's quota, or one core without one (study §7.3's "70 %
    // load" is of the router's CPU; an unquoted HAProxy is taken as one core's worth).
    routerAvailableCores: ok.find((m) => Number.isFinite(m.routerQuotaCores) && m.routerQuotaCores > 0)?.routerQuotaCores ?? ROUTER_CORES_WITHOUT_QUOTA,
  };
}

/** Mean of a field over the rounds, or null when any round lacks it (CF: the router). */
function meanOrNull(ok, field) {
  return ok.length && ok.every((m) => Number.isFinite(m[field])) ? mean(ok.map((m) => m[field])) : null;
}

/**
 * "Its trend clearly climbs": the last `steps` latencies rise at every step and the last
 * is at least (1 + rise) times the first of them.
 */
function climbing(latencies, steps, rise) {
  if (latencies.length < steps) return false;
  const w = latencies.slice(-steps);
  for (let i = 1; i < w.length; i++) if (!(w[i] > w[i - 1])) return false;
  return w[w.length - 1] >= (1 + rise) * w[0];
}

function repetitions(plan, cfg, k, step, kind = 'rep') {
  const out = [];
  for (let r = 1; r <= plan.repetitions; r++) out.push(roundSpec(plan, cfg, k, step, `${kind}${r}`));
  return out;
}

/**
 * Scale-until-SLO (study §7.3, automated): from `startInstances` app instances and
 * `loadgensStart` loadgens (one request in flight each, `parallel`), add `loadgensStep`
 * loadgens per step. When the latency (slo.metric) passes slo.threshold, errors pass
 * slo.maxErrorRate, or the latency clearly climbs, scale the app by one instance and
 * measure the same load again. Stop at: the router's CPU reaching `routerLoad` of what it has
 * (study §7.3: Java stopped when the router reached 70 % load; measured locally only, on CF
 * the router's load is not observable and the rule cannot apply), CPU reaching the reference (`cpuReference`, cores
 * or the highest CPU seen for another app: the study stopped Node.js at Java's maximum),
 * router saturation (one more instance gave no more peak throughput: study's router at
 * its limit), `maxInstances`, or `loadgensMax` (study: 96, the database connection limit).
 * `cpuReferenceCores` is resolved by the runner before the generator starts.
 */
function* scaleUntilSlo(plan, cfg, { cpuReferenceCores = null } = {}) {
  const s = plan.scale;
  const slo = plan.slo;
  let k = s.startInstances;
  let loadgens = s.loadgensStart;
  const peak = new Map();
  let latencies = [];
  for (;;) {
    const step = { loadgens, parallel: s.parallel };
    const m = aggregate(yield repetitions(plan, cfg, k, step), slo.metric);
    peak.set(k, Math.max(peak.get(k) ?? 0, m.throughputRps));
    latencies.push(m.latencyMs);
    if (s.routerLoad !== null && m.routerCores !== null && m.routerCores >= s.routerLoad * m.routerAvailableCores) {
      const pct = (v) => `${(100 * v).toFixed(0)} %`;
      return { stop: 'router-load', reason: `router CPU ${m.routerCores.toFixed(2)} cores reached ${pct(s.routerLoad)} of its ${m.routerAvailableCores.toFixed(2)} (${pct(m.routerCores / m.routerAvailableCores)})`, instances: k, loadgens };
    }
    if (cpuReferenceCores !== null && m.cpuCores !== null && m.cpuCores >= cpuReferenceCores) {
      return { stop: 'cpu-reference', reason: `CPU ${m.cpuCores.toFixed(2)} cores reached the reference ${cpuReferenceCores.toFixed(2)}`, instances: k, loadgens };
    }
    const violated = m.latencyMs > slo.thresholdMs || m.errorRate > slo.maxErrorRate;
    if (violated || climbing(latencies, s.trendSteps, s.trendRise)) {
      if (s.routerSaturation && peak.has(k - 1) && k > s.startInstances && peak.get(k) <= peak.get(k - 1)) {
        return { stop: 'router-saturation', reason: `router saturation: ${k} instances gave no more throughput than ${k - 1}`, instances: k, loadgens };
      }
      if (k >= s.maxInstances) return { stop: 'max-instances', reason: `SLO passed at maxInstances ${s.maxInstances}`, instances: k, loadgens };
      k += 1;
      latencies = [];
      continue;
    }
    if (loadgens + s.loadgensStep > s.loadgensMax) return { stop: 'loadgens-max', reason: `loadgensMax ${s.loadgensMax} reached`, instances: k, loadgens };
    loadgens += s.loadgensStep;
  }
}

/** A probe meets the capacity criteria: p99 under the SLO, errors and late sends bounded. */
function capacityPass(m, plan) {
  return m.n > 0 && m.failed === 0 && m.p99Ms <= plan.slo.thresholdMs
    && m.errorRate <= plan.slo.maxErrorRate && m.lateFraction <= plan.capacity.maxLateFraction;
}

/**
 * Capacity search at k instances: bisection on the total open-model rate between
 * capacity.rateMin and rateMax (req/s over all loadgens) for the highest rate whose probe
 * passes capacityPass, until the bracket is narrower than `tolerance` (relative) or
 * `maxProbes` probes ran; then one soak round of soakDuration at that rate confirms it.
 */
function* capacitySearch(plan, cfg, k) {
  const c = plan.capacity;
  let lo = c.rateMin;
  let hi = c.rateMax;
  let best = null;
  const perLoadgen = (total) => Math.round((total / c.loadgens) * 100) / 100;
  for (let probe = 1; probe <= c.maxProbes && (hi - lo) / hi > c.tolerance; probe++) {
    const rate = perLoadgen(best === null && probe === 1 ? hi : (lo + hi) / 2);
    const step = { loadgens: c.loadgens, rate };
    const spec = roundSpec(plan, cfg, k, step, `probe${probe}`, capacityOverrides(plan, 'probe'));
    const m = aggregate(yield [spec], 'p99');
    if (capacityPass(m, plan)) { lo = rate * c.loadgens; best = rate; if (probe === 1) break; } else hi = rate * c.loadgens;
  }
  if (best === null) return { instances: k, capacityRps: null, confirmed: false, reason: `no rate from ${c.rateMin} req/s passed` };
  const soak = roundSpec(plan, cfg, k, { loadgens: c.loadgens, rate: best }, 'soak1', capacityOverrides(plan, 'soak'));
  const m = aggregate(yield [soak], 'p99');
  const confirmed = capacityPass(m, plan);
  return { instances: k, capacityRps: best * c.loadgens, confirmed, reason: confirmed ? 'soak confirmed' : 'soak failed the criteria' };
}

module.exports = { aggregate, climbing, scaleUntilSlo, capacityPass, capacitySearch };
