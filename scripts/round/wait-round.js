'use strict';
// wait-round.js — wait until every loadgen instance of a round has a final `loadgen_runs`
// row (done, failed or stopped), showing progress on stderr: elapsed, samples so far
// (rows in `requests`), loadgens done.
//
// waitRound(client, { round, deadlineMs, pollMs, progressMs, signal, stderr }) → 0 | 2 | 130
// (round.js); client may be a results-db.js Connection that rides out an outage (its
// downMs extends the deadline). The deadline counts from start_at; the progress line
// rewrites itself on a terminal and is printed every 5 s otherwise (logs stay short).
const { sleep } = require('../ops/sleep');

const PROG = 'wait-round';
const LOG_EVERY_MS = 5000;

const STATE_SQL = `
  SELECT r.loadgens, r.start_at, r.duration_ms, r.steady_gate IS NOT NULL AS gated,
         extract(epoch FROM now() - r.start_at) * 1000 AS elapsed_ms,
         extract(epoch FROM now() - r.measure_from) * 1000 AS measured_ms,
         (SELECT count(*) FROM loadgen_runs l
           WHERE l.round_id = r.id AND l.instance_index < r.loadgens
             AND l.status <> 'running') AS final,
         CASE WHEN $2 THEN (SELECT count(*) FROM requests q WHERE q.round_id = r.id) END AS samples
  FROM rounds r WHERE r.id = $1`;

function progressLine(roundId, s, samples) {
  const elapsed = Math.max(0, s.elapsed_ms) / 1000;
  const of = s.duration_ms ? `/${(Number(s.duration_ms) / 1000).toFixed(0)}s` : 's';
  const wait = s.elapsed_ms < 0 ? ` (starts in ${(-s.elapsed_ms / 1000).toFixed(1)}s)` : '';
  // With the steady-state gate the duration counts from the measured window's start.
  const time = !s.gated || s.elapsed_ms < 0 ? `${elapsed.toFixed(1)}${of}${wait}`
    : s.measured_ms === null ? `${elapsed.toFixed(1)}s warming up (steady-state gate)`
      : `${elapsed.toFixed(1)}s, measuring ${(Math.max(0, s.measured_ms) / 1000).toFixed(1)}${of}`;
  return `round ${roundId}: ${time}, ${samples} samples, loadgens done ${s.final}/${s.loadgens}`;
}

/**
 * Wait until every loadgen of the round has a final row: 0 then, 2 at the deadline (ms
 * after start_at), 130 when the signal aborts the wait. Progress on stderr (process.stderr
 * unless given).
 */
async function waitRound(client, { round, deadlineMs, pollMs = 250, progressMs = 1000, signal, stderr = process.stderr } = {}) {
  const tty = stderr.isTTY;
  let samples = 0;
  let lastCount = 0;
  let lastLog = 0;
  for (;;) {
    const now = Date.now();
    const count = now - lastCount >= progressMs;
    const { rows } = await client.query(STATE_SQL, [round, count]);
    if (rows.length === 0) throw new Error(`round ${round} does not exist`);
    const s = rows[0];
    if (count) { samples = Number(s.samples); lastCount = now; }
    const done = Number(s.final) >= s.loadgens;
    // Time the results database was away (a results-db.js Connection counts it) is added to the
    // deadline: the loadgens held their samples meanwhile and write them after.
    const late = s.elapsed_ms > deadlineMs + (client.downMs || 0);
    if (tty) {
      stderr.write(`\r${progressLine(round, s, samples)}\x1b[K${done || late ? '\n' : ''}`);
    } else if (done || late || now - lastLog >= LOG_EVERY_MS) {
      stderr.write(`${progressLine(round, s, samples)}\n`);
      lastLog = now;
    }
    if (done) return 0;
    if (late) {
      stderr.write(`${PROG}: round ${round}: deadline reached (${deadlineMs} ms after start), `
        + `${client.downMs ? `+ ${client.downMs} ms the results database was away, ` : ''}`
        + `${s.final} of ${s.loadgens} loadgens finished\n`);
      return 2;
    }
    await sleep(pollMs, signal);
    if (signal?.aborted) return 130;
  }
}

module.exports = { waitRound };
