'use strict';
// Events inside rounds in the report (pure): the clustered quantiles and their bootstrap over
// events, the summary per app and event kind, the timeline's values around t0. No database.

const test = require('node:test');
const assert = require('node:assert/strict');
const { clusteredQuantile, quantile, eventSummary, eventKind } = require('../lib/report/event-stats.js');
const { timelineValues, eventThroughput } = require('../lib/report/event-charts.js');

test('quantile: linear between order statistics, as PostgreSQL percentile_cont', () => {
  assert.equal(quantile([4, 1, 3, 2], 0.5), 2.5);
  assert.equal(quantile([1, 2, 3, 4, 5], 0.95), 4.8);
  assert.ok(Number.isNaN(quantile([], 0.5)));
});

test('clusteredQuantile: the value over every instance; its interval resamples events, seeded; one event has none', () => {
  const clusters = [[1, 1.2], [1.1, 1.3], [0.9, 1.0], [2.0, 2.2], [1.0, 1.1]];
  const a = clusteredQuantile(clusters, 0.5);
  assert.equal(a.value, quantile(clusters.flat(), 0.5));
  assert.deepEqual([a.n, a.clusters], [10, 5]);
  assert.ok(a.ciLow <= a.value && a.value <= a.ciHigh && a.ciLow < a.ciHigh);
  assert.deepEqual(clusteredQuantile(clusters, 0.5), a, 'the same seed, the same interval');
  const one = clusteredQuantile([[1, 2]], 0.5);
  assert.equal(one.value, 1.5);
  assert.ok(Number.isNaN(one.ciLow) && Number.isNaN(one.ciHigh));
});

const t0 = '2026-01-01T00:00:30.000Z';
const at = (s) => new Date(Date.parse(t0) + s * 1000).toISOString();
const ev = {
  events: [
    { round_id: 1, seq: 1, kind: 'scale', instances_before: 2, instances_after: 4, app: 'node-app', t0, t0_s: 30 },
    { round_id: 2, seq: 1, kind: 'scale', instances_before: 2, instances_after: 1, app: 'node-app', t0, t0_s: 30 },
    { round_id: 3, seq: 1, kind: 'deploy', instances_before: 2, instances_after: 2, app: 'java-app', t0, t0_s: 30 },
  ],
  stages: [
    { round_id: 1, seq: 1, role: 'new', end_to_end_ms: 2000, queued_ms: 500, starting_ms: 1000, routing_ms: 0, first_request_ms: 500, first_60s_p99_pct: 150, running_at: at(1.5), first_served_at: at(2) },
    { round_id: 1, seq: 1, role: 'new', end_to_end_ms: 3000, queued_ms: 500, starting_ms: 2000, routing_ms: 0, first_request_ms: 500, first_60s_p99_pct: 250, running_at: at(2.5), first_served_at: at(3) },
    { round_id: 2, seq: 1, role: 'stopped', stop_errors: 1, stop_resets: 1, stopping_at: at(0.5) },
    { round_id: 3, seq: 1, role: 'new', end_to_end_ms: null, first_served_at: null },
  ],
  traffic: [
    { round_id: 1, seq: 1, errors: 0, old_p99_us: 5000, baseline_p99_us: 4000 },
    { round_id: 2, seq: 1, errors: 3, old_p99_us: 4000, baseline_p99_us: 4000 },
    { round_id: 3, seq: 1, errors: 0, old_p99_us: 8000, baseline_p99_us: 4000 },
  ],
};

test('eventSummary: per app and kind — scale-out, scale-in, deploy — times, stages, errors', () => {
  assert.deepEqual(ev.events.map(eventKind), ['scale-out', 'scale-in', 'deploy']);
  const s = eventSummary(ev);
  assert.deepEqual(s.map((x) => [x.app, x.kind, x.events, x.new_instances, x.never_served]),
    [['java-app', 'deploy', 1, 1, 1], ['node-app', 'scale-in', 1, 0, 0], ['node-app', 'scale-out', 1, 2, 0]]);
  const out = s[2];
  assert.equal(out.first_served_p50_s.value, 2.5);
  assert.equal(out.starting_s, 1.5);
  assert.equal(out.first_60s_p99_pct.value, 200);
  assert.equal(out.old_p99_pct, 125);
  const inn = s[1];
  assert.deepEqual([inn.errors_mean, inn.errors_max, inn.events_with_errors, inn.stopped_errors, inn.stopped_resets], [3, 3, 1, 1, 1]);
});

test('timeline: the seconds around t0 and the stages as marks, seconds from t0', () => {
  const a = { events: ev, series: { seconds: [{ round_id: 1, second: 0, ok: 10, errors: 0, p99_us: 1000 }, { round_id: 1, second: 31, ok: 12, errors: 1, p99_us: 2000 },
    { round_id: 1, second: 200, ok: 9, errors: 0, p99_us: 1000 }] } };
  const v = timelineValues(a).filter((x) => x.round_id === 1);
  assert.deepEqual(v.filter((x) => !x.mark).map((x) => [x.second, x.ok]), [[-30, 10], [1, 12]], 'a second beyond 90 s after t0 is left out');
  assert.deepEqual(v.filter((x) => x.mark).map((x) => [x.mark, x.second]), [['running', 1.5], ['first served', 2], ['running', 2.5], ['first served', 3]]);
  assert.ok(eventThroughput(a).facet);
  assert.equal(eventThroughput({ events: { events: [], stages: [], traffic: [] }, series: { seconds: [] } }), null);
});
