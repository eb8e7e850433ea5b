'use strict';
const test = require('node:test');
const assert = require('node:assert');
const { Stats, newHistogram, countsIndex, recordAt } = require('../lib/stats');

const HIGHEST_US = 3600e6;

// Latencies as they come (fractional µs), powers of two and the floats just below them, the ends.
function values() {
  const out = [1, 1.5, 2047, 2047.9999999999998, 2048, 2049, HIGHEST_US, HIGHEST_US - 0.25];
  for (let k = 0; k < 32; k++) {
    const p = 2 ** k;
    for (const v of [p, p - 1, p + 1, p * (1 - Number.EPSILON), p + 0.5]) if (v >= 1 && v <= HIGHEST_US) out.push(v);
  }
  let seed = 7;
  const rnd = () => { seed = (seed * 1103515245 + 12345) % 2147483648; return seed / 2147483648; };
  for (let i = 0; i < 20000; i++) out.push(1 + rnd() * 10 ** (rnd() * 9.5)); // 1 µs to ~1 h, log-spread
  return out.filter((v) => v <= HIGHEST_US);
}

test('stats: countsIndex is the histogram\'s own index of every value', () => {
  const h = newHistogram();
  for (const v of values()) assert.strictEqual(countsIndex(v), h.countsArrayIndex(v), `value ${v}`);
});

test('stats: recording by index gives what recordValue gives (counts, min, max, mean, percentiles)', () => {
  const byIndex = newHistogram();
  const byValue = newHistogram();
  for (const v of values()) {
    recordAt(byIndex, countsIndex(v), v);
    byValue.recordValue(v);
  }
  assert.deepStrictEqual(byIndex._counts, byValue._counts);
  for (const k of ['totalCount', 'minNonZeroValue', 'maxValue', 'mean']) assert.strictEqual(byIndex[k], byValue[k], k);
  for (const p of [0, 50, 90, 99, 99.9, 100]) assert.strictEqual(byIndex.getValueAtPercentile(p), byValue.getValueAtPercentile(p));
});

test('stats: a summary of recorded samples', () => {
  const s = new Stats();
  for (let i = 1; i <= 100; i++) s.record(0, 200, i * 10.5, 3, false, i, i + 1);
  s.record(1, 0, 5e9, 0, false, 200, 201); // a timeout, over the trackable range: clamped
  const r = s.summary();
  assert.deepStrictEqual(r.requests.total, 101);
  assert.deepStrictEqual(r.errors_by_kind, { timeout: 1 });
  assert.deepStrictEqual(r.status_codes, { 200: 100 });
  assert.strictEqual(r.latency_us.min, 10);
  assert.strictEqual(r.latency_us.p50, 535);
  assert.strictEqual(r.latency_us.max, HIGHEST_US);
});
