// seeded-random.js — a small seeded generator of uniform numbers in [0, 1) (mulberry32), so a
// "random" run order (plans/order.js), compare's simulation (verdict-sim.js) and the report's
// bootstrap (report/lib/report/event-stats.js) are reproducible from their seed.
'use strict';

function seededRandom(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

module.exports = { seededRandom };
