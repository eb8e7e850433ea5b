// event-charts.js — one timeline per event inside a round (run-round --event): seconds from
// t0 (the cf call) on the x axis, the round's throughput and errors per second, and its p99
// per second, with each instance's stages marked (new: RUNNING, the router's first record, its
// first served request; stopped: SIGTERM). From the per-second series (round_seconds) and
// round_event_stages, read by event-data.js.
'use strict';

const SCHEMA = 'https://vega.github.io/schema/vega-lite/v6.json';
// Beyond this many events the panels show the newest only (the CSVs keep every one).
const MAX_EVENTS_CHARTED = 24;
const BEFORE_S = 30;
const AFTER_S = 90;
const PANEL = { width: 260, height: 110 };
const STAGES = [['running_at', 'running'], ['routable_at', 'routed'], ['first_served_at', 'first served'], ['stopping_at', 'SIGTERM']];

const title = (e) => `round ${e.round_id} · ${e.app} · ${e.kind === 'scale' ? `scale ${e.instances_before}→${e.instances_after}` : e.kind}`;

function charted(a) {
  return [...a.events.events].sort((x, y) => x.round_id - y.round_id || x.seq - y.seq).slice(-MAX_EVENTS_CHARTED);
}

/** Per charted event its seconds around t0 and its stage marks: [{event, second (from t0), …}]. */
function timelineValues(a) {
  const out = [];
  for (const e of charted(a)) {
    const name = title(e);
    const t0s = Number(e.t0_s);
    for (const s of a.series.seconds) {
      if (s.round_id !== e.round_id) continue;
      const second = s.second - t0s;
      if (second < -BEFORE_S || second > AFTER_S) continue;
      out.push({ event: name, round_id: e.round_id, seq: e.seq, second, ok: s.ok, errors: s.errors, p99_ms: s.p99_us > 0 ? s.p99_us / 1000 : null });
    }
    for (const st of a.events.stages.filter((x) => x.round_id === e.round_id && x.seq === e.seq)) {
      for (const [field, stage] of STAGES) {
        if (!st[field]) continue;
        out.push({ event: name, round_id: e.round_id, seq: e.seq, mark: stage, second: (new Date(st[field]) - new Date(e.t0)) / 1000 });
      }
    }
  }
  return out;
}

function timeline(a, what, layer) {
  if (!a.events?.events?.length) return null; // an analysis of rounds without events
  const v = timelineValues(a);
  if (!v.some((x) => x.mark === undefined)) return null;
  const n = a.events.events.length;
  return {
    $schema: SCHEMA,
    title: { text: `${what} around each event`, subtitle: `s from the cf call (t0); lines: the instances' stages; ${n > MAX_EVENTS_CHARTED ? `the newest ${MAX_EVENTS_CHARTED} of ${n} events` : `${n} event(s)`}` },
    data: { values: v }, facet: { field: 'event', type: 'nominal', title: null, sort: { field: 'round_id' } }, columns: 3,
    spec: {
      ...PANEL,
      layer: [...layer, {
        mark: { type: 'rule', strokeWidth: 1 }, transform: [{ filter: 'datum.mark' }],
        encoding: { x: { field: 'second', type: 'quantitative' }, color: { field: 'mark', type: 'nominal', title: 'stage', sort: STAGES.map((s) => s[1]) } },
      }],
    },
    resolve: { scale: { y: 'independent' } },
  };
}

const x = { field: 'second', type: 'quantitative', title: 's from t0', scale: { domain: [-BEFORE_S, AFTER_S] } };

/** Throughput (ok answers) and errors per second around each event. */
function eventThroughput(a) {
  return timeline(a, 'Throughput and errors per second', [
    { mark: { type: 'point', filled: true, size: 10, color: '#1f77b4' }, transform: [{ filter: '!datum.mark' }],
      encoding: { x, y: { field: 'ok', type: 'quantitative', title: 'req/s' } } },
    { mark: { type: 'tick', color: '#d62728' }, transform: [{ filter: '!datum.mark && datum.errors > 0' }],
      encoding: { x, y: { field: 'errors', type: 'quantitative', title: 'req/s' } } },
  ]);
}

/** p99 per second around each event (log scale). */
function eventLatency(a) {
  return timeline(a, 'p99 per second', [
    { mark: { type: 'line', strokeWidth: 1, color: '#444' }, transform: [{ filter: '!datum.mark && datum.p99_ms !== null' }],
      encoding: { x, y: { field: 'p99_ms', type: 'quantitative', title: 'p99 ms', scale: { type: 'log' } } } },
  ]);
}

const EVENT_CHARTS = [['event-throughput', eventThroughput], ['event-latency', eventLatency]];

module.exports = { eventThroughput, eventLatency, timelineValues, EVENT_CHARTS, MAX_EVENTS_CHARTED };
