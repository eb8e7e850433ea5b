'use strict';
// front-proxies.js — run-round's --front-proxies N (local only): N TLS-terminating HAProxy
// front proxies before the router, as the study's landscape had (study §5.2.3;
// local-platform/README.md "TLS front proxies"). The loadgens then send HTTPS to them, spread
// like round-robin DNS (rounds.plan.target_urls; loadgen instance i → entry i mod N), while
// the workstation's own requests (seeding, prewarm, timings) still go to the router. The
// proxies' CPU over the round, read from their cgroups, goes into the round's environment
// (front_proxy_usage) and one summary line.
const path = require('node:path');
const { capture } = require('../ops/exec');

// The local platform's own verb: not a cf command, so always scripts/cfl.
const CFL = path.join(__dirname, '..', 'cfl');

/** Makes N proxies run (cfl front-proxies -n N) and returns their URLs; dies when it cannot. */
async function startFrontProxies(p, n) {
  await p.mustRun([CFL, 'front-proxies', '-n', String(n)]);
  if (p.dryRun) return Array.from({ length: n }, (_, i) => `https://<front-proxy-${i}>`);
  const r = await capture([CFL, 'front-proxies']);
  const urls = r.code === 0 ? r.stdout.split('\n').filter(Boolean) : [];
  if (urls.length !== n) p.cli.die(`cfl front-proxies: want ${n} URLs, got ${urls.length}: ${r.stderr || r.stdout}`);
  return urls;
}

/** The proxies' counters now (cfl front-proxies --json) with the time read, or null. */
async function readUsage(p) {
  if (p.dryRun) return null;
  const r = await capture([CFL, 'front-proxies', '--json'], { stderr: 'ignore' });
  if (r.code !== 0) return null;
  try { return { atNs: process.hrtime.bigint(), proxies: JSON.parse(r.stdout) }; } catch { return null; }
}

/**
 * Per proxy between two readings: CPU in cores (average over the span), the quota, the
 * share of CFS periods it was throttled in, client connections and requests.
 */
function usageBetween(a, b) {
  if (!a || !b) return null;
  const spanNs = Number(b.atNs - a.atNs);
  return b.proxies.map((q) => {
    const s = a.proxies.find((x) => x.index === q.index && x.pid === q.pid);
    if (!s || spanNs <= 0) return { index: q.index, url: q.url };
    const tp = q.throttling && s.throttling ? q.throttling.periods - s.throttling.periods : null;
    return {
      index: q.index, url: q.url, cpu_quota: q.cpu_quota,
      cpu_cores: q.cpu_ns !== null && s.cpu_ns !== null ? (q.cpu_ns - s.cpu_ns) / spanNs : null,
      throttled_share: tp ? (q.throttling.throttled_periods - s.throttling.throttled_periods) / tp : null,
      connections: q.sessions - s.sessions, requests: q.requests - s.requests,
    };
  });
}

/** One summary line for the usage list. */
function usageLine(usage) {
  const cell = (u) => `${u.url}: ${u.cpu_cores === null || u.cpu_cores === undefined ? '?' : u.cpu_cores.toFixed(3)} cores` +
    ` (quota ${u.cpu_quota ?? 'none'}, throttled ${u.throttled_share === null || u.throttled_share === undefined ? '?' : `${Math.round(u.throttled_share * 100)} %`}` +
    ` of periods), ${u.connections} connections for ${u.requests} requests`;
  return `front proxies over the round: ${usage.map(cell).join('; ')}`;
}

module.exports = { startFrontProxies, readUsage, usageBetween, usageLine };
