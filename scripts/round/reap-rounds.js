'use strict';
// reap-rounds.js — mark failed, with the reason, every round still pending or running
// whose control process is gone: its heartbeat (rounds.heartbeat_at, written by run-round
// every few seconds, heartbeat.js) is older than round_heartbeat_timeout()
// (results-schema.sql round_stale). run-round reaps before it creates its round;
// `scripts/rounds.sh --reap` on demand.
//
//   reapRounds(client) → [{ id, status_reason }]
//   printReaped(db): one line per round reaped and the count (scripts/rounds.sh --reap)
const { withClient } = require('../ops/results-db');

const PROG = 'reap-rounds';
const REAP_SQL = `UPDATE rounds r SET status = 'failed', finished_at = now(),
    status_reason = 'control process gone: no heartbeat since '
      || to_char(coalesce(r.heartbeat_at, r.created_at) AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"')
      || ' (run-round stopped before the round was final)'
  WHERE round_stale(r)
  RETURNING r.id, r.status_reason`;

async function reapRounds(client) {
  const { rows } = await client.query(REAP_SQL);
  return rows.map((r) => ({ id: Number(r.id), status_reason: r.status_reason })).sort((a, b) => a.id - b.id);
}

const reapedLine = (r) => `round ${r.id}: failed: ${r.status_reason}`;

/** Reap and print one line per round reaped and the count; a database error: one line, exit 1. */
async function printReaped(db) {
  const reaped = await withClient(db, PROG, reapRounds);
  for (const r of reaped) process.stdout.write(`${reapedLine(r)}\n`);
  process.stdout.write(`${PROG}: ${reaped.length} round(s) reaped\n`);
}

module.exports = { reapRounds, reapedLine, printReaped };
