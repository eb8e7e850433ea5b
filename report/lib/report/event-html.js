// event-html.js — the report's section on events inside rounds (run-round --event): per app
// and event kind the time from the cf call to a new instance's first served request (p50,
// p95, each with its 95 % interval over events: event-stats.js), its stages, its latency over
// its first 60 s against the steady p99, the old instances' p99 around the event, and the
// errors per event and of the stopped instances.
'use strict';

const esc = (s) => String(s ?? '').replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' }[c]));
const fmt = (x, d = 1) => (x === null || x === undefined || !Number.isFinite(x) ? '–' : Number(x).toFixed(d));
const q = (x, d = 2) => `${fmt(x.value, d)} <span class="ci">[${fmt(x.ciLow, d)}, ${fmt(x.ciHigh, d)}]</span>`;

function eventsHtml(a) {
  if (!a.eventSummary.length) return '';
  const head = ['app', 'event', 'events', 'new instances (never served)', 'first served request p50 s [95 % CI]', 'p95 s [95 % CI]',
    'stages (mean s): queued + starting + routing + answering', 'new instance first-60 s p99, % of steady [CI]',
    'old instances p99, % of steady', 'errors per event: mean, max (events with any)', 'stopped instances: errors, resets'];
  const rows = a.eventSummary.map((s) => [
    esc(s.app), esc(s.kind), s.events, `${s.new_instances} (${s.never_served})`,
    s.new_instances ? q(s.first_served_p50_s) : '–', s.new_instances ? q(s.first_served_p95_s) : '–',
    s.new_instances ? `${fmt(s.queued_s, 2)} + ${fmt(s.starting_s, 2)} + ${fmt(s.routing_s, 2)} + ${fmt(s.answering_s, 2)}` : '–',
    s.new_instances ? q(s.first_60s_p99_pct, 0) : '–', fmt(s.old_p99_pct, 0),
    `${fmt(s.errors_mean, 2)}, ${fmt(s.errors_max, 0)} (${s.events_with_errors})`, `${s.stopped_errors}, ${s.stopped_resets}`,
  ]);
  return `<h2>Events inside the rounds: time to first served request</h2>
<p>Per app and event kind, over every new instance of every event: the time from the cf call (t0) to the first request the
instance served, its p50 and p95 with a 95 % percentile-bootstrap interval that resamples whole events (an event's instances
share its moment and its load), and the mean of each stage (listed by Cloud Controller, RUNNING in v3 stats, the router's first
record, the first answer). A new instance's p99 over its first 60 s of serving is given in % of the steady p99 before t0 (median
over instances). Errors count every request that failed in [t0, t0 + 60 s]; a stopped instance's are those the router had sent it
in the 10 s after its SIGTERM. The timelines are in the charts above; every row in <a href="csv/event-stages.csv">event-stages.csv</a>.</p>
<table><thead><tr>${head.map((h) => `<th>${esc(h)}</th>`).join('')}</tr></thead><tbody>
${rows.map((r) => `<tr>${r.map((c) => `<td>${c}</td>`).join('')}</tr>`).join('\n')}
</tbody></table>`;
}

module.exports = { eventsHtml };
