// inference.js — the statistics of the report: mean, sample standard deviation, Student t
// quantiles, 95 % confidence intervals from repetitions, Welch's t-test, the interval of a
// ratio of two means (Fieller) and the scaling efficiency X(k) / (k · X(1)). Pure
// functions, no dependencies, tested on known answers.
'use strict';

/** Confidence level of every interval in the report. */
const CONFIDENCE = 0.95;

function mean(xs) {
  if (xs.length === 0) return NaN;
  let s = 0;
  for (const x of xs) s += x;
  return s / xs.length;
}

/** Sample standard deviation (n − 1 in the denominator); NaN below two values. */
function stddev(xs) {
  if (xs.length < 2) return NaN;
  const m = mean(xs);
  let s = 0;
  for (const x of xs) s += (x - m) ** 2;
  return Math.sqrt(s / (xs.length - 1));
}

// Lanczos approximation of ln Γ(x) (g = 7, n = 9), accurate to ~1e-15.
const LANCZOS = [0.99999999999980993, 676.5203681218851, -1259.1392167224028,
  771.32342877765313, -176.61502916214059, 12.507343278686905,
  -0.13857109526572012, 9.9843695780195716e-6, 1.5056327351493116e-7];

function logGamma(x) {
  if (x < 0.5) return Math.log(Math.PI / Math.sin(Math.PI * x)) - logGamma(1 - x);
  x -= 1;
  let a = LANCZOS[0];
  const t = x + 7.5;
  for (let i = 1; i < 9; i++) a += LANCZOS[i] / (x + i);
  return 0.5 * Math.log(2 * Math.PI) + (x + 0.5) * Math.log(t) - t + Math.log(a);
}

// Continued fraction of the regularised incomplete beta function (Lentz's method).
function betaContinuedFraction(a, b, x) {
  const tiny = 1e-300;
  let c = 1;
  let d = 1 - ((a + b) * x) / (a + 1);
  if (Math.abs(d) < tiny) d = tiny;
  d = 1 / d;
  let h = d;
  for (let m = 1; m <= 300; m++) {
    const m2 = 2 * m;
    let aa = (m * (b - m) * x) / ((a + m2 - 1) * (a + m2));
    d = 1 + aa * d; if (Math.abs(d) < tiny) d = tiny;
    c = 1 + aa / c; if (Math.abs(c) < tiny) c = tiny;
    d = 1 / d; h *= d * c;
    aa = (-(a + m) * (a + b + m) * x) / ((a + m2) * (a + m2 + 1));
    d = 1 + aa * d; if (Math.abs(d) < tiny) d = tiny;
    c = 1 + aa / c; if (Math.abs(c) < tiny) c = tiny;
    d = 1 / d;
    const delta = d * c;
    h *= delta;
    if (Math.abs(delta - 1) < 1e-15) break;
  }
  return h;
}

/** Regularised incomplete beta function I_x(a, b). */
function incompleteBeta(x, a, b) {
  if (x <= 0) return 0;
  if (x >= 1) return 1;
  const lnFront = logGamma(a + b) - logGamma(a) - logGamma(b) + a * Math.log(x) + b * Math.log(1 - x);
  if (x < (a + 1) / (a + b + 2)) return (Math.exp(lnFront) * betaContinuedFraction(a, b, x)) / a;
  return 1 - (Math.exp(lnFront) * betaContinuedFraction(b, a, 1 - x)) / b;
}

/** Cumulative distribution of Student's t with df degrees of freedom (df may be fractional). */
function tCdf(t, df) {
  const x = df / (df + t * t);
  const tail = 0.5 * incompleteBeta(x, df / 2, 0.5);
  return t >= 0 ? 1 - tail : tail;
}

/** Quantile of Student's t: the t with tCdf(t, df) = p (bisection, |error| < 1e-10). */
function tQuantile(p, df) {
  if (!(p > 0 && p < 1) || !(df > 0)) return NaN;
  if (p === 0.5) return 0;
  if (p < 0.5) return -tQuantile(1 - p, df);
  let lo = 0;
  let hi = 1;
  while (tCdf(hi, df) < p) hi *= 2;
  for (let i = 0; i < 200 && hi - lo > 1e-12; i++) {
    const mid = (lo + hi) / 2;
    if (tCdf(mid, df) < p) lo = mid; else hi = mid;
  }
  return (lo + hi) / 2;
}

/**
 * Summary of repeated measurements: n, mean, sd and the two-sided Student t confidence
 * interval of the mean. With n < 2 the interval is unknown (NaN), never zero-width.
 */
function summarize(xs, confidence = CONFIDENCE) {
  const vals = xs.filter((x) => Number.isFinite(x));
  const n = vals.length;
  const m = mean(vals);
  const sd = stddev(vals);
  const se = sd / Math.sqrt(n);
  const half = n >= 2 ? tQuantile(1 - (1 - confidence) / 2, n - 1) * se : NaN;
  return { n, mean: m, sd, se, ciLow: m - half, ciHigh: m + half, halfWidth: half };
}

/**
 * Welch's unequal-variance t-test of two samples. Returns t, the Welch–Satterthwaite df,
 * the two-sided p value and the difference of means (b − a).
 */
function welch(a, b) {
  const sa = summarize(a);
  const sb = summarize(b);
  const va = (sa.sd ** 2) / sa.n;
  const vb = (sb.sd ** 2) / sb.n;
  const diff = sb.mean - sa.mean;
  if (!(sa.n >= 2 && sb.n >= 2)) return { t: NaN, df: NaN, p: NaN, diff };
  if (va + vb === 0) return { t: diff === 0 ? 0 : Infinity, df: Infinity, p: diff === 0 ? 1 : 0, diff };
  const t = diff / Math.sqrt(va + vb);
  const df = (va + vb) ** 2 / ((va ** 2) / (sa.n - 1) + (vb ** 2) / (sb.n - 1));
  const p = 2 * (1 - tCdf(Math.abs(t), df));
  return { t, df, p, diff };
}

/**
 * Compare two samples: a verdict that calls a difference "within noise" unless Welch's
 * test rejects equality at 1 − confidence AND the two confidence intervals do not overlap
 * (the conservative reading). With fewer than two values per side the answer is
 * "not enough repetitions".
 */
function compare(a, b, confidence = CONFIDENCE) {
  const sa = summarize(a, confidence);
  const sb = summarize(b, confidence);
  const w = welch(a, b);
  let verdict;
  if (sa.n < 2 || sb.n < 2) verdict = 'not enough repetitions';
  else {
    const overlap = sa.ciLow <= sb.ciHigh && sb.ciLow <= sa.ciHigh;
    verdict = w.p < 1 - confidence && !overlap ? 'significant' : 'within noise';
  }
  const relDiff = sa.mean !== 0 ? w.diff / sa.mean : NaN;
  return { a: sa, b: sb, ...w, relDiff, verdict };
}

/**
 * Scaling efficiency X(k) / (k · X(1)) from the repetitions at k instances and at one
 * instance, with a 95 % interval by the delta method on the ratio of the two means
 * (relative standard errors added in quadrature, t quantile at the smaller df).
 */
function efficiency(xk, x1, k, confidence = CONFIDENCE) {
  const sk = summarize(xk, confidence);
  const s1 = summarize(x1, confidence);
  const value = sk.mean / (k * s1.mean);
  const rel = Math.sqrt((sk.se / sk.mean) ** 2 + (s1.se / s1.mean) ** 2);
  const df = Math.min(sk.n, s1.n) - 1;
  const half = df >= 1 ? tQuantile(1 - (1 - confidence) / 2, df) * rel * value : NaN;
  return { k, value, ciLow: value - half, ciHigh: value + half, n: Math.min(sk.n, s1.n) };
}

/**
 * The ratio of two independent means, mean(b) / mean(a), with its two-sided confidence
 * interval by Fieller's theorem: the R with (b̄ − R·ā)² ≤ t² (se_b² + R² se_a²). Unlike the
 * delta method it stays honest when ā is noisy: the interval is asymmetric and, when ā is
 * not clearly away from 0 (ā² ≤ t² se_a²), unbounded (−∞, ∞). t has the Welch–Satterthwaite
 * df of b − R·a at the estimate R. Fewer than two values a side: no interval (NaN).
 */
function ratioOfMeans(a, b, confidence = CONFIDENCE) {
  const sa = summarize(a, confidence);
  const sb = summarize(b, confidence);
  const ratio = sb.mean / sa.mean;
  const none = { ratio, ciLow: NaN, ciHigh: NaN, df: NaN };
  if (sa.n < 2 || sb.n < 2 || !Number.isFinite(ratio)) return none;
  const va = sa.se ** 2;
  const vb = sb.se ** 2;
  const v = vb + ratio ** 2 * va;
  if (v === 0) return { ratio, ciLow: ratio, ciHigh: ratio, df: Infinity };
  const df = v ** 2 / (vb ** 2 / (sb.n - 1) + (ratio ** 4 * va ** 2) / (sa.n - 1));
  const t = tQuantile(1 - (1 - confidence) / 2, df);
  const denom = sa.mean ** 2 - t * t * va;
  if (denom <= 0) return { ratio, ciLow: -Infinity, ciHigh: Infinity, df };
  const root = t * Math.sqrt(sa.mean ** 2 * vb + sb.mean ** 2 * va - t * t * va * vb);
  const ends = [(sa.mean * sb.mean - root) / denom, (sa.mean * sb.mean + root) / denom];
  return { ratio, ciLow: Math.min(...ends), ciHigh: Math.max(...ends), df };
}

module.exports = {
  mean, stddev, logGamma, incompleteBeta, tCdf, tQuantile, summarize, welch, compare, efficiency, ratioOfMeans, CONFIDENCE,
};
