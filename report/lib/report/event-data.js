// event-data.js — what the report reads on the events inside a round (run-round --event;
// results-schema.sql round_events, round_event_stages, round_event_traffic): per event its
// kind, t0 and t0's second since the round's start (the per-second series count from there),
// per instance its stages, per event the traffic around it. A results database from before
// events has none.
'use strict';

const EVENTS_SQL = `SELECT e.round_id::int AS round_id, e.seq, e.kind, e.at_ms, e.instances_before, e.instances_after, e.t0,
    extract(epoch FROM e.t0 - r.start_at)::float8 AS t0_s, e.exit_code, e.settled_at, e.detail, r.app, r.label
  FROM round_events e JOIN rounds r ON r.id = e.round_id WHERE e.round_id = $1 ORDER BY e.seq`;
const STAGES_SQL = `SELECT round_id::int AS round_id, seq, role, instance_index, instance_guid, t0, seen_at, running_at, routable_at,
    first_served_at, stopping_at, last_served_at, queued_ms, starting_ms, routing_ms, first_request_ms, end_to_end_ms,
    first_60s_samples::int AS first_60s_samples, first_60s_p99_us, first_60s_p99_pct, stop_errors::int AS stop_errors, stop_resets::int AS stop_resets
  FROM round_event_stages WHERE round_id = $1 ORDER BY seq, role, instance_index`;
const TRAFFIC_SQL = `SELECT round_id::int AS round_id, seq, baseline_samples::int AS baseline_samples, baseline_p50_us, baseline_p99_us,
    baseline_errors::int AS baseline_errors, old_samples::int AS old_samples, old_p50_us, old_p99_us, old_errors::int AS old_errors,
    errors::int AS errors, resets::int AS resets, errors_by_kind, errors_by_instance
  FROM round_event_traffic WHERE round_id = $1 ORDER BY seq`;

/** Adds round id's events, stages and traffic to `ev` ({events, stages, traffic}). */
async function loadEventData(client, id, ev) {
  const has = (await client.query("SELECT to_regclass('round_events') IS NOT NULL AS has")).rows[0].has;
  if (!has) return;
  const events = (await client.query(EVENTS_SQL, [id])).rows;
  if (!events.length) return;
  ev.events.push(...events);
  ev.stages.push(...(await client.query(STAGES_SQL, [id])).rows);
  ev.traffic.push(...(await client.query(TRAFFIC_SQL, [id])).rows);
}

module.exports = { loadEventData };
