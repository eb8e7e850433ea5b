// keepalive-chart.js — the study's keep-alive finding (study §5.2.3, §3.4.1): throughput
// against the number of loadgen instances through N TLS-terminating front proxies, keep-alive
// on and off, with the study's cap (about 100 req/s per proxy) drawn as a reference line per
// N, and the busiest proxy's CPU (its cgroup, rounds.environment.front_proxy_usage) beside.
// Only rounds that went through front proxies (rounds.plan.front_proxies) are drawn.

import { STUDY } from './study.js';

const SCHEMA = 'https://vega.github.io/schema/vega-lite/v6.json';
// study §5.2.3: each HAProxy handled at most about 100 req/s until its CPU hit the ceiling.
export const STUDY_PROXY_CAP_RPS = STUDY.proxyCap.perProxyRps;

const num = (x) => (x === null || x === undefined || !Number.isFinite(x) ? null : x);

/** The busiest front proxy's CPU of a round, % of one core (null: no proxies or not read). */
export function proxyCpuMaxPct(environment) {
  const usage = environment?.front_proxy_usage;
  if (!Array.isArray(usage)) return null;
  const cores = usage.map((u) => u.cpu_cores).filter((c) => typeof c === 'number' && Number.isFinite(c));
  return cores.length ? 100 * Math.max(...cores) : null;
}

/** One point per group of repeated rounds through front proxies. */
export function keepaliveRows(groups) {
  return groups.filter((g) => g.kind === 'rep' && g.front_proxies > 0 && g.stats.throughput_rps.n).map((g) => ({
    series: g.series, loadgens: g.loadgens, proxies: g.front_proxies, keepalive: g.keepalive ? 'on' : 'off',
    mean: num(g.stats.throughput_rps.mean), lo: num(g.stats.throughput_rps.ciLow), hi: num(g.stats.throughput_rps.ciHigh),
    proxyCpuPct: num(g.stats.proxy_cpu_max_pct?.mean), n: g.stats.throughput_rps.n,
  }));
}

/** The study's cap for each proxy count drawn: N × 100 req/s. */
export function capRows(rows) {
  return [...new Set(rows.map((r) => r.proxies))].sort((a, b) => a - b).map((n) => ({
    proxies: n, cap: n * STUDY_PROXY_CAP_RPS, label: `study cap: ${n} × ${STUDY_PROXY_CAP_RPS} req/s (${STUDY.proxyCap.cite})`,
  }));
}

export function keepaliveThroughput(a) {
  const v = keepaliveRows(a.groups);
  if (!v.length) return null;
  const x = { field: 'loadgens', type: 'quantitative', title: 'loadgen instances', axis: { tickMinStep: 1 } };
  const color = { field: 'series', type: 'nominal', title: 'app / variant' };
  const dash = { field: 'keepalive', type: 'nominal', title: 'keep-alive' };
  const tooltip = [{ field: 'series' }, { field: 'loadgens' }, { field: 'mean', title: 'req/s', format: '.1f' },
    { field: 'proxyCpuPct', title: 'busiest proxy CPU %', format: '.0f' }, { field: 'n' }];
  return {
    $schema: SCHEMA,
    title: { text: 'Throughput through TLS front proxies, keep-alive on and off (study §5.2.3)',
      subtitle: 'mean of the repetitions, bars: 95 % CI; dashed grey: the study\'s cap, about 100 req/s per proxy' },
    width: 420, height: 260,
    layer: [
      { data: { values: v }, mark: { type: 'line', point: true },
        encoding: { x, color, strokeDash: dash, tooltip, y: { field: 'mean', type: 'quantitative', title: 'throughput (req/s)' } } },
      { data: { values: v }, mark: { type: 'errorbar', ticks: true }, transform: [{ filter: 'datum.lo !== null' }],
        encoding: { x, color, y: { field: 'lo', type: 'quantitative', title: 'throughput (req/s)' }, y2: { field: 'hi' } } },
      { data: { values: capRows(v) }, mark: { type: 'rule', strokeDash: [4, 4], color: 'gray' },
        encoding: { y: { field: 'cap', type: 'quantitative' }, tooltip: [{ field: 'label' }] } },
      { data: { values: capRows(v) }, mark: { type: 'text', align: 'left', dx: 4, dy: -6, color: 'gray' },
        encoding: { x: { datum: Math.min(...v.map((r) => r.loadgens)) }, y: { field: 'cap', type: 'quantitative' }, text: { field: 'label' } } },
    ],
  };
}
