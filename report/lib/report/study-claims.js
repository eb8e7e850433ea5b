// study-claims.js — the claims table of the results page: per finding of the study (and two
// experiments of our own, marked so) its kind, its threshold and the groups it compares,
// judged by the verdict engine (lib/verdict.js) on the per-round values of the study's
// plans (claim-points.js). Each row: the verdict, its reason, n_min (rounds on the smaller
// side behind it) and ci_halfwidth_pct (the widest 95 % CI behind it, % of its mean).
'use strict';
const V = require('../../../lib/verdict.js');
const { claimRoundsNeeded } = require('../../../lib/rounds-needed.js');
const { METRICS } = require('./analysis.js');
const P = require('./claim-points.js');

// "About 100 %" and "near-linear": at least this share of the CPU available, of k·X(1).
const LINEAR_MIN = 0.9;
// "Only part of the CPU": at most this share of it.
const PART_MAX = 0.7;
// Without CPUs of its own for the system under test, a host this busy (of its cores) has no
// core to spare: what an instance would use with more cannot be shown.
const HOST_BOUND_SHARE = 0.9;
// study §5.2.3: keep-alive lifts the proxies' cap "far": at least this factor.
const KEEPALIVE_GAIN_MIN = 2;
// study §4.1.3: a Node.js app needs at most about 100 MB.
const NODE_MEMORY_MAX_MIB = 100;
// "Far less memory": Java's per instance at least this many times Node.js's.
const JAVA_MEMORY_FACTOR_MIN = 2;
// "A is faster / serves more": the ratio A / B at least this (its low end, rule 3). A
// difference inside the equivalence margin is "no deciding difference" (rule 2), so "faster"
// means by more than it: contradicted when even the high end is below 1 + the margin.
const FASTER_MIN = 1 + V.EQUIVALENCE_MARGIN;

const CLAIM_RULES = Object.freeze({ LINEAR_MIN, PART_MAX, HOST_BOUND_SHARE, KEEPALIVE_GAIN_MIN, NODE_MEMORY_MAX_MIB, JAVA_MEMORY_FACTOR_MIN, FASTER_MIN });

/**
 * The claim's verdict over its points, its figures and, undecided, the rounds a side its
 * points would need at this noise (lib/rounds-needed.js); no points: inconclusive, why.
 */
function judged(points, none) {
  if (!points.length) return { ours: 'no rounds', ...V.noData(none), rounds_needed: NaN };
  const claim = V.combine(points);
  return { ours: points.map(P.pointText).join('; '), ...claim, rounds_needed: claimRoundsNeeded(claim, points) };
}

const noRounds = (...plans) => `no trusted rounds of plan ${plans.join(', ')} (run scripts/run-experiment.sh --study)`;
const side = (a, g, label, read) => ({ label, values: P.perRound(a, g, read) });

function nodeFullCpu(an) {
  const opts = { direction: 'at least', threshold: LINEAR_MIN };
  return judged([...P.quotaShares(an['horizontal-efficiency'], 'node-app', opts),
    ...P.quotaShares(an['cpu-utilisation'], 'node-app', opts, { quotedOnly: true }),
    ...P.studyShares(an['cpu-utilisation'], 'node-app', opts, HOST_BOUND_SHARE)], noRounds('horizontal-efficiency', 'cpu-utilisation'));
}

function javaShare(an) {
  const opts = { direction: 'at most', threshold: PART_MAX };
  return judged([...P.studyShares(an['cpu-utilisation'], 'java-app', opts, HOST_BOUND_SHARE),
    ...P.quotaShares(an['cpu-utilisation'], 'java-app', opts, { quotedOnly: true }),
    ...P.quotaShares(an['java-quota-share'], 'java-app', opts)], noRounds('cpu-utilisation', 'java-quota-share'));
}

function nodeLinear(an) {
  const a = an['horizontal-efficiency'];
  const gs = a ? P.topLoadByK(a, 'node-app') : [];
  const one = gs.find((g) => g.app_instances === 1);
  const points = one ? gs.filter((g) => g.app_instances > 1).map((g) => P.point(`k = ${g.app_instances}`, 'number',
    V.ratioVersus(side(a, one, 'X(1)', METRICS.throughput_rps), side(a, g, `X(${g.app_instances})`, METRICS.throughput_rps),
      { scale: 1 / g.app_instances, direction: 'at least', threshold: LINEAR_MIN, name: `X(${g.app_instances}) / (${g.app_instances}·X(1))`, voidable: true }))) : [];
  return judged(points, noRounds('horizontal-efficiency'));
}

function keepalive(an) {
  const a = an.keepalive;
  const gs = a ? P.reps(a).filter((g) => g.front_proxies > 0) : [];
  const points = [];
  for (const n of P.distinct(gs.map((g) => g.front_proxies))) {
    const loads = P.distinct(gs.filter((g) => g.front_proxies === n).map((g) => g.load));
    const both = loads.filter((l) => gs.some((g) => g.front_proxies === n && g.load === l && g.keepalive) && gs.some((g) => g.front_proxies === n && g.load === l && !g.keepalive));
    if (!both.length) continue;
    const at = (ka) => gs.find((g) => g.front_proxies === n && g.load === both[both.length - 1] && g.keepalive === ka);
    points.push(P.point(`${n} proxy(ies)`, 'ratio', V.ratioVersus(side(a, at(false), 'without', METRICS.throughput_rps),
      side(a, at(true), 'with keep-alive', METRICS.throughput_rps), { direction: 'at least', threshold: KEEPALIVE_GAIN_MIN })));
  }
  return judged(points, noRounds('keepalive'));
}

const equivalentVariants = (plan) => (an) => judged(P.variantPairs(an[plan]), noRounds(plan));

function nativeDriver(an) {
  const a = an['node-driver'];
  const points = [];
  for (const gs of (a ? P.groupBy(P.reps(a), (g) => `${g.app_instances}|${g.load}`) : new Map()).values()) {
    const js = gs.find((g) => g.variant === 'js');
    const native = gs.find((g) => g.variant === 'native');
    if (!js || !native) continue;
    points.push(P.point(`@${js.load}`, 'ratio', V.ratioVersus(side(a, js, 'pg', METRICS.throughput_rps),
      side(a, native, 'pg-native', METRICS.throughput_rps), { direction: 'at least', threshold: FASTER_MIN })));
  }
  return judged(points, noRounds('node-driver'));
}

const memPerInstance = (r) => (METRICS.mem_mb(r) === null ? null : METRICS.mem_mb(r) / r.app_instances);

// Decided on cpu-100's rounds: both apps, one instance each at the same quota and load, 5 rounds
// each in randomised blocks (memory-needed's sizes are a figure, 2 rounds each).
function memoryNeeded(an) {
  const points = [];
  const a = an['cpu-100'];
  for (const g of (a ? P.reps(a) : []).filter((x) => x.app === 'node-app')) {
    points.push(P.point(`node ×${g.app_instances} @${g.load}`, 'MiB',
      V.meanVersus(side(a, g, 'node-app MiB per instance', memPerInstance), { direction: 'at most', threshold: NODE_MEMORY_MAX_MIB })));
  }
  for (const gs of (a ? P.groupBy(P.reps(a), (g) => `${g.app_instances}|${g.load}`) : new Map()).values()) {
    const [j, n] = ['java-app', 'node-app'].map((app) => gs.find((g) => g.app === app));
    if (!j || !n) continue;
    points.push(P.point(`java / node ×${j.app_instances} @${j.load}`, 'ratio', V.ratioVersus(side(a, n, 'node', memPerInstance),
      side(a, j, 'java', memPerInstance), { direction: 'at least', threshold: JAVA_MEMORY_FACTOR_MIN, name: 'Java / Node.js memory per instance' })));
  }
  return judged(points, noRounds('cpu-100'));
}

function perCore(an) {
  const a = an['cpu-100'];
  const ok = (g) => g && g.slo_met === true && g.stats.cpu_used_pct.n && g.stats.cpu_used_pct.mean <= 100 * g.app_instances;
  const points = [];
  for (const gs of (a ? P.groupBy(P.reps(a), (g) => `${g.app_instances}|${g.load}`) : new Map()).values()) {
    const [j, n] = ['java-app', 'node-app'].map((app) => gs.find((g) => g.app === app));
    if (!ok(j) || !ok(n)) continue;
    points.push(P.point(`×${j.app_instances} @${j.load}`, 'ratio', V.ratioVersus(side(a, n, 'Node.js', METRICS.rps_per_core),
      side(a, j, 'Java', METRICS.rps_per_core), { direction: 'at least', threshold: FASTER_MIN, name: 'Java / Node.js req/s per core' })));
  }
  return judged(points, a ? 'no load step at which both apps met the SLO at ≤ 100 % CPU per instance' : noRounds('cpu-100'));
}

// [finding, where in the study, the study's value, kind and threshold, the groups it
// compares, our own experiment (not the study's finding), judge(analyses by plan name)]
const CLAIMS = [
  ['Node.js uses about 100 % of its CPU per instance at saturation', 'Table 7.1', '94–103 % of one core, 1–5 instances',
    `at least ${LINEAR_MIN} of the CPU available (window mean)`, 'per instance count at the top load: CPU / quota (horizontal-efficiency; cpu-utilisation under a quota); CPU / one core per instance, no quota (cpu-utilisation)', false, nodeFullCpu],
  ['Java uses only part of the CPU it has', 'Table 7.1', '57 %, 45 %, 35 % of the cell\'s cores at 1, 2, 3 instances',
    `at most ${PART_MAX} of the CPU available (window mean)`, 'per instance count at the top load: CPU / the cell\'s cores, no quota (cpu-utilisation); CPU / quota (cpu-utilisation under a quota, java-quota-share)', false, javaShare],
  ['Node.js scales out near-linearly', '§7.3.2', 'steady utilisation > 90 %, throughput linear per CPU; X(k) / (k·X(1)) not published',
    `X(k) / (k·X(1)) at least ${LINEAR_MIN}`, 'throughput at k instances against one, at the top load, each instance at a fixed CPU quota (horizontal-efficiency)', false, nodeLinear],
  ['Keep-alive lifts the TLS proxies\' cap', '§5.2.3', 'about 100 req/s per proxy without it (4 proxies: ~400 req/s); far more with it',
    `with / without at least ${KEEPALIVE_GAIN_MIN}×`, 'throughput with and without keep-alive per proxy count, at the top load both ran (keepalive)', false, keepalive],
  ['The pool size (30 / 60 / 90) is not a deciding bottleneck', 'Fig. 6.2', 'slight differences only',
    'equivalent within the margin', 'throughput of every pair of pool sizes at one app and load (pool-size)', false, equivalentVariants('pool-size')],
  ['Jetty\'s thread pool (10–400) does not decide throughput', '§6.2', 'sizes set per Jetty\'s advice; the study compared none',
    'equivalent within the margin', 'throughput of every pair of thread pool sizes at one load (jetty-threads)', true, equivalentVariants('jetty-threads')],
  ['pg-native serves more than pg', '§6.3', 'not measured: the 20–30 % is pg\'s author\'s parsing speed, not an app\'s throughput',
    `pg-native / pg at least ${FASTER_MIN}`, 'throughput of node-app with each driver at one load (node-driver)', true, nativeDriver],
  ['Node.js needs far less memory than Java', 'Fig. 4.3, §4.1.3', 'Node.js at most ~100 MB; Java much more',
    `Node.js at most ${NODE_MEMORY_MAX_MIB} MiB; Java / Node.js at least ${JAVA_MEMORY_FACTOR_MIN}×`, 'window-mean memory per instance of every Node.js group; Java against Node.js at one instance count and load (cpu-100)', false, memoryNeeded],
  ['Java serves more per CPU than Node.js', 'Fig. 7.1', 'more throughput at the same CPU',
    `Java / Node.js at least ${FASTER_MIN}`, 'req/s per core used at each instance count and load where both met the SLO at ≤ 100 % CPU per instance (cpu-100)', false, perCore],
].map(([finding, cite, study, test, compares, own, judge]) => ({ finding, cite, study, test, compares, own, judge }));

/** [{finding, cite, study, test, compares, own, ours, verdict, reason, n_min, ci_halfwidth_pct, rounds_needed}] from the analyses by plan name. */
function claimRows(analyses) {
  return CLAIMS.map(({ judge, ...c }) => {
    const { ours, verdict, reason, n_min, ci_halfwidth_pct, rounds_needed } = judge(analyses);
    return { ...c, ours, verdict, reason, n_min, ci_halfwidth_pct, rounds_needed };
  });
}

module.exports = { claimRows, CLAIMS, CLAIM_RULES, ...CLAIM_RULES };
