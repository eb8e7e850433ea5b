// rounds-needed.js — how many rounds a side would need before an undecided point is decided,
// if the noise and the estimate stay as measured: a projection for planning the next run
// (repetitions planned from the measured variance, as Kalibera & Jones 2013 do), never a
// verdict. The next rounds move the estimate too, so the page prints it as "≈ N".
//
// With n rounds a side and each side's coefficient of variation cv_i, a side's own CI
// half-width is t(n − 1) · cv_i / √n of its mean, and a ratio of two means has a relative
// half-width of about t(2n − 2) · √(cv_a² + cv_b²) / √n (the delta method; Welch's df with
// equal n and like variances). A point is decided once every side passes the verdict
// engine's gate (rule 1) and the estimate's CI no longer reaches across the line it is
// judged against: the verdict's `gap`, the estimate's relative distance to that line.
'use strict';
const { tQuantile } = require('./inference.js');
const V = require('./verdict.js');

/** Past this many rounds a side the projection stops: "more than" (the estimate sits near its line). */
const ROUNDS_NEEDED_CAP = 100;

const halfWidth = (confidence, df, cv, n) => tQuantile(1 - (1 - confidence) / 2, df) * cv / Math.sqrt(n);

/** Whether n rounds a side would decide: every side through the gate, the estimate's CI off its line. */
function decides(n, cvs, gap) {
  const spread = Math.sqrt(cvs.reduce((s, cv) => s + cv * cv, 0));
  const df = cvs.length === 1 ? n - 1 : 2 * n - 2;
  return cvs.every((cv) => halfWidth(V.SIDE_CONFIDENCE, n - 1, cv, n) <= V.MAX_CI_HALFWIDTH)
    && halfWidth(gap.confidence, df, spread, n) < gap.distance;
}

/**
 * A point's projection (a verdict of lib/verdict.js): null when it is decided or not a matter
 * of rounds; else the least n ≥ MIN_ROUNDS a side that would decide it, Infinity when not
 * within the cap, NaN when a side's spread is unknown (fewer than 2 rounds) or the reading is void.
 */
function roundsNeeded(point) {
  if (point.verdict !== V.INCONCLUSIVE || !point.gap) return null;
  const cvs = point.sides.map((s) => s.cv);
  if (!cvs.length || !cvs.every((cv) => Number.isFinite(cv)) || !Number.isFinite(point.gap.distance)) return NaN;
  let lo = V.MIN_ROUNDS;
  if (decides(lo, cvs, point.gap)) return lo;
  if (!decides(ROUNDS_NEEDED_CAP, cvs, point.gap)) return Infinity;
  let hi = ROUNDS_NEEDED_CAP; // decides at hi, not at lo: the widths shrink as n grows
  while (hi - lo > 1) {
    const mid = Math.floor((lo + hi) / 2);
    if (decides(mid, cvs, point.gap)) hi = mid; else lo = mid;
  }
  return hi;
}

/**
 * A claim's projection over its points (each must hold): null when the claim is decided;
 * else the most any undecided point needs (Infinity dominates, then an unknown).
 */
function claimRoundsNeeded(claim, points) {
  if (claim.verdict !== V.INCONCLUSIVE) return null;
  const ns = points.map(roundsNeeded).filter((n) => n !== null);
  if (!ns.length) return NaN;
  if (ns.includes(Infinity)) return Infinity;
  return ns.some(Number.isNaN) ? NaN : Math.max(...ns);
}

/** What the claims table prints: '–' (decided), '≈ N', '> cap', '?' (not projectable). */
function roundsNeededText(n) {
  if (n === null || n === undefined) return '–';
  if (Number.isNaN(n)) return '?';
  return Number.isFinite(n) ? `≈ ${n}` : `> ${ROUNDS_NEEDED_CAP}`;
}

module.exports = { roundsNeeded, claimRoundsNeeded, roundsNeededText, ROUNDS_NEEDED_CAP };
