'use strict';
// round-events.js — what `run-round.sh --event AT:ACTION` means (pure): the events of a round,
// parsed once into their type, checked against the round, and the cf command each runs.
//
//   AT        how far into the measured window (500ms, 20s, 1m; a bare number is seconds)
//   ACTION    scale=N   `cf scale APP -i N` (out or in)
//             deploy    a rolling push of the same app: `cf push APP -f manifests/APP.yml
//                       --vars-file VARS --strategy rolling` at its instance count then
//             restart   `cf restart APP --strategy rolling` (a rolling deployment, no staging)
//
// parseEvents(texts, { instances, durationMs }) → [{ atMs, kind, instances, before }], in
// time order (instances: the count after the event, before: the count before it); throws
// EventError with one line naming the event. eventCommand(ev, { app, varsFile, manifestDir,
// instancesVar }) → the cf arguments. instancesVar(manifestText) → the manifest's
// `instances: ((VAR))` variable, or null.
const { parseDuration } = require('./arg-table');

class EventError extends Error {}

const KINDS = ['scale', 'deploy', 'restart'];
const SPEC_RE = /^([^:]+):(scale=(\d+)|deploy|restart)$/;

/** One spec → { atMs, kind, instances (scale: N, else null) }. */
function parseEvent(text) {
  const m = SPEC_RE.exec(String(text).trim());
  if (!m) throw new EventError(`--event must be AT:scale=N, AT:deploy or AT:restart (e.g. 20s:scale=4), got "${text}"`);
  const atMs = parseDuration(m[1]);
  if (Number.isNaN(atMs)) throw new EventError(`--event ${text}: "${m[1]}" is not a duration like 500ms, 20s or 1m`);
  if (m[3] !== undefined && Number(m[3]) < 1) throw new EventError(`--event ${text}: scale to at least 1 instance`);
  return { atMs, kind: m[3] !== undefined ? 'scale' : m[2], instances: m[3] !== undefined ? Number(m[3]) : null };
}

/**
 * The round's events in time order, each with the instance count before and after it. The
 * round must have a duration that covers them; two at the same time, or a scale to the count
 * the app has then, are refused (an event that changes nothing measures nothing).
 */
function parseEvents(texts, { instances, durationMs }) {
  if (!texts.length) return [];
  if (durationMs === null) throw new EventError('--event needs --duration (a round by request count has no time to put it at)');
  const events = texts.map((t) => ({ text: `--event ${t}`, ev: parseEvent(t) })).sort((a, b) => a.ev.atMs - b.ev.atMs);
  let count = instances;
  return events.map(({ text, ev }, i) => {
    if (ev.atMs >= durationMs) throw new EventError(`${text}: ${ev.atMs / 1000}s is not inside the ${durationMs / 1000}s measured window`);
    if (i > 0 && events[i - 1].ev.atMs === ev.atMs) throw new EventError(`${text}: another event is at the same time`);
    if (ev.kind === 'scale' && ev.instances === count) throw new EventError(`${text}: the app has ${count} instance(s) then; the event would change nothing`);
    const before = count;
    if (ev.kind === 'scale') count = ev.instances;
    return Object.freeze({ ...ev, instances: count, before });
  });
}

/** The `instances: ((VAR))` variable of a manifest, or null when its count is written out. */
function instancesVar(manifestText) {
  const m = /^\s+instances:\s*\(\(([A-Za-z0-9_-]+)\)\)\s*$/m.exec(manifestText);
  return m ? m[1] : null;
}

/**
 * The cf arguments of an event. A rolling push sends the manifest's instance count to Cloud
 * Controller before the deployment starts (the CLI leaves it in the manifest with --strategy,
 * cli actor/v7pushaction/handle_instances_override.go), so the push sets the manifest's
 * variable to the count the app has: the deployment then rolls that many, nothing is scaled.
 */
function eventCommand(ev, { app, varsFile, manifestDir, instancesVar: varName }) {
  if (ev.kind === 'scale') return ['scale', app, '-i', String(ev.instances)];
  if (ev.kind === 'restart') return ['restart', app, '--strategy', 'rolling'];
  return ['push', app, '-f', `${manifestDir}/${app}.yml`, '--vars-file', varsFile, '--strategy', 'rolling', '--redact-env',
    ...(varName ? ['--var', `${varName}=${ev.instances}`] : [])];
}

/** `20.0 s: scale 2 → 4` */
function describeEvent(ev) {
  const what = ev.kind === 'scale' ? `scale ${ev.before} → ${ev.instances}` : `${ev.kind === 'deploy' ? 'rolling push' : 'rolling restart'} of ${ev.instances}`;
  return `${(ev.atMs / 1000).toFixed(1)} s: ${what}`;
}

module.exports = { parseEvent, parseEvents, eventCommand, instancesVar, describeEvent, EventError, KINDS };
