// verdict-sim.js — how often the verdict engine's compare (lib/verdict.js sameOrDifferent)
// cries wolf, and how often it sees a real change, on the spread of real rounds: from one
// set of per-round values (repetitions of one point), draw two sets of n with replacement
// and compare them (the false-alarm rate: "different" where nothing differs), and again with
// one set scaled by 1 + shift (the power: "different" where a change was planted). A
// resample of a few rounds is a little less spread than the rounds themselves ((n − 1)/n of
// the variance), so the false-alarm rate is, if anything, underestimated. Seeded: the same
// values and seed give the same answer.
'use strict';
const { sameOrDifferent } = require('./verdict.js');
const { seededRandom } = require('./seeded-random.js');

/** The round counts a recommendation is read from, and what it must meet. */
const SIM_ROUNDS = Object.freeze([5, 8, 10]);
const MAX_FALSE_ALARM = 0.05;
const MIN_POWER = 0.8;

/**
 * Per n: falseAlarm (share of same-vs-same draws called different), same (share called the
 * same, the equivalence test's power), power (share of draws with a planted shift called
 * different). values: at least 2 real per-round values.
 */
function simulate(values, { ns = SIM_ROUNDS, shift = 0.15, trials = 1000, seed = 1 } = {}) {
  if (values.length < 2) throw new Error(`simulate needs at least 2 per-round values, got ${values.length}`);
  const rnd = seededRandom(seed);
  const draw = (n, f) => ({ label: f === 1 ? 'A' : 'B', values: Array.from({ length: n }, () => values[Math.floor(rnd() * values.length)] * f) });
  return ns.map((n) => {
    let alarms = 0;
    let same = 0;
    let detected = 0;
    for (let i = 0; i < trials; i++) {
      const nul = sameOrDifferent(draw(n, 1), draw(n, 1)).answer;
      if (nul === 'different') alarms++;
      if (nul === 'same') same++;
      if (sameOrDifferent(draw(n, 1), draw(n, 1 + shift)).answer === 'different') detected++;
    }
    return { n, trials, falseAlarm: alarms / trials, same: same / trials, power: detected / trials };
  });
}

/** The smallest n whose false-alarm rate is at most MAX_FALSE_ALARM and power at least MIN_POWER; null: none. */
function recommend(rows) {
  return rows.find((r) => r.falseAlarm <= MAX_FALSE_ALARM && r.power >= MIN_POWER)?.n ?? null;
}

module.exports = { simulate, recommend, SIM_ROUNDS, MAX_FALSE_ALARM, MIN_POWER };
