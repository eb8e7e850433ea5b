// study-claims.js — the claims table at the top of the results page: one row per finding of
// the study, the study's value, ours with its 95 % interval, and a verdict computed from the
// analyses of the study's plans (analysis.js): reproduced, not reproduced, or not measurable
// here, with the reason. The rules are stated beside each verdict on the page.
'use strict';
const { best, byApp, n0, n1, pct, reps, withCi } = require('./study-figures-page.js');

const REPRODUCED = 'reproduced';
const NOT_REPRODUCED = 'not reproduced';
const NOT_MEASURABLE = 'not measurable here';

// A host this busy (of its cores) had no CPU left to give: a figure that needs idle cores
// to show (an instance using what it has) is bounded by the host, not by the app.
const HOST_BOUND_SHARE = 0.9;
// "Near-linear" and "no deciding difference": within these of the ideal.
const LINEAR_MIN = 0.9;
const NO_DIFFERENCE_MAX = 0.1;

/** Mean busy cores of the host over an analysis's rounds of an app, and its cores. */
function hostLoad(a, app) {
  const rs = a.rounds.filter((r) => r.app === app && r.environment?.host_cpu);
  if (!rs.length) return null;
  const busy = rs.reduce((t, r) => t + r.environment.host_cpu.busy_cores, 0) / rs.length;
  return { busy, cores: Number(rs[0].environment.host_cpus) || null };
}

const hostBound = (h) => h && h.cores && h.busy >= HOST_BOUND_SHARE * h.cores;
const hostText = (h) => (h ? `the host's ${h.cores} cores were ${pct(h.busy / h.cores)} busy` : 'host load not recorded');

function missing(plan) {
  return { ours: 'no rounds', verdict: NOT_MEASURABLE, reason: `no trusted rounds of plan ${plan} (run scripts/run-experiment.sh --study)` };
}

/** Utilisation of the study's available CPU per instance count: "×1 97 % (CI 95-99), …". */
function utilisationText(rows) {
  return rows.map((r) => {
    const s = r.cpu_peak_pct;
    const ci = s.n >= 2 ? ` (CI ${pct(Math.max(0, s.ciLow) / r.study_available_pct)}–${pct(s.ciHigh / r.study_available_pct)})` : '';
    return `×${r.instances} ${pct(r.study_utilisation)}${ci}`;
  }).join(', ');
}

/** Utilisation of each instance's quota per instance count: "×1 99 % (CI 98–100), …" (the quota plans). */
function quotaText(rows) {
  return rows.map((r) => {
    const s = r.cpu_peak_pct;
    const ci = s.n >= 2 ? ` (CI ${pct(Math.max(0, s.ciLow) / r.cpu_available_pct)}–${pct(s.ciHigh / r.cpu_available_pct)})` : '';
    return `×${r.instances} ${pct(r.utilisation)}${ci}`;
  }).join(', ');
}

/**
 * Two readings of the CPU an instance has: with no quota (the study's notion: one core per
 * Node.js instance, the cell's cores per Java one; plan cpu-utilisation), which this host can
 * only give when it has cores to spare, and a quota (what the instance was given; the plan
 * that holds each instance to one, `quotaPlan`), which it always can.
 */
function cpuReadings(an, app, quotaPlan) {
  const a = an['cpu-utilisation'];
  const free = a?.cpuTable.filter((r) => r.app === app && r.study_utilisation !== null) ?? [];
  const quota = an[quotaPlan]?.cpuTable.filter((r) => r.app === app && r.utilisation !== null) ?? [];
  return { free, quota, host: a ? hostLoad(a, app) : null };
}

function nodeFullCpu(an) {
  const { free, quota, host } = cpuReadings(an, 'node-app', 'horizontal-efficiency');
  if (!free.length && !quota.length) return missing('cpu-utilisation');
  const ours = [quota.length && `of its quota: ${quotaText(quota)} (horizontal-efficiency)`,
    free.length && `of one core with no quota: ${utilisationText(free)} (cpu-utilisation)`].filter(Boolean).join('; ');
  const full = (rows, key) => rows.length && rows.every((r) => r[key] >= LINEAR_MIN);
  if (full(free, 'study_utilisation')) return { ours, verdict: REPRODUCED, reason: `every instance count at ≥ ${pct(LINEAR_MIN)} of one core` };
  if (full(quota, 'utilisation')) {
    return { ours, verdict: REPRODUCED, reason: `each instance used ≥ ${pct(LINEAR_MIN)} of the CPU it was given (a quota, as a single-threaded instance is held to one core)`
      + (hostBound(host) ? `; with no quota ${hostText(host)} and could not give it a whole core` : '') };
  }
  if (hostBound(host) && !quota.length) return { ours, verdict: NOT_MEASURABLE, reason: `${hostText(host)} (loadgens, databases, router on the same cores): the instances could not get a whole core each` };
  return { ours, verdict: NOT_REPRODUCED, reason: `below ${pct(LINEAR_MIN)} of what it had${host ? ` (${hostText(host)})` : ''}` };
}

function javaShare(an) {
  const { free, quota, host } = cpuReadings(an, 'java-app', 'java-quota-share');
  if (!free.length && !quota.length) return missing('cpu-utilisation');
  const ours = [quota.length && `of its quota: ${quotaText(quota)} (java-quota-share)`,
    free.length && `of the host's cores with no quota: ${utilisationText(free)} (cpu-utilisation)`].filter(Boolean).join('; ');
  const part = (rows, key) => rows.length && rows.every((r) => r[key] <= 0.7);
  if (part(free, 'study_utilisation') && !hostBound(host)) return { ours, verdict: REPRODUCED, reason: `Java left cores idle that the host had free (${hostText(host)})` };
  if (part(quota, 'utilisation')) return { ours, verdict: REPRODUCED, reason: 'Java left part of even a hard quota unused at saturation' };
  if (quota.length) {
    return { ours, verdict: NOT_REPRODUCED, reason: `given a hard quota Java used over 70 % of it${hostBound(host) ? `; the study's reading (a cell's cores under shares) needs idle cores, and ${hostText(host)}` : ''}` };
  }
  return { ours, verdict: hostBound(host) ? NOT_MEASURABLE : NOT_REPRODUCED, reason: hostBound(host) ? `${hostText(host)}: Java could not have used more` : 'Java used more than 70 % of the host\'s cores' };
}

function nodeLinear(an) {
  const a = an['horizontal-efficiency'];
  const rows = a?.efficiency.filter((e) => e.app === 'node-app' && e.instances > 1) ?? [];
  if (!rows.length) return missing('horizontal-efficiency');
  const ours = rows.map((e) => `k = ${e.instances}: ${e.value.toFixed(2)}${e.n >= 2 ? ` (CI ${Math.max(0, e.ciLow).toFixed(2)}–${e.ciHigh.toFixed(2)})` : ''}`).join(', ')
    + ` (X(1) = ${n0(rows[0].peak_rps_1)} req/s)`;
  const low = rows.reduce((m, e) => (e.value < m.value ? e : m));
  return low.value >= LINEAR_MIN
    ? { ours, verdict: REPRODUCED, reason: `X(k) / (k·X(1)) ≥ ${LINEAR_MIN} at every k, each instance at a fixed CPU quota` }
    : { ours, verdict: NOT_REPRODUCED, reason: `${low.value.toFixed(2)} at k = ${low.instances}` };
}

function keepalive(an) {
  const a = an.keepalive;
  const gs = a ? reps(a).filter((g) => g.front_proxies > 0) : [];
  if (!gs.length) return missing('keepalive');
  const parts = [];
  let lifted = true;
  for (const n of [...new Set(gs.map((g) => g.front_proxies))].sort()) {
    const on = best(gs.filter((g) => g.front_proxies === n && g.keepalive));
    const off = best(gs.filter((g) => g.front_proxies === n && !g.keepalive));
    if (!on || !off) continue;
    const ratio = on.stats.throughput_rps.mean / off.stats.throughput_rps.mean;
    lifted = lifted && ratio >= 2;
    parts.push(`${n} proxy(ies): ${withCi(off.stats.throughput_rps)} without, ${withCi(on.stats.throughput_rps)} with keep-alive (${n1(ratio)}×)`);
  }
  if (!parts.length) return missing('keepalive');
  return { ours: parts.join('; '), verdict: lifted ? REPRODUCED : NOT_REPRODUCED,
    reason: lifted ? 'keep-alive multiplies what a TLS proxy passes' : 'keep-alive gained less than 2×' };
}

/** The widest throughput difference between variants at one load, per app (pool sizes, threads, drivers). */
function variantSpread(a, plan) {
  const out = [];
  for (const app of ['java-app', 'node-app']) {
    const loads = [...new Set(byApp(reps(a), app).map((g) => g.load))];
    for (const load of loads) {
      const gs = byApp(reps(a), app).filter((g) => g.load === load);
      if (gs.length < 2) continue;
      const hi = best(gs);
      const lo = gs.reduce((m, g) => (g.stats.throughput_rps.mean < m.stats.throughput_rps.mean ? g : m));
      const c = a.comparisons.find((x) => x.metric === 'throughput_rps' && x.changed === 'variant' && [x.ga, x.gb].includes(hi) && [x.ga, x.gb].includes(lo));
      out.push({ app, load, hi, lo, spread: hi.stats.throughput_rps.mean / lo.stats.throughput_rps.mean - 1, significant: c?.verdict === 'significant', plan });
    }
  }
  return out;
}

function noDecidingDifference(plan, what) {
  return (an) => {
    const a = an[plan];
    const spreads = a ? variantSpread(a, plan) : [];
    if (!spreads.length) return missing(plan);
    const worst = spreads.reduce((m, s) => (s.spread > m.spread ? s : m));
    const ours = spreads.map((s) => `${s.app.replace('-app', '')} @${s.load}: ${s.hi.variant} ${pct(s.spread)} above ${s.lo.variant}${s.significant ? '' : ' (noise)'}`).join('; ');
    const decides = spreads.some((s) => s.significant && s.spread > NO_DIFFERENCE_MAX);
    return decides
      ? { ours, verdict: NOT_REPRODUCED, reason: `${what} decides: ${worst.hi.variant} serves ${pct(worst.spread)} more than ${worst.lo.variant} (${worst.app}, ${worst.load} in flight), a significant difference` }
      : { ours, verdict: REPRODUCED, reason: `every difference within the noise or under ${pct(NO_DIFFERENCE_MAX)}` };
  };
}

function nativeDriver(an) {
  const a = an['node-driver'];
  const spreads = a ? variantSpread(a, 'node-driver') : [];
  if (!spreads.length) return missing('node-driver');
  const parts = spreads.map((s) => {
    const native = [s.hi, s.lo].find((g) => g.variant === 'native');
    const js = [s.hi, s.lo].find((g) => g.variant === 'js');
    return { s, ratio: native.stats.throughput_rps.mean / js.stats.throughput_rps.mean, native, js };
  });
  const ours = parts.map((p) => `@${p.s.load}: native ${withCi(p.native.stats.throughput_rps)}, js ${withCi(p.js.stats.throughput_rps)} (${p.ratio >= 1 ? '+' : ''}${pct(p.ratio - 1)})`).join('; ');
  const faster = parts.every((p) => p.ratio > 1 && p.s.significant);
  return { ours, verdict: faster ? REPRODUCED : NOT_REPRODUCED,
    reason: faster ? 'pg-native serves significantly more (throughput, not parsing speed alone)' : 'pg-native is not significantly faster at the app\'s throughput' };
}

function memoryNeeded(an) {
  const used = (app) => {
    const vals = ['memory-needed', 'throughput-vs-cpu'].flatMap((p) => (an[p] ? byApp(reps(an[p]), app) : []))
      .filter((g) => g.stats.mem_mb.n).map((g) => g.stats.mem_mb.mean / g.app_instances);
    return vals.length ? Math.max(...vals) : null;
  };
  const j = used('java-app');
  const n = used('node-app');
  if (j === null || n === null) return missing('memory-needed');
  const ours = `at most ${n0(n)} MiB per Node.js instance, ${n0(j)} MiB per Java instance (${n1(j / n)}×)`;
  const ok = n <= 100 && j >= 2 * n;
  return { ours, verdict: ok ? REPRODUCED : NOT_REPRODUCED,
    reason: ok ? 'Node.js within 100 MiB, Java over twice as much' : n > 100 ? 'Node.js used more than 100 MiB' : 'Java used less than twice Node.js\'s memory' };
}

function perCore(an) {
  const a = an['cpu-100'];
  if (!a) return missing('cpu-100');
  const top = (app) => best(reps(a).filter((g) => g.app === app && g.slo_met && g.stats.rps_per_core.n), 'rps_per_core');
  const j = top('java-app');
  const n = top('node-app');
  if (!j || !n) return { ours: 'no load step of both apps met the SLO', verdict: NOT_MEASURABLE, reason: 'no comparable steps' };
  const ours = `Java ${withCi(j.stats.rps_per_core, 'req/s per core')}, Node.js ${withCi(n.stats.rps_per_core, 'req/s per core')}`;
  const more = j.stats.rps_per_core.ciLow > n.stats.rps_per_core.ciHigh;
  return { ours, verdict: more ? REPRODUCED : NOT_REPRODUCED, reason: more ? 'Java\'s interval above Node.js\'s' : 'Java is not clearly ahead per core' };
}

// [finding, where in the study, the study's value, ours(analyses by plan name)]
const CLAIMS = [
  ['Node.js uses about 100 % of its CPU per instance at saturation', 'Table 7.1', '94–103 % of one core, 1–5 instances', nodeFullCpu],
  ['Java uses only part of the CPU it has', 'Table 7.1', '57 %, 45 %, 35 % of the cell\'s cores at 1, 2, 3 instances', javaShare],
  ['Node.js scales out near-linearly', '§7.3.2', 'steady utilisation > 90 %, throughput linear per CPU; X(k) / (k·X(1)) not published', nodeLinear],
  ['Keep-alive lifts the TLS proxies\' cap', '§5.2.3', 'about 100 req/s per proxy without it (4 proxies: ~400 req/s); far more with it', keepalive],
  ['The pool size (30 / 60 / 90) is not a deciding bottleneck', 'Fig. 6.2', 'slight differences only', noDecidingDifference('pool-size', 'the pool size')],
  ['Jetty\'s thread pool (10–400) does not decide throughput', '§6.2', 'sizes set per Jetty\'s advice; no difference reported', noDecidingDifference('jetty-threads', 'the thread pool size')],
  ['pg-native is faster than pg', '§6.3', '20–30 % faster parsing (pg\'s author)', nativeDriver],
  ['Node.js needs far less memory than Java', 'Fig. 4.3, §4.1.3', 'Node.js at most ~100 MB; Java much more', memoryNeeded],
  ['Java serves more per CPU than Node.js', 'Fig. 7.1', 'more throughput at the same CPU', perCore],
].map(([finding, cite, study, judge]) => ({ finding, cite, study, judge }));

/** [{finding, cite, study, ours, verdict, reason}] from the analyses by plan name. */
function claimRows(analyses) {
  return CLAIMS.map((c) => ({ finding: c.finding, cite: c.cite, study: c.study, ...c.judge(analyses) }));
}

module.exports = { claimRows, CLAIMS, REPRODUCED, NOT_REPRODUCED, NOT_MEASURABLE, HOST_BOUND_SHARE, LINEAR_MIN, NO_DIFFERENCE_MAX };
