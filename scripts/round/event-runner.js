'use strict';
// event-runner.js — the events of a round (run-round.sh --event, round-events.js) while it
// runs: each at its time into the measured window (the gate's measure_from, else the start +
// --warmup), its cf command started in the background at t0, its effect watched
// (event-watch.js), and both stored with the round (round_events, round_event_instances;
// results-schema.sql derives the stages and the traffic around each). One line per event on
// stderr. Events start in time order; an event's watch may outlast the next one's start.
//
// startEvents(plan, live, { log }) → { done: Promise } (round.js: awaited after the
// loadgens finished, so the rows are in before the summary). printEvents(plan): --dry-run.
const fs = require('node:fs');
const path = require('node:path');
const { runAsync, formatCmd } = require('../ops/exec');
const { cfJsonOf } = require('../ops/target');
const { MANIFEST_DIR } = require('../ops/cli');
const { sleep } = require('../ops/sleep');
const { eventCommand, instancesVar, describeEvent } = require('../../lib/round-events');
const { watchEvent } = require('./event-watch');

const POLL_MS = 500;
// How long an event is watched from t0: a rolling push of 4 Java instances, one at a time,
// stages, then waits per instance for a JVM start and the deployment updater's next turn.
const WATCH_MS = 300000;

// Where the measured window starts as the database has it, in ms from now (null: not yet).
const FROM_SQL = `SELECT status,
    extract(epoch FROM coalesce(measure_from, CASE WHEN steady_gate IS NULL THEN start_at + warmup_ms * interval '1 millisecond' END)
      - clock_timestamp()) * 1000 AS from_in_ms
  FROM rounds WHERE id = $1`;

/** ms from now to the measured window's start, once known; null when the round ended first. */
async function windowStart(client, round, signal) {
  for (;;) {
    const { rows } = await client.query(FROM_SQL, [round]);
    if (!rows.length || !['pending', 'running'].includes(rows[0].status)) return null;
    if (rows[0].from_in_ms !== null) return Date.now() + Number(rows[0].from_in_ms);
    await sleep(POLL_MS, signal);
    if (signal.aborted) return null;
  }
}

function commandOf(plan, ev) {
  const { p, o } = plan;
  let varName = null;
  if (ev.kind === 'deploy') {
    try { varName = instancesVar(fs.readFileSync(path.join(MANIFEST_DIR, `${o.app}.yml`), 'utf8')); } catch { /* no manifest: cf push says so */ }
  }
  return [...p.cf, ...eventCommand(ev, { app: o.app, varsFile: p.varsFile, manifestDir: MANIFEST_DIR, instancesVar: varName })];
}

/** Under --dry-run: each event's command, as it would run. */
function printEvents(plan) {
  for (const ev of plan.o.events) plan.p.printCmd(commandOf(plan, ev));
}

/** `cf curl PATH` → its document (throws the CF error or the failure). */
async function look(p, apiPath) {
  const r = await runAsync([...p.cf, 'curl', apiPath], { stdout: 'pipe', stderr: 'ignore', input: '' }).done;
  return cfJsonOf(apiPath, r);
}

const EVENT_SQL = `INSERT INTO round_events (round_id, seq, kind, at_ms, instances_before, instances_after, t0, command,
    exit_code, command_ms, deployment_guid, deployment_seen_at, settled_at, detail)
  VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14) ON CONFLICT DO NOTHING`;
const INSTANCE_SQL = `INSERT INTO round_event_instances (round_id, seq, role, instance_index, instance_guid, seen_at, running_at)
  VALUES ($1, $2, $3, $4, $5, $6, $7) ON CONFLICT DO NOTHING`;

/** One event from t0: its command, its watch, its rows. Resolves when stored. */
async function runEvent(plan, live, ev, seq, log) {
  const { p } = plan;
  const before = (await look(p, `/v3/apps/${plan.guid}/processes/web/stats`).catch(() => ({ resources: [] }))).resources || [];
  const argv = commandOf(plan, ev);
  const tail = [];
  const t0 = new Date();
  const cmd = runAsync(argv, { input: '', onLine: (l) => { tail.push(l); if (tail.length > 3) tail.shift(); } });
  let exit;
  cmd.done.then((r) => { exit = { code: r.code, ms: Date.now() - t0.getTime() }; });
  const stop = () => cmd.child.kill('SIGTERM');
  live.abort.signal.addEventListener('abort', stop, { once: true });
  const seen = await watchEvent({
    look: (apiPath) => look(p, apiPath), ev, appGuid: plan.guid, before, t0, commandDone: () => exit?.code,
    signal: live.abort.signal, deadlineMs: t0.getTime() + WATCH_MS,
  });
  if (!exit && !live.abort.signal.aborted) await Promise.race([cmd.done, sleep(Math.max(0, t0.getTime() + WATCH_MS - Date.now()))]);
  live.abort.signal.removeEventListener('abort', stop);
  if (!exit) stop();
  const detail = seen.detail || (exit && exit.code !== 0 ? `exit ${exit.code}: ${tail.join(' | ').slice(0, 300)}` : null);
  await live.control.query(EVENT_SQL, [live.roundId, seq, ev.kind, ev.atMs, ev.before, ev.instances, t0, formatCmd(argv),
    exit ? exit.code : null, exit ? exit.ms : null, seen.deployment_guid, seen.deployment_seen_at, seen.settled_at, detail]);
  for (const i of seen.instances) {
    await live.control.query(INSTANCE_SQL, [live.roundId, seq, i.role, i.instance_index, i.instance_guid, i.seen_at, i.running_at]);
  }
  const took = seen.settled_at ? `settled after ${((seen.settled_at - t0) / 1000).toFixed(1)} s` : `NOT settled (${detail})`;
  log(`event ${seq} at ${describeEvent(ev)}: ${formatCmd(argv)}, ${exit ? `exit ${exit.code} after ${(exit.ms / 1000).toFixed(1)} s` : 'still running'}, ${took}`);
}

/** The round's events in the background (see the header). */
function startEvents(plan, live, { log }) {
  const signal = live.abort.signal;
  const done = (async () => {
    const fromMs = await windowStart(live.control, live.roundId, signal);
    if (fromMs === null) {
      if (!signal.aborted) log('events: the round ended before its measured window started; none ran');
      return;
    }
    const running = [];
    for (const [i, ev] of plan.o.events.entries()) {
      await sleep(Math.max(0, fromMs + ev.atMs - Date.now()), signal);
      if (signal.aborted) break;
      running.push(runEvent(plan, live, ev, i + 1, log).catch((err) => log(`event ${i + 1}: ${err.message}`)));
    }
    await Promise.all(running);
  })().catch((err) => log(`events: ${err.message}`));
  return { done };
}

/** The app's instance count once the events ran (the last one's), for the timings flush. */
function finalInstances(o) {
  return o.events.length ? o.events[o.events.length - 1].instances : Number(o.instances);
}

module.exports = { startEvents, printEvents, finalInstances, WATCH_MS };
