// keepalive-chart.js — the study's keep-alive finding (study §5.2.3, §3.4.1): throughput
// against the number of loadgen instances through N TLS-terminating front proxies, keep-alive
// on and off, with the study's cap (about 100 req/s per proxy) drawn as a reference line per
// N, and the busiest proxy's CPU (its cgroup, rounds.environment.front_proxy_usage) beside.
// Only rounds that went through front proxies (rounds.plan.front_proxies) are drawn.
'use strict';

const { STUDY } = require('./study.js');

const SCHEMA = 'https://vega.github.io/schema/vega-lite/v6.json';
// study §5.2.3: each HAProxy handled at most about 100 req/s until its CPU hit the ceiling.
const STUDY_PROXY_CAP_RPS = STUDY.proxyCap.perProxyRps;

const num = (x) => (x === null || x === undefined || !Number.isFinite(x) ? null : x);
// Throughput is never negative: a lower interval end below 0 is drawn at 0 (groups.csv keeps it).
const low = (x) => (num(x) === null ? null : Math.max(0, x));

/** The busiest front proxy's CPU of a round, % of one core (null: no proxies or not read). */
function proxyCpuMaxPct(environment) {
  const usage = environment?.front_proxy_usage;
  if (!Array.isArray(usage)) return null;
  const cores = usage.map((u) => u.cpu_cores).filter((c) => typeof c === 'number' && Number.isFinite(c));
  return cores.length ? 100 * Math.max(...cores) : null;
}

/** One point per group of repeated rounds through front proxies. */
function keepaliveRows(groups) {
  return groups.filter((g) => g.kind === 'rep' && g.front_proxies > 0 && g.stats.throughput_rps.n).map((g) => ({
    series: g.series, loadgens: g.loadgens, proxies: g.front_proxies, keepalive: g.keepalive ? 'on' : 'off',
    mean: num(g.stats.throughput_rps.mean), lo: low(g.stats.throughput_rps.ciLow), hi: num(g.stats.throughput_rps.ciHigh),
    proxyCpuPct: num(g.stats.proxy_cpu_max_pct?.mean), n: g.stats.throughput_rps.n,
  }));
}

/** The study's cap for each proxy count drawn: N × 100 req/s. */
function capRows(rows) {
  return [...new Set(rows.map((r) => r.proxies))].sort((a, b) => a - b).map((n) => ({
    proxies: n, cap: n * STUDY_PROXY_CAP_RPS, label: `cap ${n} × ${STUDY_PROXY_CAP_RPS} req/s (${STUDY.proxyCap.cite})`,
  }));
}

function keepaliveThroughput(a) {
  const v = keepaliveRows(a.groups);
  if (!v.length) return null;
  const x = { field: 'loadgens', type: 'quantitative', title: 'loadgen instances', axis: { tickMinStep: 1 } };
  // Symmetric log: the capped rounds (hundreds) and the kept-alive ones (thousands) both readable.
  const yScale = { type: 'symlog' };
  const color = { field: 'keepalive', type: 'nominal', title: 'keep-alive' };
  const dash = { field: 'proxies', type: 'ordinal', title: 'front proxies' };
  const yTitle = 'throughput (req/s, symmetric log scale)';
  const tooltip = [{ field: 'series' }, { field: 'loadgens' }, { field: 'mean', title: 'req/s', format: '.1f' },
    { field: 'proxyCpuPct', title: 'busiest proxy CPU %', format: '.0f' }, { field: 'n' }];
  const caps = capRows(v);
  return {
    $schema: SCHEMA,
    title: { text: 'Throughput through TLS front proxies, keep-alive on and off (study §5.2.3)',
      subtitle: 'mean of the repetitions, bars: 95 % CI (drawn from 0); grey: the study\'s cap, about 100 req/s per proxy × proxies' },
    width: 420, height: 260,
    layer: [
      { data: { values: v }, mark: { type: 'line', point: true },
        encoding: { x, color, strokeDash: dash, detail: { field: 'series' }, tooltip,
          y: { field: 'mean', type: 'quantitative', title: yTitle, scale: yScale } } },
      { data: { values: v }, mark: { type: 'errorbar', ticks: true }, transform: [{ filter: 'datum.lo !== null' }],
        encoding: { x, color, detail: { field: 'series' }, y: { field: 'lo', type: 'quantitative', title: yTitle, scale: yScale }, y2: { field: 'hi' } } },
      { data: { values: caps }, mark: { type: 'rule', strokeDash: [4, 4], color: 'gray' },
        encoding: { y: { field: 'cap', type: 'quantitative', title: yTitle, scale: yScale }, tooltip: [{ field: 'label' }] } },
      { data: { values: caps }, mark: { type: 'text', align: 'right', dy: -5, color: 'gray' },
        encoding: { x: { datum: Math.max(...v.map((r) => r.loadgens)) }, y: { field: 'cap', type: 'quantitative', title: yTitle, scale: yScale }, text: { field: 'label' } } },
    ],
  };
}

module.exports = { proxyCpuMaxPct, keepaliveRows, capRows, keepaliveThroughput, STUDY_PROXY_CAP_RPS };
