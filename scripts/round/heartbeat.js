'use strict';
// heartbeat.js — the control process's sign of life: rounds.heartbeat_at = now() every
// HEARTBEAT_MS from the round's insert until it is final (round.js). A round whose
// heartbeat is older than round_heartbeat_timeout() (results-schema.sql) lost its control
// process and is reaped (reap-rounds.js). A beat that cannot be written while the database
// is away is skipped; the next one after it is back counts.
//
// startHeartbeat(conn, roundId) → { stop() } — conn: a results-db.js Connection (or a pg Client).

const HEARTBEAT_MS = 5000;
const BEAT_SQL = 'UPDATE rounds SET heartbeat_at = now() WHERE id = $1';

function startHeartbeat(conn, roundId, { intervalMs = HEARTBEAT_MS } = {}) {
  let busy = false;
  const beat = () => {
    if (busy) return; // one beat at a time: a retried one stands for those meanwhile
    busy = true;
    conn.query(BEAT_SQL, [roundId]).catch(() => {}).finally(() => { busy = false; });
  };
  beat();
  const timer = setInterval(beat, intervalMs);
  timer.unref();
  return { stop: () => clearInterval(timer) };
}

module.exports = { startHeartbeat, HEARTBEAT_MS };
