// Statistics helpers against known answers (R / standard tables).
'use strict';
const assert = require('node:assert/strict');
const { test } = require('node:test');
const { compare, efficiency, mean, ratioOfMeans, stddev, summarize, tCdf, tQuantile, welch } = require('../../lib/inference.js');

const close = (actual, expected, tol, what) => assert.ok(Math.abs(actual - expected) <= tol, `${what}: ${actual} vs ${expected}`);

test('mean and sample standard deviation', () => {
  for (const [xs, m, sd] of [
    [[2, 4, 4, 4, 5, 5, 7, 9], 5, 2.138089935],
    [[1, 2, 3, 4, 5], 3, 1.58113883],
    [[10], 10, NaN],
  ]) {
    close(mean(xs), m, 1e-12, `mean ${xs}`);
    if (Number.isNaN(sd)) assert.ok(Number.isNaN(stddev(xs)));
    else close(stddev(xs), sd, 1e-8, `sd ${xs}`);
  }
  assert.ok(Number.isNaN(mean([])));
});

test('Student t quantiles match the table (two-sided 95 %, 99 %)', () => {
  for (const [p, df, t] of [
    [0.975, 1, 12.7062047], [0.975, 2, 4.30265273], [0.975, 4, 2.77644511], [0.975, 9, 2.26215716],
    [0.975, 29, 2.04522964], [0.975, 1e6, 1.95996], [0.995, 5, 4.03214298], [0.9, 10, 1.37218364],
    [0.025, 4, -2.77644511],
  ]) close(tQuantile(p, df), t, 1e-5, `t(${p}, ${df})`);
  close(tCdf(0, 7), 0.5, 1e-12, 'cdf(0)');
  close(tCdf(2.262157, 9), 0.975, 1e-6, 'cdf(2.262, 9)');
  assert.ok(Number.isNaN(tQuantile(1.2, 3)));
});

test('95 % confidence interval of a mean', () => {
  const s = summarize([1, 2, 3, 4, 5]);
  assert.equal(s.n, 5);
  close(s.halfWidth, 2.776445 * 1.58113883 / Math.sqrt(5), 1e-5, 'half width');
  close(s.ciLow, 1.036757, 1e-5, 'low');
  close(s.ciHigh, 4.963243, 1e-5, 'high');
  const one = summarize([7]);
  assert.equal(one.n, 1);
  assert.ok(Number.isNaN(one.ciLow), 'no interval from one value');
  assert.equal(summarize([1, NaN, 3]).n, 2, 'non-finite values are dropped');
});

test("Welch's t-test matches R's t.test", () => {
  // R: t.test(c(1,2,3,4,5), c(2,4,6,8,10)) → t = -1.8974, df = 5.8824, p = 0.1075
  const w = welch([1, 2, 3, 4, 5], [2, 4, 6, 8, 10]);
  close(w.t, 1.8973666, 1e-6, 't');
  close(w.df, 5.8823529, 1e-6, 'df');
  close(w.p, 0.1075312, 1e-5, 'p');
  // By hand: means 20.0 / 24.5, variances 0.6 / 0.36667, se = sqrt(0.241667) → t = 9.15386,
  // df = 0.241667² / (0.15²/3 + 0.091667²/3) = 5.66973.
  const w2 = welch([19.1, 20.3, 20.9, 19.7], [24.2, 25.1, 23.8, 24.9]);
  close(w2.t, 9.153857, 1e-5, 't2');
  close(w2.df, 5.66973, 1e-4, 'df2');
  assert.ok(w2.p > 0 && w2.p < 0.001, `p2 ${w2.p}`);
  assert.equal(welch([1, 1, 1], [1, 1, 1]).p, 1, 'identical constant samples');
});

test('compare labels differences inside the noise', () => {
  const cases = [
    ['clear difference', [100, 101, 99, 100], [120, 121, 119, 120], 'significant'],
    ['overlapping noise', [100, 110, 90, 105], [102, 112, 95, 99], 'within noise'],
    ['one repetition', [100], [130], 'not enough repetitions'],
  ];
  for (const [name, a, b, verdict] of cases) assert.equal(compare(a, b).verdict, verdict, name);
  close(compare([100, 100], [110, 110]).relDiff, 0.1, 1e-12, 'relative difference');
});

test('scaling efficiency X(k) / (k · X(1)) with a delta-method interval', () => {
  const e = efficiency([180, 180, 180], [100, 100, 100], 2);
  close(e.value, 0.9, 1e-12, 'value');
  close(e.ciLow, 0.9, 1e-12, 'no variance, no width');
  const f = efficiency([190, 200, 210], [98, 100, 102], 2);
  close(f.value, 1.0, 1e-12, 'linear');
  // rel se = sqrt((5.7735/200)^2 + (1.1547/100)^2) = 0.031091; half = 4.302653 * 0.031091 * 1.0
  close(f.ciHigh - f.value, 4.302653 * Math.sqrt((10 / Math.sqrt(3) / 200) ** 2 + (2 / Math.sqrt(3) / 100) ** 2), 1e-6, 'half width');
  assert.equal(f.n, 3);
});

test("Fieller's interval of a ratio of means matches the hand computation", () => {
  // a = 1..5 (mean 3, se² 0.5), b = 2, 4, …, 10 (mean 6, se² 2): R = 2, Welch df of b − 2a =
  // 4² / (2²/4 + (4 · 0.5)²/4) = 8, t(0.975, 8) = 2.306004; the roots of
  // (9 − t²·0.5) R² − 36 R + (36 − t²·2) = 0 (plain arithmetic, Python).
  const r = ratioOfMeans([1, 2, 3, 4, 5], [2, 4, 6, 8, 10]);
  close(r.ratio, 2, 1e-12, 'ratio');
  close(r.df, 8, 1e-9, 'df');
  close(r.ciLow, 0.8242424347, 1e-6, 'low');
  close(r.ciHigh, 4.8529411147, 1e-6, 'high');
  // 90 %: t(0.95, 8) = 1.859548.
  const r90 = ratioOfMeans([1, 2, 3, 4, 5], [2, 4, 6, 8, 10], 0.9);
  close(r90.ciLow, 1.0166473645, 1e-6, 'low 90');
  close(r90.ciHigh, 3.9345009287, 1e-6, 'high 90');
  // A denominator without variance: b̄/ā ± t(0.975, 2) · se_b / ā, symmetric.
  const flat = ratioOfMeans([10, 10, 10], [19, 20, 21]);
  close(flat.ciLow, 1.7515862288, 1e-6, 'flat low');
  close(flat.ciHigh, 2.2484137712, 1e-6, 'flat high');
});

test('ratioOfMeans: the bounds solve Fieller\'s equation; no interval from one value; unbounded near 0', () => {
  const a = [100, 102, 98, 101, 99];
  const b = [110, 115, 105, 112, 108, 110];
  const r = ratioOfMeans(a, b);
  const sa = summarize(a);
  const sb = summarize(b);
  const t = tQuantile(0.975, r.df);
  for (const R of [r.ciLow, r.ciHigh]) {
    close((sb.mean - R * sa.mean) ** 2, t * t * (sb.se ** 2 + R * R * sa.se ** 2), 1e-6, `Fieller at ${R}`);
  }
  assert.ok(r.ciLow < r.ratio && r.ratio < r.ciHigh);
  assert.ok(Number.isNaN(ratioOfMeans([100], [110, 111]).ciLow), 'one value');
  const wild = ratioOfMeans([1, -1, 2, -1.5], [10, 11, 12]);
  assert.equal(wild.ciLow, -Infinity);
  assert.equal(wild.ciHigh, Infinity);
  const same = ratioOfMeans([5, 5], [10, 10]);
  assert.deepEqual([same.ciLow, same.ciHigh], [2, 2], 'no variance, no width');
});
