// verdict.test.js — the verdict engine (lib/verdict.js) on groups with known answers: the
// gate on rounds and CI width, equivalence by the 90 % CI against ±10 %, "at least" and
// "at most" decided on the CI bound and never on the point, the void above 1.1, combining
// points, and compare.sh's same / different / unknown.
'use strict';
const assert = require('node:assert/strict');
const { test } = require('node:test');
const V = require('../../lib/verdict.js');

const g = (label, values) => ({ label, values });
// Five rounds around 100 with a 95 % CI of ±1.96 (sd 1.58): tight enough for any verdict.
const A = g('A', [100, 102, 98, 101, 99]);
const shifted = (label, f, add = 0) => g(label, A.values.map((x) => x * f + add));

test('fewer than 5 rounds a side, or a CI wider than ±10 % of its mean: inconclusive', () => {
  const four = V.equivalent(g('A', [100, 101, 99, 100]), shifted('B', 1));
  assert.equal(four.verdict, V.INCONCLUSIVE);
  assert.match(four.reason, /A: n = 4 < 5 rounds/);
  assert.equal(four.n_min, 4);
  const wide = V.equivalent(A, g('B', [100, 150, 80, 120, 60]));
  assert.equal(wide.verdict, V.INCONCLUSIVE);
  assert.match(wide.reason, /B: 95 % CI ±\d+ % of its mean > ±10 %/);
  // sd 34.93, t(0.975, 4) = 2.776445: half-width 43.37 of a mean of 102 → 42.5 %.
  assert.equal(wide.ci_halfwidth_pct, 42.5);
  const one = V.meanVersus(g('share', [0.99]), { direction: 'at least', threshold: 0.9 });
  assert.equal(one.verdict, V.INCONCLUSIVE, 'one round is never a pass');
  assert.equal(one.ci_halfwidth_pct, null, 'no interval from one round');
});

test('equivalence: reproduced only when the 90 % CI of B/A − 1 lies inside ±10 %', () => {
  const same = V.equivalent(A, shifted('B', 1.02));
  assert.equal(same.verdict, V.REPRODUCED, same.reason);
  assert.ok(Math.abs(same.estimate.value - 0.02) < 1e-12);
  assert.equal(same.estimate.confidence, 0.9);
  const far = V.equivalent(A, shifted('B', 1.3));
  assert.equal(far.verdict, V.CONTRADICTED, far.reason);
  assert.match(far.reason, /entirely outside ±10 %/);
  // B/A = 1.09: the point is inside ±10 %, the CI is not — inconclusive, not reproduced.
  const edge = V.equivalent(g('A', [100, 104, 96, 102, 98]), g('B', [109, 113, 105, 111, 107]));
  assert.ok(edge.estimate.value < V.EQUIVALENCE_MARGIN && edge.estimate.hi > V.EQUIVALENCE_MARGIN);
  assert.equal(edge.verdict, V.INCONCLUSIVE, edge.reason);
});

test('at least / at most: decided on the CI bound, never on the point estimate', () => {
  const eff = (xk, k) => V.ratioVersus(g('X(1)', [100, 101, 99, 100, 100]), g(`X(${k})`, xk), { scale: 1 / k, direction: 'at least', threshold: 0.9 });
  assert.equal(eff([190, 200, 210, 195, 205], 2).verdict, V.REPRODUCED);
  const low = eff([140, 142, 138, 141, 139], 2);
  assert.equal(low.verdict, V.CONTRADICTED, low.reason);
  assert.match(low.reason, /even the high end below 0.9/);
  // Point 0.91, but the low end under 0.9: not reproduced.
  const straddle = eff([178, 186, 182, 176, 188], 2);
  assert.ok(straddle.estimate.value > 0.9 && straddle.estimate.lo < 0.9, JSON.stringify(straddle.estimate));
  assert.equal(straddle.verdict, V.INCONCLUSIVE);
  const part = (values) => V.meanVersus(g('share', values), { direction: 'at most', threshold: 0.7 }).verdict;
  assert.equal(part([0.5, 0.52, 0.48, 0.51, 0.49]), V.REPRODUCED);
  assert.equal(part([0.8, 0.82, 0.78, 0.81, 0.79]), V.CONTRADICTED);
  // A ratio whose low end clears 1: "A is faster" holds.
  assert.equal(V.ratioVersus(A, shifted('B', 1.2), { direction: 'at least', threshold: 1 }).verdict, V.REPRODUCED);
});

test('an efficiency or a quota share above 1.1 voids the reading: inconclusive, not a pass', () => {
  const r = V.ratioVersus(A, shifted('X(2)', 2.4), { scale: 0.5, direction: 'at least', threshold: 0.9, voidable: true });
  assert.equal(r.verdict, V.INCONCLUSIVE);
  assert.match(r.reason, /1.20 > 1.1: a bad baseline voids the reading/);
  const share = V.meanVersus(g('share of quota', [1.15, 1.16, 1.14, 1.15, 1.15]), { direction: 'at least', threshold: 0.9, voidable: true });
  assert.equal(share.verdict, V.INCONCLUSIVE);
  assert.equal(V.meanVersus(g('share', [1.05, 1.06, 1.04, 1.05, 1.05]), { direction: 'at least', threshold: 0.9, voidable: true }).verdict, V.REPRODUCED);
});

test('combine: one contradicted point refutes; every measurable point must hold; not measurable is carried', () => {
  const ok = { label: 'k = 2', ...V.equivalent(A, shifted('B', 1.01)) };
  const bad = { label: 'k = 3', ...V.equivalent(A, shifted('B', 1.5)) };
  const open = { label: 'k = 4', ...V.equivalent(g('A', [1, 2]), g('B', [1, 2])) };
  const nm = { label: 'k = 5', ...V.notMeasurable('the system under test had 1 CPU') };
  assert.equal(V.combine([ok, bad, open]).verdict, V.CONTRADICTED);
  assert.equal(V.combine([ok, open]).verdict, V.INCONCLUSIVE);
  assert.equal(V.combine([ok, open]).n_min, 2);
  const withNm = V.combine([ok, nm]);
  assert.equal(withNm.verdict, V.REPRODUCED);
  assert.match(withNm.reason, /not measurable here: k = 5: the system under test had 1 CPU/);
  const none = V.combine([nm]);
  assert.equal(none.verdict, V.NOT_MEASURABLE);
  assert.equal(none.n_min, null);
  assert.deepEqual(V.VERDICTS, ['reproduced', 'contradicted', 'inconclusive', 'not measurable here']);
});

test('compare: same within ±10 %, different when the 95 % CI leaves out 0, else unknown', () => {
  assert.equal(V.sameOrDifferent(A, shifted('B', 1.02)).answer, 'same');
  const d = V.sameOrDifferent(g('A', [100, 104, 96, 102, 98]), g('B', [109, 113, 105, 111, 107]));
  assert.equal(d.answer, 'different', d.reason);
  assert.ok(d.delta.lo > 0 && d.delta.confidence === 0.95);
  assert.equal(V.sameOrDifferent(A, shifted('B', 1.5)).answer, 'different');
  assert.equal(V.sameOrDifferent(g('A', [100, 101]), g('B', [150, 151])).answer, 'unknown', 'two rounds decide nothing');
  const noisy = V.sameOrDifferent(g('A', [100, 108, 92, 104, 96]), g('B', [104, 112, 96, 108, 100]));
  assert.equal(noisy.answer, 'unknown', noisy.reason);
});
