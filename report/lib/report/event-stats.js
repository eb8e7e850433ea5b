// event-stats.js — the figures of events inside rounds (run-round --event, results-schema.sql
// round_event_stages, round_event_traffic): per app and event kind, the time from the cf call
// to each new instance's first served request — p50 and p95 over the new instances — with 95 %
// intervals from a bootstrap that resamples whole events (the event is the unit of replication:
// one event's instances share its moment, its load and its neighbours), the mean stages, a new
// instance's p99 over its first 60 s in % of the steady p99 before the event, and the errors per
// event. Pure; the bootstrap is seeded, so a report is reproducible.
'use strict';

const { seededRandom: prng } = require('../../../lib/seeded-random.js');

const B = 2000;
const SEED = 20260101;

/** The q-quantile of xs by linear interpolation between order statistics (PostgreSQL's percentile_cont). */
function quantile(xs, q) {
  const v = xs.filter(Number.isFinite).sort((a, b) => a - b);
  if (!v.length) return NaN;
  const pos = (v.length - 1) * q;
  const lo = Math.floor(pos);
  return v[lo] + (v[Math.min(lo + 1, v.length - 1)] - v[lo]) * (pos - lo);
}

/**
 * The q-quantile of the values of every cluster, with a 95 % percentile-bootstrap interval over
 * the clusters (each an array of values): { value, ciLow, ciHigh, n (values), clusters }. Fewer
 * than 2 clusters: no interval (NaN).
 */
function clusteredQuantile(clusters, q, { b = B, seed = SEED } = {}) {
  const kept = clusters.map((c) => c.filter(Number.isFinite)).filter((c) => c.length);
  const value = quantile(kept.flat(), q);
  const out = { value, ciLow: NaN, ciHigh: NaN, n: kept.flat().length, clusters: kept.length };
  if (kept.length < 2) return out;
  const rand = prng(seed);
  const stats = [];
  for (let i = 0; i < b; i++) {
    const sample = [];
    for (let j = 0; j < kept.length; j++) sample.push(...kept[Math.floor(rand() * kept.length)]);
    stats.push(quantile(sample, q));
  }
  return { ...out, ciLow: quantile(stats, 0.025), ciHigh: quantile(stats, 0.975) };
}

const num = (v) => (v === null || v === undefined ? NaN : Number(v));
const meanOf = (xs) => {
  const v = xs.filter(Number.isFinite);
  return v.length ? v.reduce((s, x) => s + x, 0) / v.length : NaN;
};

/** `scale-out`, `scale-in`, `deploy`, `restart`: what an event did. */
function eventKind(e) {
  if (e.kind !== 'scale') return e.kind;
  return Number(e.instances_after) > Number(e.instances_before) ? 'scale-out' : 'scale-in';
}

/**
 * Per app and event kind: { app, kind, events, first_served_p50_s, first_served_p95_s (each
 * {value, ciLow, ciHigh, n, clusters}), never_served, stage means (s), first_60s_p99_pct,
 * errors per event (mean, max), stopped instances' errors and resets }. ev: { events,
 * stages, traffic } with app on each event row.
 */
function eventSummary(ev) {
  const groups = new Map();
  for (const e of ev.events) {
    const k = `${e.app}\u0000${eventKind(e)}`;
    if (!groups.has(k)) groups.set(k, { app: e.app, kind: eventKind(e), events: [] });
    groups.get(k).events.push(e);
  }
  const key = (x) => `${x.round_id}/${x.seq}`;
  const out = [];
  for (const g of groups.values()) {
    const ids = new Set(g.events.map(key));
    const news = ev.stages.filter((s) => ids.has(key(s)) && s.role === 'new');
    const stopped = ev.stages.filter((s) => ids.has(key(s)) && s.role === 'stopped');
    const clusters = g.events.map((e) => news.filter((s) => key(s) === key(e)).map((s) => num(s.end_to_end_ms) / 1000));
    const traffic = ev.traffic.filter((t) => ids.has(key(t)));
    const errors = traffic.map((t) => num(t.errors));
    out.push({
      app: g.app, kind: g.kind, events: g.events.length, new_instances: news.length,
      never_served: news.filter((s) => !s.first_served_at).length,
      first_served_p50_s: clusteredQuantile(clusters, 0.5),
      first_served_p95_s: clusteredQuantile(clusters, 0.95),
      queued_s: meanOf(news.map((s) => num(s.queued_ms) / 1000)),
      starting_s: meanOf(news.map((s) => num(s.starting_ms) / 1000)),
      routing_s: meanOf(news.map((s) => num(s.routing_ms) / 1000)),
      answering_s: meanOf(news.map((s) => num(s.first_request_ms) / 1000)),
      first_60s_p99_pct: clusteredQuantile(g.events.map((e) => news.filter((s) => key(s) === key(e)).map((s) => num(s.first_60s_p99_pct))), 0.5),
      old_p99_pct: meanOf(traffic.map((t) => (num(t.old_p99_us) / num(t.baseline_p99_us)) * 100)),
      errors_mean: meanOf(errors), errors_max: errors.length ? Math.max(...errors.filter(Number.isFinite), 0) : NaN,
      events_with_errors: errors.filter((x) => x > 0).length,
      stopped_errors: stopped.reduce((s, x) => s + num(x.stop_errors || 0), 0),
      stopped_resets: stopped.reduce((s, x) => s + num(x.stop_resets || 0), 0),
    });
  }
  return out.sort((a, b) => (a.app === b.app ? a.kind.localeCompare(b.kind) : a.app.localeCompare(b.app)));
}

module.exports = { eventSummary, clusteredQuantile, quantile, eventKind, prng };
