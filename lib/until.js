// until.js — the tests' one way to wait for something that happens by itself: poll fn until it
// returns something truthy (that value), or fail naming what was awaited.
'use strict';

/** Polls fn every intervalMs; rejects with "timed out waiting for WHAT" after timeoutMs. */
async function until(what, fn, { timeoutMs = 30000, intervalMs = 100 } = {}) {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, intervalMs));
  }
}

module.exports = { until };
