'use strict';
// steady-watch.js — the steady-state gate while a round runs (round.js). Every second
// it reads the round's ok responses per complete second since start_at from the samples
// the loadgens stream into `requests`, and hands them to steady-state.js decide(). Once the
// last window is steady, or at the maximum warm-up, it gives the round its measured window:
// `measure_from`, `stop_at` = measure_from + duration (the loadgens stop issuing there;
// they read it every second, loadgen/lib/worker.js) and `steady`. Steady: the window
// starts at the decision, after the seconds that were judged, so the figures do not come
// from the very seconds picked for looking flat. Given up: it starts at start_at + the
// maximum warm-up, where the loadgens' own bound (max warm-up + duration) still covers it.
//
// startSteadyWatch(client, { round, gate, durationMs, log }) → { stop() → Promise<result> }
// watchSteady(client, { round, gate, durationMs, signal, log }) → result:
//   { state: 'steady' | 'give-up', window, measureFromMs } when decided, null when the
//   round ended first (all loadgens final, the round failed or was cancelled) or on abort.
const { sleep } = require('../ops/sleep');
const { decide, describeWindow } = require('./steady-state');

const POLL_MS = 1000;
// A second counts once its samples are in the database: each loadgen flushes its batch at
// least every second, and the COPY takes a moment. A second read too early looks low, like
// a falling trend: the gate waits longer, never decides too early.
const SETTLE_MS = 2000;

const STATE_SQL = `SELECT status, measure_from IS NOT NULL AS decided,
    extract(epoch FROM clock_timestamp() - start_at) * 1000 AS elapsed_ms
  FROM rounds WHERE id = $1`;
const SECONDS_SQL = `SELECT floor(extract(epoch FROM q.intended_at - r.start_at))::integer AS second,
    count(*) FILTER (WHERE q.error_kind IS NULL)::integer AS ok
  FROM rounds r JOIN requests q ON q.round_id = r.id
  WHERE r.id = $1 AND q.intended_at >= r.start_at + make_interval(secs => $2::integer)
    AND q.intended_at < r.start_at + make_interval(secs => $3::integer)
  GROUP BY 1`;
// Only the first decision counts (a second run-round on the same round changes nothing).
const STEADY_SQL = `UPDATE rounds SET measure_from = now(), steady = true,
    stop_at = now() + make_interval(secs => $2::double precision / 1000)
  WHERE id = $1 AND measure_from IS NULL
  RETURNING extract(epoch FROM measure_from - start_at) * 1000 AS from_ms`;
const GIVE_UP_SQL = `UPDATE rounds SET steady = false,
    measure_from = start_at + make_interval(secs => $3::double precision / 1000),
    stop_at = start_at + make_interval(secs => ($3::double precision + $2) / 1000)
  WHERE id = $1 AND measure_from IS NULL
  RETURNING extract(epoch FROM measure_from - start_at) * 1000 AS from_ms`;

const secs = (ms) => `${(ms / 1000).toFixed(ms % 1000 ? 1 : 0)} s`;

/** Watches one round until the gate decides; see the header. */
async function watchSteady(client, { round, gate, durationMs, signal, log = () => {} }) {
  const series = [];
  for (;;) {
    if (signal?.aborted) return null;
    const { rows } = await client.query(STATE_SQL, [round]);
    if (rows.length === 0) throw new Error(`round ${round} does not exist`);
    const st = rows[0];
    if (st.decided || !['pending', 'running'].includes(st.status)) return null;
    const elapsedMs = Number(st.elapsed_ms);
    const upTo = Math.floor((elapsedMs - SETTLE_MS) / 1000); // seconds [0, upTo) are complete
    if (upTo > series.length) {
      const got = await client.query(SECONDS_SQL, [round, series.length, upTo]);
      const from = series.length;
      for (let s = from; s < upTo; s++) series.push(0);
      for (const r of got.rows) series[r.second] = r.ok;
    }
    const d = decide(series, gate, elapsedMs);
    if (d.state !== 'wait') {
      const res = d.state === 'steady'
        ? await client.query(STEADY_SQL, [round, durationMs])
        : await client.query(GIVE_UP_SQL, [round, durationMs, gate.maxWarmupMs]);
      if (res.rows.length === 0) return null;
      const measureFromMs = Number(res.rows[0].from_ms);
      if (d.state === 'steady') {
        log(`round ${round}: steady after ${secs(Math.round(measureFromMs))} (${describeWindow(d.window)}); measuring ${secs(durationMs)}`);
      } else {
        log(`round ${round}: NOT steady after the maximum warm-up of ${secs(gate.maxWarmupMs)}`
          + ` (${d.window ? d.window.reasons.join(', ') : 'no complete window'}): measuring ${secs(durationMs)} from there, flagged`);
      }
      return { state: d.state, window: d.window, measureFromMs };
    }
    await sleep(POLL_MS, signal);
  }
}

/**
 * The watch in the background on client (run-round's results-db.js Connection, shared: its queries
 * take turns, and it rides out an outage); stop() ends it and resolves its result.
 */
function startSteadyWatch(client, opts) {
  const abort = new AbortController();
  const done = watchSteady(client, { ...opts, signal: abort.signal }).catch((err) => {
    opts.log?.(`steady-state gate failed: ${err.message}`);
    return null;
  });
  return { done, stop: () => { abort.abort(); return done; } };
}

module.exports = { watchSteady, startSteadyWatch, SETTLE_MS };
