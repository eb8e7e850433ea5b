// rounds-needed.test.js — the projection of rounds a side (lib/rounds-needed.js) on points
// with known answers: a hand-computed case, the binary search against a linear scan, a
// decided point has none, a point on its line has none within the cap, one round has none.
'use strict';
const assert = require('node:assert/strict');
const { test } = require('node:test');
const V = require('../../lib/verdict.js');
const { roundsNeeded, claimRoundsNeeded, roundsNeededText, ROUNDS_NEEDED_CAP } = require('../../lib/rounds-needed.js');
const { tQuantile } = require('../../lib/inference.js');

const open = (cvs, distance, confidence = V.BOUND_CONFIDENCE) => ({ verdict: V.INCONCLUSIVE, sides: cvs.map((cv) => ({ cv })), gap: { distance, confidence } });

test('one side, cv 10 %, its mean 5 % from the line: 18 rounds (t(17) · 0.1 / √18 = 0.0497 < 0.05; at 17: 0.0514)', () => {
  assert.ok(tQuantile(0.975, 17) * 0.1 / Math.sqrt(18) < 0.05 && tQuantile(0.975, 16) * 0.1 / Math.sqrt(17) > 0.05);
  assert.equal(roundsNeeded(open([0.1], 0.05)), 18);
  assert.equal(roundsNeededText(18), '≈ 18');
});

test('the least n by bisection is the least n a linear scan finds', () => {
  const halfWidth = (c, df, cv, n) => tQuantile(1 - (1 - c) / 2, df) * cv / Math.sqrt(n);
  for (const [cvs, d, c] of [[[0.14, 0.114], 0.072, 0.95], [[0.06, 0.08], 0.04, 0.9], [[0.3], 0.2, 0.95], [[0.05, 0.05], 0.5, 0.95]]) {
    const spread = Math.hypot(...cvs);
    let scan = Infinity;
    for (let n = V.MIN_ROUNDS; n <= ROUNDS_NEEDED_CAP; n++) {
      const sides = cvs.every((cv) => halfWidth(V.SIDE_CONFIDENCE, n - 1, cv, n) <= V.MAX_CI_HALFWIDTH);
      if (sides && halfWidth(c, cvs.length === 1 ? n - 1 : 2 * n - 2, spread, n) < d) { scan = n; break; }
    }
    assert.equal(roundsNeeded(open(cvs, d, c)), scan, JSON.stringify(cvs));
  }
  // Far from the line and tight: the gate's 5 rounds are enough.
  assert.equal(roundsNeeded(open([0.05, 0.05], 0.5)), V.MIN_ROUNDS);
});

test('decided points need none; on the line, none within the cap; one round or a void reading: unknown', () => {
  const decided = V.meanVersus({ label: 'share', values: [0.97, 0.96, 0.98, 0.97, 0.96] }, { direction: 'at least', threshold: 0.9 });
  assert.equal(decided.verdict, V.REPRODUCED);
  assert.equal(roundsNeeded(decided), null);
  assert.equal(roundsNeededText(null), '–');
  assert.equal(roundsNeeded(open([0.1, 0.1], 0)), Infinity);
  assert.equal(roundsNeededText(Infinity), `> ${ROUNDS_NEEDED_CAP}`);
  const one = V.meanVersus({ label: 'share', values: [0.99] }, { direction: 'at least', threshold: 0.9 });
  assert.ok(Number.isNaN(roundsNeeded(one)));
  assert.equal(roundsNeededText(NaN), '?');
  const x1 = { label: 'X(1)', values: [100, 101, 99, 100, 100] };
  const voided = V.ratioVersus(x1, { label: 'X(2)', values: [260, 250, 240, 255, 245] }, { scale: 0.5, direction: 'at least', threshold: 0.9, voidable: true });
  assert.match(voided.reason, /voids the reading/);
  assert.ok(Number.isNaN(roundsNeeded(voided)));
});

test('the engine gives undecided points their gap: an efficiency of 0.97 against 0.9 with real spreads', () => {
  // horizontal-efficiency's k = 1 and k = 2 rounds of one run (req/s): CV 14 % and 11 %.
  const x1 = { label: 'X(1)', values: [691, 654, 676, 583, 600, 811, 870, 761, 744, 863] };
  const x2 = { label: 'X(2)', values: [1417, 1170, 1413, 1213, 1378, 1395, 1486, 1583, 1709, 1309] };
  const p = V.ratioVersus(x1, x2, { scale: 0.5, direction: 'at least', threshold: 0.9, voidable: true });
  assert.equal(p.verdict, V.INCONCLUSIVE);
  assert.ok(Math.abs(p.gap.distance - (p.estimate.value - 0.9) / p.estimate.value) < 1e-12);
  const n = roundsNeeded(p);
  assert.ok(n > 10 && n < 40, String(n));
  // A claim over points: the most any undecided point needs; Infinity dominates; decided: none.
  assert.equal(claimRoundsNeeded(V.combine([{ label: 'a', ...p }, { label: 'b', ...open([0.1], 0.05) }]), [p, open([0.1], 0.05)]), Math.max(n, 18));
  assert.equal(claimRoundsNeeded({ verdict: V.INCONCLUSIVE }, [p, open([0.1], 0)]), Infinity);
  assert.equal(claimRoundsNeeded({ verdict: V.REPRODUCED }, [p]), null);
});
