'use strict';
// event-summary.js — the round summary's lines for its events (run-round.sh --event): per
// event the command and how it went, the steady traffic before t0 against the old instances
// around it, the errors after it and where they came from; per new instance the time to its
// first served request and its stages, per stopped one its SIGTERM, last served request and
// errors (results-schema.sql round_events, round_event_traffic, round_event_stages).
//
// loadEvents(client, roundId) → { events, traffic, stages } (empty lists for a round without
// events); eventLines(loaded) → lines of text.

const EVENTS_SQL = 'SELECT * FROM round_events WHERE round_id = $1 ORDER BY seq';
const TRAFFIC_SQL = 'SELECT * FROM round_event_traffic WHERE round_id = $1 ORDER BY seq';
const STAGES_SQL = `SELECT * FROM round_event_stages WHERE round_id = $1
  ORDER BY seq, role, instance_index, coalesce(seen_at, stopping_at)`;

async function loadEvents(client, roundId) {
  // A results database from before events has no such table: no events.
  const has = (await client.query("SELECT to_regclass('round_events') IS NOT NULL AS has")).rows[0].has;
  const events = has ? (await client.query(EVENTS_SQL, [roundId])).rows : [];
  if (!events.length) return { events, traffic: [], stages: [] };
  const traffic = (await client.query(TRAFFIC_SQL, [roundId])).rows;
  const stages = (await client.query(STAGES_SQL, [roundId])).rows;
  return { events, traffic, stages };
}

const num = (v) => (v === null || v === undefined ? null : Number(v));
const s = (ms) => (num(ms) === null ? '-' : `${(num(ms) / 1000).toFixed(2)} s`);
const ms = (us) => (num(us) === null ? '-' : `${(num(us) / 1000).toFixed(2)} ms`);
const since = (at, t0) => (at ? `+${((new Date(at) - new Date(t0)) / 1000).toFixed(2)} s` : '-');
const pct = (v) => (num(v) === null ? '-' : `${num(v).toFixed(0)} %`);
const kinds = (obj) => Object.entries(obj || {}).sort((a, b) => b[1] - a[1]).map(([k, n]) => `${k} ${n}`).join(', ');

function what(e) {
  if (e.kind === 'scale') return `scale ${e.instances_before} → ${e.instances_after}`;
  return `${e.kind === 'deploy' ? 'rolling push' : 'rolling restart'} of ${e.instances_after}`;
}

function newInstanceLine(r) {
  const head = `    instance ${r.instance_index} (new${r.kind === 'scale' ? '' : `, ${String(r.instance_guid).slice(0, 8)}`}): `;
  if (!r.first_served_at) {
    return `${head}never served a request in the round (listed ${since(r.seen_at, r.t0)}, running ${since(r.running_at, r.t0)}, `
      + `router ${since(r.routable_at, r.t0)})`;
  }
  // Each stage comes from its own clock or look-up and is at least 0: their sum may pass the
  // end-to-end time by a look-up's lag; more than a second is said.
  const sum = ['queued_ms', 'starting_ms', 'routing_ms', 'first_request_ms'].reduce((t, k) => t + (num(r[k]) ?? 0), 0);
  const off = sum - num(r.end_to_end_ms) > 1000 ? ` (the stages add up to ${s(sum)}: a look-up lagged)` : '';
  return `${head}first served request after ${s(r.end_to_end_ms)}: queued ${s(r.queued_ms)} + starting ${s(r.starting_ms)}`
    + ` + routing ${s(r.routing_ms)} + answering ${s(r.first_request_ms)}${off};`
    + ` its first 60 s p99 ${ms(r.first_60s_p99_us)} (${pct(r.first_60s_p99_pct)} of the steady p99, ${r.first_60s_samples} requests)`;
}

function stoppedLine(r) {
  const head = `    instance ${r.instance_index} (stopped${r.kind === 'scale' ? '' : `, ${String(r.instance_guid).slice(0, 8)}`}): `;
  return `${head}SIGTERM ${since(r.stopping_at, r.t0)}${r.stopping_at ? '' : ' (no cell line seen)'}, last answer ${since(r.last_served_at, r.t0)}, `
    + `${r.stop_errors} errors (${r.stop_resets} resets) in its ${r.stopping_at ? '10 s after SIGTERM' : '10 s after t0'}`;
}

function trafficLines(t) {
  if (!t) return [];
  const ratio = num(t.baseline_p99_us) && num(t.old_p99_us) ? ` (${pct((num(t.old_p99_us) / num(t.baseline_p99_us)) * 100)} of steady)` : '';
  return [
    `    steady before t0: p50 ${ms(t.baseline_p50_us)}, p99 ${ms(t.baseline_p99_us)}, ${t.baseline_errors} errors in ${t.baseline_samples} requests`,
    `    old instances in [t0 - 30 s, t0 + 60 s]: p50 ${ms(t.old_p50_us)}, p99 ${ms(t.old_p99_us)}${ratio}, ${t.old_errors} errors in ${t.old_samples} requests`,
    `    errors in [t0, t0 + 60 s]: ${t.errors}${Number(t.errors) ? ` (${kinds(t.errors_by_kind)}; by instance: ${kinds(t.errors_by_instance)})` : ''}`,
  ];
}

function eventLines({ events, traffic, stages }) {
  if (!events.length) return [];
  const lines = [`events: ${events.length}`];
  for (const e of events) {
    const cmd = e.exit_code === null ? 'still running' : `exit ${e.exit_code} after ${s(e.command_ms)}`;
    const settled = e.settled_at ? `settled ${since(e.settled_at, e.t0)}` : `NOT settled: ${e.detail}`;
    lines.push(`  event ${e.seq} at ${(Number(e.at_ms) / 1000).toFixed(1)} s: ${what(e)} (${e.command}: ${cmd}; ${settled})`
      + `${e.settled_at && e.detail ? `: ${e.detail}` : ''}`);
    lines.push(...trafficLines(traffic.find((t) => t.seq === e.seq)));
    for (const r of stages.filter((x) => x.seq === e.seq)) lines.push(r.role === 'new' ? newInstanceLine(r) : stoppedLine(r));
  }
  return lines;
}

module.exports = { loadEvents, eventLines };
