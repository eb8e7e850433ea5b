// verdict.js — the verdict engine: whether a claim holds on repeated rounds. One verdict of
// four: reproduced, contradicted, inconclusive, or not measurable here (the caller's, with
// its reason). The round is the unit of replication, never the request: a side is the list
// of per-round values of one group. Shared by the results page (report/lib/report/
// study-claims.js) and `scripts/compare.sh` (same / different / unknown). Pure functions.
//
// How the field decides, and what is taken here:
// - benchstat (golang.org/x/perf): a Mann-Whitney U test at α = 0.05, "~" when p > α; it
//   asks for 10 runs a side. A p value alone never says "the same"; here "the same" needs
//   an equivalence test.
// - criterion.rs: a bootstrap CI of the relative change, and a noise threshold (±1 %) that
//   a change must clear with its whole CI: the CI, not the point, is compared to a margin.
// - Chromium Pinpoint: same / different / unknown, "unknown" until enough repetitions
//   decide; compare.sh prints those three words.
// - Kalibera & Jones 2013 ("Rigorous benchmarking in reasonable time"): report a ratio of
//   means with an effect-size CI (Fieller), replicate at the level where the variance is
//   (here: rounds).
// - Georges, Buytaert & Eeckhout 2007 ("Statistically rigorous Java performance
//   evaluation"): CIs over VM invocations, not iterations; overlapping CIs decide nothing.
// - TOST (Schuirmann 1987): two one-sided tests at α = 0.05 = the 90 % CI inside the margin.
//
// The rules, as implemented (every constant below is printed under the claims table):
// 1. Any side with n < MIN_ROUNDS, or a SIDE_CONFIDENCE (95 %) CI half-width above
//    MAX_CI_HALFWIDTH of its mean, is inconclusive: such data cannot tell 10 % apart.
// 2. "No deciding difference" (equivalent): the relative difference B/A − 1 with its
//    EQUIVALENCE_CONFIDENCE (90 %) CI — Fieller's interval of the ratio of means, Welch df
//    (lib/inference.js ratioOfMeans). Reproduced when the CI lies inside ±EQUIVALENCE_MARGIN,
//    contradicted when it lies entirely outside, inconclusive otherwise.
// 3. "At least X" / "at most X" (A faster: the ratio at least 1; efficiency at least 0.9):
//    the BOUND_CONFIDENCE (95 %) two-sided CI of the estimate, so that each decision is a
//    one-sided test at 2.5 % and the page's 95 % intervals show why. Reproduced when the
//    bound on the claim's side clears X (at least: low ≥ X; at most: high ≤ X);
//    contradicted when the opposite bound is on the wrong side (at least: high < X; at
//    most: low > X); inconclusive when the CI straddles X. Never the point estimate.
// 4. An efficiency or a share of a quota above VOID_ABOVE voids the reading (a denominator
//    below what was really available: a bad baseline): inconclusive, not a pass.
'use strict';
const { ratioOfMeans, summarize } = require('./inference.js');

const REPRODUCED = 'reproduced';
const CONTRADICTED = 'contradicted';
const INCONCLUSIVE = 'inconclusive';
const NOT_MEASURABLE = 'not measurable here';
const VERDICTS = Object.freeze([REPRODUCED, CONTRADICTED, INCONCLUSIVE, NOT_MEASURABLE]);

/** Rounds a side needs before any verdict. */
const MIN_ROUNDS = 5;
/** The CI of a side's own mean that MAX_CI_HALFWIDTH bounds (rule 1). */
const SIDE_CONFIDENCE = 0.95;
/** The widest CI half-width a side may have, as a fraction of its mean. */
const MAX_CI_HALFWIDTH = 0.10;
/** "No deciding difference": the relative difference's CI within ± this. */
const EQUIVALENCE_MARGIN = 0.10;
/** The CI of an equivalence test (TOST at α = 0.05 a side). */
const EQUIVALENCE_CONFIDENCE = 0.90;
/** The CI whose bound decides an "at least" / "at most" claim. */
const BOUND_CONFIDENCE = 0.95;
/** An efficiency or a share of a quota above this is a bad baseline, not a pass. */
const VOID_ABOVE = 1.1;

const RULES = Object.freeze({ MIN_ROUNDS, MAX_CI_HALFWIDTH, SIDE_CONFIDENCE, EQUIVALENCE_MARGIN, EQUIVALENCE_CONFIDENCE, BOUND_CONFIDENCE, VOID_ABOVE });

const pct = (x) => `${(100 * x).toFixed(Math.abs(x) < 0.1 ? 1 : 0)} %`;
const signed = (x) => `${x >= 0 ? '+' : '−'}${pct(Math.abs(x))}`;
const num = (x) => (Math.abs(x) >= 100 ? x.toFixed(0) : Math.abs(x) >= 10 ? x.toFixed(1) : x.toFixed(2)).replace(/^-/, '−');

/** A side: {label, values} → n, mean, its 95 % CI half-width and sd as fractions of the mean. */
function side({ label, values }) {
  const s = summarize(values, SIDE_CONFIDENCE);
  const rel = (x) => (s.n >= 2 ? x / Math.abs(s.mean) : NaN);
  return { label, n: s.n, mean: s.mean, ciLow: s.ciLow, ciHigh: s.ciHigh, halfWidthRel: rel(s.halfWidth), cv: rel(s.sd) };
}

/** Rule 1: why these sides cannot decide anything ([] when they can). */
function gateReasons(sides) {
  const out = [];
  for (const s of sides) {
    if (s.n < MIN_ROUNDS) out.push(`${s.label}: n = ${s.n} < ${MIN_ROUNDS} rounds`);
    else if (!(s.halfWidthRel <= MAX_CI_HALFWIDTH)) out.push(`${s.label}: ${pct(SIDE_CONFIDENCE)} CI ±${pct(s.halfWidthRel)} of its mean > ±${pct(MAX_CI_HALFWIDTH)}`);
  }
  return out;
}

/**
 * A verdict with what it rests on: rounds on the smaller side, the widest CI in % of its mean;
 * gap: an inconclusive point's estimate's relative distance to the line it is judged
 * against and that CI's confidence (what lib/rounds-needed.js projects from), else null.
 */
function result(verdict, reason, sides, estimate = null, gap = null) {
  const widths = sides.map((s) => s.halfWidthRel);
  return {
    verdict, reason, estimate, sides, gap: verdict === INCONCLUSIVE ? gap : null,
    n_min: sides.length ? Math.min(...sides.map((s) => s.n)) : null,
    ci_halfwidth_pct: widths.length && widths.every(Number.isFinite) ? Math.round(1000 * Math.max(...widths)) / 10 : null,
  };
}

/** The caller's verdict when the platform cannot show a claim: carried with its reason. */
function notMeasurable(reason) {
  return result(NOT_MEASURABLE, reason, []);
}

/** Nothing to judge (no trusted rounds, no comparable step): inconclusive, on 0 rounds. */
function noData(reason) {
  return { ...result(INCONCLUSIVE, reason, []), n_min: 0 };
}

/** The relative difference B/A − 1 with its CI (Fieller), as {value, lo, hi, confidence}. */
function relativeDifference(a, b, confidence) {
  const r = ratioOfMeans(a, b, confidence);
  return { value: r.ratio - 1, lo: r.ciLow - 1, hi: r.ciHigh - 1, confidence };
}

/** Rule 2: a and b ({label, values}) equivalent within ±EQUIVALENCE_MARGIN. */
function equivalent(a, b) {
  const sides = [side(a), side(b)];
  const est = relativeDifference(a.values, b.values, EQUIVALENCE_CONFIDENCE);
  const m = EQUIVALENCE_MARGIN;
  // The CI of B/A must shrink past the margin's edge nearest the estimate.
  const gap = { distance: Math.abs(m - Math.abs(est.value)) / (1 + est.value), confidence: EQUIVALENCE_CONFIDENCE };
  const gate = gateReasons(sides);
  if (gate.length) return result(INCONCLUSIVE, gate.join('; '), sides, est, gap);
  const ci = `${b.label} / ${a.label} − 1 = ${signed(est.value)} (90 % CI ${signed(est.lo)} to ${signed(est.hi)})`;
  if (est.lo >= -m && est.hi <= m) return result(REPRODUCED, `${ci}, inside ±${pct(m)}`, sides, est);
  if (est.lo > m || est.hi < -m) return result(CONTRADICTED, `${ci}, entirely outside ±${pct(m)}`, sides, est);
  return result(INCONCLUSIVE, `${ci}: neither inside nor outside ±${pct(m)}`, sides, est, gap);
}

/**
 * Rule 3 (and 4 when `voidable`): an estimate {value, lo, hi} (95 % CI) against `threshold`
 * in `direction` 'at least' | 'at most'; `name` says what the estimate is.
 */
function bound(sides, est, { direction, threshold, name, voidable = false }) {
  const reasons = gateReasons(sides);
  const voided = voidable && est.value > VOID_ABOVE;
  if (voided) reasons.push(`${name} ${num(est.value)} > ${VOID_ABOVE}: a bad baseline voids the reading`);
  // A voided reading is not a matter of rounds: no distance to project from.
  const gap = { distance: voided ? NaN : Math.abs(est.value - threshold) / Math.abs(est.value), confidence: BOUND_CONFIDENCE };
  if (reasons.length) return result(INCONCLUSIVE, reasons.join('; '), sides, est, gap);
  const ci = `${name} ${num(est.value)} (95 % CI ${num(est.lo)} to ${num(est.hi)})`;
  const atLeast = direction === 'at least';
  const claimSide = atLeast ? est.lo : est.hi;
  const other = atLeast ? est.hi : est.lo;
  if (atLeast ? claimSide >= threshold : claimSide <= threshold) return result(REPRODUCED, `${ci}: ${atLeast ? 'low' : 'high'} end ${direction} ${threshold}`, sides, est);
  if (atLeast ? other < threshold : other > threshold) return result(CONTRADICTED, `${ci}: even the ${atLeast ? 'high' : 'low'} end ${atLeast ? 'below' : 'above'} ${threshold}`, sides, est);
  return result(INCONCLUSIVE, `${ci} straddles ${threshold}`, sides, est, gap);
}

/** One group's mean ({label, values}) at least / at most a threshold. */
function meanVersus(group, opts) {
  const s = summarize(group.values, BOUND_CONFIDENCE);
  return bound([side(group)], { value: s.mean, lo: s.ciLow, hi: s.ciHigh, confidence: BOUND_CONFIDENCE }, { name: group.label, ...opts });
}

/** mean(b) / mean(a) × scale at least / at most a threshold (Fieller, 95 %). */
function ratioVersus(a, b, { scale = 1, ...opts }) {
  const r = ratioOfMeans(a.values, b.values, BOUND_CONFIDENCE);
  const est = { value: r.ratio * scale, lo: r.ciLow * scale, hi: r.ciHigh * scale, confidence: BOUND_CONFIDENCE };
  return bound([side(a), side(b)], est, { name: `${b.label} / ${a.label}`, ...opts });
}

/**
 * A claim over several points ({label, ...verdict}), each of which must hold ("at every k",
 * "every pair"): contradicted when one point is, reproduced when every measurable point is,
 * not measurable when none is, else inconclusive. n_min and the widest CI over the points.
 */
function combine(points) {
  const measured = points.filter((p) => p.verdict !== NOT_MEASURABLE);
  // The first few points' reasons; the rest counted (the caller lists every point's figure).
  const say = (ps) => ps.slice(0, 3).map((p) => `${p.label}: ${p.reason}`).join('; ') + (ps.length > 3 ? `; and ${ps.length - 3} more` : '');
  const unmeasured = points.length > measured.length ? ` (not measurable here: ${say(points.filter((p) => p.verdict === NOT_MEASURABLE))})` : '';
  const sides = measured.flatMap((p) => p.sides);
  if (!measured.length) return result(NOT_MEASURABLE, say(points), []);
  const against = measured.filter((p) => p.verdict === CONTRADICTED);
  if (against.length) return result(CONTRADICTED, say(against) + unmeasured, sides);
  const open = measured.filter((p) => p.verdict !== REPRODUCED);
  if (!open.length) return result(REPRODUCED, say(measured) + unmeasured, sides);
  return result(INCONCLUSIVE, say(open) + unmeasured, sides);
}

/**
 * What compare.sh prints for two sets of rounds: 'same' when they are equivalent within
 * ±EQUIVALENCE_MARGIN (rule 2 reproduced), 'different' when the 95 % CI of B/A − 1 leaves
 * out 0 (or rule 2 is contradicted), else 'unknown' — always after rule 1. `delta`: B/A − 1
 * with its 95 % CI.
 */
function sameOrDifferent(a, b) {
  const eq = equivalent(a, b);
  const delta = relativeDifference(a.values, b.values, BOUND_CONFIDENCE);
  if (eq.verdict === REPRODUCED) return { ...eq, delta, answer: 'same' };
  if (gateReasons(eq.sides).length) return { ...eq, delta, answer: 'unknown' };
  if (eq.verdict === CONTRADICTED) return { ...eq, delta, answer: 'different' };
  if (delta.lo > 0 || delta.hi < 0) {
    return { ...eq, delta, answer: 'different', reason: `95 % CI of B/A − 1 ${signed(delta.lo)} to ${signed(delta.hi)} leaves out 0; ${eq.reason}` };
  }
  return { ...eq, delta, answer: 'unknown' };
}

module.exports = {
  REPRODUCED, CONTRADICTED, INCONCLUSIVE, NOT_MEASURABLE, VERDICTS, RULES,
  MIN_ROUNDS, MAX_CI_HALFWIDTH, SIDE_CONFIDENCE, EQUIVALENCE_MARGIN, EQUIVALENCE_CONFIDENCE, BOUND_CONFIDENCE, VOID_ABOVE,
  side, gateReasons, equivalent, bound, meanVersus, ratioVersus, combine, notMeasurable, noData, relativeDifference, sameOrDifferent,
};
