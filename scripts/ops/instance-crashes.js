'use strict';
// instance-crashes.js — when to stop waiting for instances to be RUNNING: at the first crash
// that repeats. Diego restarts a crashed instance at once for its first crashes, then backs off
// (docs/cf-platform.md §9), so an instance that crashes again will not come up by waiting; the
// wait ends there with the instance's last error line from `cf logs APP --recent` and the
// command that shows more, instead of a fixed timeout.
//
// API:
//   repeatedCrash(events, sinceMs) → { index, crashes, exitDescription } of the first index whose
//       crash repeats among the audit.app.process.crash events since sinceMs (CC's crash_count
//       >= 2, or two crashes of the index), else null
//   lastErrorLine(recentLog, index) → the last error line instance `index` wrote (`cf logs APP
//       --recent` text), '' when none
//   findRepeatedCrash(p, guid, sinceMs) → a promise of repeatedCrash of the app's crash events (a look-up)
//   crashReport(p, app, crash) → a promise of the lines that say which instance, why, and how to see more
const { wholeSecondUtc } = require('./target');

const CRASH_EVENT = 'audit.app.process.crash';
const REPEATED = 2;
// `cf logs` lines: "   2026-11-28T02:28:20.00+0000 [APP/PROC/WEB/0] ERR text".
const LOG_LINE = /^\s*\S+ \[APP\/PROC\/WEB\/(\d+)\] (OUT|ERR) (.*)$/;
// An OUT line that is an error all the same: java-app's logger writes every level to stdout.
const ERROR_LEVEL = /\b(ERROR|FATAL|SEVERE)\b/;
// ERR lines that are no message of their own: stack frames, the runtime's version trailer.
const NOT_A_MESSAGE = /^(\s+at |\s*\.\.\. \d+ more|\s*\^+\s*$|\s*$|Node\.js v\d)/;

/** When the crash happened, in ms: Diego's crash_timestamp (ns), else the event's whole-second time. */
function crashMs(e) {
  const ns = Number(e.data?.crash_timestamp);
  return Number.isFinite(ns) && ns > 0 ? ns / 1e6 : Date.parse(e.created_at);
}

function repeatedCrash(events, sinceMs) {
  const byIndex = new Map();
  const recent = events.filter((e) => e.type === CRASH_EVENT && crashMs(e) >= sinceMs).sort((a, b) => crashMs(a) - crashMs(b));
  for (const e of recent) {
    const index = Number(e.data?.index);
    const seen = (byIndex.get(index) || 0) + 1;
    byIndex.set(index, seen);
    const crashes = Math.max(seen, Number(e.data?.crash_count) || 0);
    if (crashes >= REPEATED) return { index, crashes, exitDescription: e.data?.exit_description || '' };
  }
  return null;
}

function lastErrorLine(recentLog, index) {
  let last = '';
  for (const line of recentLog.split('\n')) {
    const m = LOG_LINE.exec(line);
    if (!m || Number(m[1]) !== index || NOT_A_MESSAGE.test(m[3])) continue;
    if (m[2] === 'ERR' || ERROR_LEVEL.test(m[3])) last = m[3].trimEnd();
  }
  return last;
}

async function findRepeatedCrash(p, guid, sinceMs) {
  const apiPath = `/v3/audit_events?target_guids=${guid}&types=${CRASH_EVENT}&created_ats[gte]=${wholeSecondUtc(sinceMs)}&per_page=5000`;
  let doc;
  try {
    doc = await p.cfCurlJson(apiPath, { quiet: true });
  } catch {
    return null; // a failed look-up: the next poll asks again
  }
  return repeatedCrash(doc.resources || [], sinceMs);
}

async function crashReport(p, app, crash) {
  const logs = await p.cfQuery('logs', app, '--recent', { stderr: 'ignore' });
  const line = logs.code === 0 ? lastErrorLine(logs.stdout, crash.index) : '';
  const more = p.name === 'local' ? `scripts/cfl logs ${app} --recent` : `cf logs ${app} --recent`;
  return [
    `${app} instance ${crash.index} crashed ${crash.crashes} times: not waiting for it (${crash.exitDescription || 'no exit description'})`,
    line ? `its last error line: ${line}` : `no error line of instance ${crash.index} in its recent logs`,
    `more: ${more}`,
  ];
}

module.exports = { repeatedCrash, lastErrorLine, findRepeatedCrash, crashReport };
