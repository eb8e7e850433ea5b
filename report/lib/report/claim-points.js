// claim-points.js — the points a claim of the results page is judged on (study-claims.js):
// per point the per-round values of the groups it compares (the round is the unit of
// replication), handed to the verdict engine (lib/verdict.js), and the point's figure as
// the claims table prints it. CPU is the mean over the measured window, never a peak.
'use strict';
const V = require('../../../lib/verdict.js');
const { METRICS } = require('./analysis.js');
const { STUDY, studyAvailableCores } = require('./study.js');

const reps = (a) => a.groups.filter((g) => g.kind === 'rep');
const distinct = (xs) => [...new Set(xs)].sort((x, y) => (x < y ? -1 : x > y ? 1 : 0));
const short = (app) => app.replace(/-app$/, '');

/** The per-round values of a group's trusted rounds, read by `read` (a METRICS function). */
function perRound(a, g, read) {
  const ids = new Set(g.round_ids.map(Number));
  return a.rounds.filter((r) => ids.has(Number(r.round_id))).map(read)
    .filter((v) => v !== null && v !== undefined && Number.isFinite(v));
}

/** Per instance count, the group of an app at the plan's heaviest load (saturation by design). */
function topLoadByK(a, app) {
  const out = new Map();
  for (const g of reps(a).filter((x) => x.app === app)) {
    const cur = out.get(g.app_instances);
    if (!cur || g.load > cur.load) out.set(g.app_instances, g);
  }
  return [...out.entries()].sort((x, y) => x[0] - y[0]).map(([, g]) => g);
}

/** Mean busy cores of the host over an analysis's rounds of an app, and its cores. */
function hostLoad(a, app) {
  const rs = a.rounds.filter((r) => r.app === app && r.environment?.host_cpu);
  if (!rs.length) return null;
  const busy = rs.reduce((t, r) => t + r.environment.host_cpu.busy_cores, 0) / rs.length;
  return { busy, cores: Number(rs[0].environment.host_cpus) || null };
}

/** A point: where in the plan, the verdict on it, and how its figure is printed. */
const point = (label, unit, verdict) => ({ label, unit, ...verdict });

/** A group whose rounds ran without a CPU quota (their share is of a cell, studyShares). */
const unquoted = (a, g) => !perRound(a, g, (r) => (r.cpu_available_cores > 0 ? r.cpu_available_cores : null)).length;

/**
 * Per k at the top load: the window-mean CPU as a share of the instances' quota, summed —
 * never more than the CPUs of the system under test (sut_cpus; locally, not recorded, the host's).
 * quotedOnly: of a plan that runs with or without a quota by scale (cpu-utilisation), only the
 * groups that had one (the others read as studyShares).
 */
function quotaShares(a, app, opts, { quotedOnly = false } = {}) {
  if (!a) return [];
  return topLoadByK(a, app).filter((g) => !quotedOnly || !unquoted(a, g)).map((g) => {
    const cap = g.sut_cpus ?? (g.platform === 'cf' ? null : g.host_cpus);
    const share = (r) => (r.cpu_used_cores === null || !(r.cpu_available_cores > 0) ? null : r.cpu_used_cores / Math.min(r.cpu_available_cores, cap > 0 ? cap : Infinity));
    return point(`×${g.app_instances} of its quota`, 'share',
      V.meanVersus({ label: `${short(app)} ×${g.app_instances}`, values: perRound(a, g, share) }, { ...opts, voidable: true }));
  });
}

/**
 * Per k at the top load: the window-mean CPU as a share of the study's available CPU (one
 * core per Node.js instance, a cell's cores per Java one), when this platform can give it:
 * not over the CPUs of the system under test, a multi-core cell for the JVM, and (without
 * CPUs of its own for the system under test) a host with cores to spare.
 */
function studyShares(a, app, opts, hostBoundShare) {
  if (!a) return [];
  const host = hostLoad(a, app);
  // The study's reading is of instances with no quota (a cell's shares): rounds held to a quota
  // read as quotaShares, not here.
  return topLoadByK(a, app).filter((g) => unquoted(a, g)).map((g) => {
    const k = g.app_instances;
    const cap = g.sut_cpus ?? (g.platform === 'cf' ? null : g.host_cpus);
    const st = studyAvailableCores(app, k, g.platform === 'cf' ? null : cap, cap);
    const label = `×${k} of ${st.basis.replace(/, capped.*/, '')}`;
    if (app === 'java-app' && cap !== null && cap < 2) {
      return point(label, 'share', V.notMeasurable(`the JVM on a multi-core cell (study: ${STUDY.cellCores.value} cores, ${STUDY.cellCores.cite}) cannot be shown on the ${cap} CPU of the system under test`));
    }
    if (st.capped) return point(label, 'share', V.notMeasurable(`the study's ${st.wanted} core(s) for ${k} instance(s); the system under test had ${cap}`));
    if (!g.sut_cpus && host?.cores && host.busy >= hostBoundShare * host.cores) {
      return point(label, 'share', V.notMeasurable(`the host's ${host.cores} cores were ${Math.round(100 * host.busy / host.cores)} % busy (harness and system under test on the same cores): no core to spare`));
    }
    const values = perRound(a, g, METRICS.cpu_used_pct).map((x) => x / (100 * st.cores));
    return point(label, 'share', V.meanVersus({ label: `${short(app)} ×${k}`, values }, { ...opts, voidable: true }));
  });
}

/** Groups of a plan by a key (a string per group), each list sorted by variant. */
function groupBy(gs, key) {
  const m = new Map();
  for (const g of gs) {
    const k = key(g);
    if (!m.has(k)) m.set(k, []);
    m.get(k).push(g);
  }
  for (const list of m.values()) list.sort((x, y) => (x.variant < y.variant ? -1 : 1));
  return m;
}

/** Every pair of variants at one app, instance count and load: equivalent throughput. */
function variantPairs(a) {
  if (!a) return [];
  const out = [];
  const points = groupBy(reps(a), (g) => `${g.app}|${g.app_instances}|${g.load}`);
  for (const gs of points.values()) {
    for (let i = 0; i < gs.length; i++) {
      for (let j = i + 1; j < gs.length; j++) {
        const [x, y] = [gs[i], gs[j]];
        const side = (g) => ({ label: g.variant, values: perRound(a, g, METRICS.throughput_rps) });
        out.push(point(`${short(x.app)} @${x.load}: ${x.variant} vs ${y.variant}`, 'rel', V.equivalent(side(x), side(y))));
      }
    }
  }
  return out;
}

/** The figure of a point as the claims table prints it: value, CI, rounds. */
function pointText(p) {
  if (p.verdict === V.NOT_MEASURABLE) return `${p.label}: not measurable here`;
  const e = p.estimate;
  const n = `n = ${p.sides.map((s) => s.n).join(', ')}`;
  if (!e || !Number.isFinite(e.value)) return `${p.label}: no value (${n})`;
  const f = {
    share: (x) => `${Math.round(100 * x)} %`,
    rel: (x) => `${x >= 0 ? '+' : '−'}${Math.round(100 * Math.abs(x))} %`,
    ratio: (x) => `${x.toFixed(2)}×`,
    number: (x) => x.toFixed(2),
    MiB: (x) => `${Math.round(x)} MiB`,
  }[p.unit];
  const ci = Number.isFinite(e.lo) && Number.isFinite(e.hi) ? `${Math.round(100 * e.confidence)} % CI ${f(e.lo)} to ${f(e.hi)}, ` : '';
  return `${p.label}: ${f(e.value)} (${ci}${n})`.replace(/(^|[ (])-(?=\d)/g, '$1−');
}

module.exports = { reps, distinct, short, perRound, topLoadByK, hostLoad, point, quotaShares, studyShares, groupBy, variantPairs, pointText };
