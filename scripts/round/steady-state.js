'use strict';
// steady-state.js — the steady-state gate's decision, pure (no I/O): is the per-second
// throughput of a round's last W seconds steady? It is when the window shows no trend
// (the least-squares slope, as a change over the window relative to its mean, is within
// trendMax) and little scatter (coefficient of variation at most cvMax). A warm-up (JIT,
// pools, caches, a freshly scaled instance) is a rising series; a platform taking CPU
// back is a falling one; both have a slope. Scatter alone (CFS throttling, a noisy
// neighbour) has none but a high CV. Settings and their defaults: run-round-args.js
// (--steady-window, --steady-cv, --steady-trend, --max-warmup); run-round.sh --help.
//
//   windowStats(values)                     → { n, mean, sd, cv, slope, trend, trendSe, trendDf }
//   assessWindow(values, { cvMax, trendMax }) → { steady, reasons, ...windowStats }
//   decide(series, settings, elapsedMs)     → { state: 'steady' | 'wait' | 'give-up', window }
//
// values/series: ok responses per second, oldest first, complete seconds only.

/**
 * The Student t degrees of freedom of a fitted line's slope from the effective length
 * n(1 - rho)/(1 + rho), rho the lag-1 autocorrelation of its residuals (0 when negative or
 * undefined; Santer et al. 2000): seconds of a throttled app wander together, they are not
 * independent.
 */
function effectiveDf(residuals) {
  const n = residuals.length;
  let num = 0;
  let den = 0;
  for (let t = 0; t < n; t++) {
    den += residuals[t] ** 2;
    if (t > 0) num += residuals[t] * residuals[t - 1];
  }
  const rho = den > 0 ? Math.max(0, num / den) : 0;
  return Math.max((n * (1 - rho)) / (1 + rho) - 2, 1);
}

/** Mean, scatter and linear trend of a series (t = 0, 1, 2 ... seconds). */
function windowStats(values) {
  const n = values.length;
  if (n === 0) return { n, mean: 0, sd: 0, cv: Infinity, slope: 0, trend: Infinity, trendSe: Infinity, trendDf: null };
  const mean = values.reduce((a, b) => a + b, 0) / n;
  const tMean = (n - 1) / 2;
  let sxx = 0;
  let sxy = 0;
  let syy = 0;
  for (let t = 0; t < n; t++) {
    sxx += (t - tMean) ** 2;
    sxy += (t - tMean) * (values[t] - mean);
    syy += (values[t] - mean) ** 2;
  }
  const sd = n > 1 ? Math.sqrt(syy / (n - 1)) : 0;
  const slope = sxx > 0 ? sxy / sxx : 0;
  const df = effectiveDf(values.map((v, t) => v - mean - slope * (t - tMean)));
  // Residual standard error of the slope, widened from n - 2 to the effective df.
  const slopeSe = n > 2 && sxx > 0 ? Math.sqrt(Math.max(0, syy - slope * sxy) / df / sxx) : Infinity;
  const trendDf = n > 2 ? df : null;
  if (mean <= 0) return { n, mean, sd, cv: Infinity, slope, trend: Infinity, trendSe: Infinity, trendDf };
  // The trend is the fitted change over the whole window, relative to the mean.
  return { n, mean, sd, cv: sd / mean, slope, trend: (slope * n) / mean, trendSe: (slopeSe * n) / mean, trendDf };
}

const pct = (x) => `${(100 * x).toFixed(1)} %`;

/** Is this window steady? reasons name each bound it misses. */
function assessWindow(values, { cvMax, trendMax }) {
  const s = windowStats(values);
  const reasons = [];
  if (s.mean <= 0) reasons.push('no throughput');
  else {
    if (s.cv > cvMax) reasons.push(`CV ${pct(s.cv)} > ${pct(cvMax)}`);
    if (Math.abs(s.trend) > trendMax) reasons.push(`trend ${s.trend > 0 ? '+' : ''}${pct(s.trend)} > ±${pct(trendMax)}`);
  }
  return { steady: reasons.length === 0, reasons, ...s };
}

/**
 * The gate at one moment of a round: series = ok responses per complete second since the
 * start; settings = { windowMs, cvMax, trendMax, maxWarmupMs }; elapsedMs = time since the
 * start. 'steady' when the last windowMs of seconds pass assessWindow, 'give-up' once
 * elapsedMs reaches maxWarmupMs without that, else 'wait'. window: the last assessment
 * (null before a whole window exists).
 */
function decide(series, settings, elapsedMs) {
  const w = Math.max(2, Math.round(settings.windowMs / 1000));
  const window = series.length >= w ? assessWindow(series.slice(-w), settings) : null;
  if (window && window.steady) return { state: 'steady', window };
  if (elapsedMs >= settings.maxWarmupMs) return { state: 'give-up', window };
  return { state: 'wait', window };
}

/** One line on a window: "mean 412 req/s, CV 3.1 %, trend +1.2 % over 10 s". */
function describeWindow(win) {
  if (!win) return 'no complete window yet';
  const trend = Number.isFinite(win.trend) ? `${win.trend > 0 ? '+' : ''}${pct(win.trend)}` : '-';
  const cv = Number.isFinite(win.cv) ? pct(win.cv) : '-';
  return `mean ${win.mean.toFixed(0)} req/s, CV ${cv}, trend ${trend} over ${win.n} s`;
}

module.exports = { windowStats, assessWindow, decide, describeWindow };
