'use strict';
// event-watch.js — what one round event (round-events.js) does to the app's instances, seen
// through Cloud Controller with `cf curl`, every LOOK_MS while its cf command runs and after:
// for a scale, the web process's v3 stats (a new index listed, then RUNNING); for a rolling
// deployment, the deployment (found by app and time) and its new process's stats, until the
// deployment is FINALIZED. The instances an event stops are those of the stats before t0 that
// it takes away: the indexes past the new count (scale), every old one (deployment).
//
// watchEvent({ look, ev, appGuid, before, t0, commandDone, signal, deadlineMs }) → {
//   instances: [{ role, instance_index, instance_guid, seen_at, running_at }],
//   deployment_guid, deployment_seen_at, settled_at, detail }
// look(apiPath) → the parsed document (throws on failure); before: the v3 stats resources
// before t0; commandDone() → the command's exit code, or undefined while it runs.
const { sleep } = require('../ops/sleep');

const LOOK_MS = 250;
// CC renders times to the whole second (docs/cf-platform.md §9): a deployment created in
// t0's second or later is the event's.
const wholeSecondMs = (ms) => Math.floor(ms / 1000) * 1000;

/** The instances the event stops: stats resources with a guid, as { role: 'stopped', … }. */
function stoppedInstances(ev, before) {
  const live = before.filter((r) => r.instance_guid);
  const gone = ev.kind === 'scale' ? live.filter((r) => r.index >= ev.instances) : live;
  return gone.map((r) => ({ role: 'stopped', instance_index: r.index, instance_guid: r.instance_guid, seen_at: null, running_at: null }));
}

/** New instances in stats resources: first listed, first RUNNING (Map guid → row, updated). */
function noteNew(rows, resources, isNew, at) {
  for (const r of resources) {
    if (!r.instance_guid || !isNew(r)) continue;
    const row = rows.get(r.instance_guid) || { role: 'new', instance_index: r.index, instance_guid: r.instance_guid, seen_at: at, running_at: null };
    if (r.state === 'RUNNING' && !row.running_at) row.running_at = at;
    rows.set(r.instance_guid, row);
  }
}

async function watchEvent({ look, ev, appGuid, before, t0, commandDone, signal, deadlineMs }) {
  const oldGuids = new Set(before.map((r) => r.instance_guid).filter(Boolean));
  const rows = new Map();
  const out = { deployment_guid: null, deployment_seen_at: null, settled_at: null, detail: null };
  const scaleOut = ev.kind === 'scale' && ev.instances > ev.before;
  for (;;) {
    const at = new Date();
    const code = commandDone();
    try {
      if (ev.kind === 'scale') {
        const stats = (await look(`/v3/apps/${appGuid}/processes/web/stats`)).resources || [];
        noteNew(rows, stats, (r) => r.index >= ev.before && !oldGuids.has(r.instance_guid), at);
        const settled = scaleOut ? rows.size >= ev.instances - ev.before && [...rows.values()].every((r) => r.running_at)
          : code !== undefined && stats.length === ev.instances;
        if (settled) out.settled_at = at;
      } else {
        await lookDeployment({ look, appGuid, t0, at, rows, oldGuids, out });
      }
    } catch (err) {
      out.detail = `look-up failed: ${err.message}`;
    }
    if (out.settled_at) break;
    if (code !== undefined && code !== 0 && (ev.kind === 'scale' || !out.deployment_guid)) {
      out.detail = `the cf command failed (exit ${code})`;
      break;
    }
    if (signal?.aborted || Date.now() >= deadlineMs) {
      out.detail = signal?.aborted ? 'interrupted' : `not settled after ${Math.round((deadlineMs - t0.getTime()) / 1000)} s`;
      break;
    }
    await sleep(LOOK_MS, signal);
  }
  return { ...out, instances: [...rows.values(), ...stoppedInstances(ev, before)] };
}

/** One look at the event's deployment: found by app and time, then its new process's stats. */
async function lookDeployment({ look, appGuid, t0, at, rows, oldGuids, out }) {
  if (!out.deployment_guid) {
    const list = (await look(`/v3/deployments?app_guids=${appGuid}&order_by=-created_at&per_page=1`)).resources || [];
    const d = list[0];
    if (!d || Date.parse(d.created_at) < wholeSecondMs(t0.getTime())) return;
    out.deployment_guid = d.guid;
    out.deployment_seen_at = at;
  }
  const d = await look(`/v3/deployments/${out.deployment_guid}`);
  const proc = d.new_processes?.[0]?.guid;
  if (proc) {
    const stats = (await look(`/v3/processes/${proc}/stats`)).resources || [];
    noteNew(rows, stats, (r) => !oldGuids.has(r.instance_guid), at);
  }
  if (d.status?.value === 'FINALIZED') {
    out.settled_at = at;
    if (d.status.reason !== 'DEPLOYED') out.detail = `deployment ${d.status.reason}`;
  }
}

module.exports = { watchEvent, stoppedInstances, LOOK_MS };
