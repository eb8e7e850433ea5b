'use strict';
// front-proxies.js: the proxies' usage over a round from two readings of `cfl front-proxies --json`.
const test = require('node:test');
const assert = require('node:assert/strict');
const { usageBetween, usageLine } = require('./front-proxies');

const reading = (atNs, proxies) => ({ atNs: BigInt(atNs), proxies });
const proxy = (index, pid, cpuNs, periods, throttled, sessions, requests) => ({
  index, url: `https://127.0.0.1:${8443 + index}`, pid, cpu_quota: 0.25, cpu_ns: cpuNs,
  throttling: { periods, throttled_periods: throttled, throttled_us: 0 }, sessions, requests,
});

test('usageBetween: cores = CPU ns / wall ns, throttled share of periods, connections and requests per proxy', () => {
  const a = reading(1e9, [proxy(0, 10, 5e8, 100, 10, 7, 70), proxy(1, 11, 0, 0, 0, 0, 0)]);
  const b = reading(11e9, [proxy(0, 10, 3e9, 200, 60, 1007, 1070), proxy(1, 11, 1e9, 100, 0, 8, 800)]);
  assert.deepEqual(usageBetween(a, b), [
    { index: 0, url: 'https://127.0.0.1:8443', cpu_quota: 0.25, cpu_cores: 0.25, throttled_share: 0.5, connections: 1000, requests: 1000 },
    { index: 1, url: 'https://127.0.0.1:8444', cpu_quota: 0.25, cpu_cores: 0.1, throttled_share: 0, connections: 8, requests: 800 },
  ]);
  assert.equal(usageLine(usageBetween(a, b)), 'front proxies over the round: https://127.0.0.1:8443: 0.250 cores (quota 0.25, throttled 50 % of periods), ' +
    '1000 connections for 1000 requests; https://127.0.0.1:8444: 0.100 cores (quota 0.25, throttled 0 % of periods), 8 connections for 800 requests');
});

test('usageBetween: a proxy restarted in between (another pid) is not compared; no reading, no usage', () => {
  const a = reading(0, [proxy(0, 10, 5e8, 100, 10, 7, 70)]);
  const b = reading(1e9, [proxy(0, 12, 1e8, 10, 0, 1, 1)]);
  assert.deepEqual(usageBetween(a, b), [{ index: 0, url: 'https://127.0.0.1:8443' }]);
  assert.equal(usageBetween(null, b), null);
});
