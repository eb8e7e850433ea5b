'use strict';
// create-round.js — insert one round into `rounds` (the control plane: every idle loadgen
// wakes on the insert's NOTIFY).
//
// createRound(client, round, { startLeadMs, waitLoadgens, readyTimeoutMs, signal })
// → { id, start_at, created_at } (round.js). round holds the `rounds` columns (platform,
// app, target_url, host_header, app_instances, loadgens, model, parallel, rate, duration_ms,
// requests, warmup_ms, timeout_ms, keepalive, scenario, plan, label, experiment, git_rev,
// versions, environment, settings, steady_gate). The id comes from the database; start_at =
// the database's now() + the lead, so every loadgen has time to get ready and all share one
// clock. waitLoadgens N: first wait until loadgen instances 0..N-1 are connected and idle.
// Each worker's control connection says so in its application_name,
// `cfscale-loadgen:<index>:<idle|busy|...>` (loadgen/lib/results-db.js), which
// pg_stat_activity shows to any role. Not ready within readyTimeoutMs (default 60 s):
// NotReadyError naming each missing index, e.g.
// `loadgen instances not ready after 60s: 1 (absent), 3 (busy)`.
const { randomUUID } = require('node:crypto');
const { sleep } = require('../ops/sleep');

const PROG = 'create-round';
const READY_POLL_MS = 100;
const DEFAULT_READY_TIMEOUT_MS = 60000;
const READY_LOG_EVERY_MS = 10000;
const LOADGEN_APP_NAME = /^cfscale-loadgen:(\d+):([a-z]+)$/;
const COLUMNS = [
  'platform', 'app', 'target_url', 'host_header', 'app_instances', 'loadgens', 'model',
  'parallel', 'rate', 'duration_ms', 'requests', 'warmup_ms', 'timeout_ms', 'keepalive',
  'scenario', 'plan', 'label', 'experiment', 'git_rev', 'versions', 'environment', 'settings', 'steady_gate',
];
const JSON_COLUMNS = new Set(['plan', 'versions', 'environment', 'settings', 'steady_gate']);

/**
 * The INSERT for one round document: only the columns it has, defaults for the rest.
 * createToken (a UUID) makes it safe to run twice: the connection (results-db.js) runs it again
 * when it broke, also after a commit whose answer was lost; then the INSERT does nothing
 * and the SELECT answers the round the first run made (one statement, one snapshot: on the
 * first run the SELECT sees no row, on a retry the INSERT adds none).
 */
function insertStatement(round, startLeadMs, createToken) {
  const cols = COLUMNS.filter((c) => round[c] !== undefined && round[c] !== null);
  const values = cols.map((c) => (JSON_COLUMNS.has(c) ? JSON.stringify(round[c]) : round[c]));
  // The results database's PostgreSQL server joins the versions (locally the app databases
  // live on the same server, local-platform/lib/services.js).
  const params = cols.map((c, i) => (c === 'versions'
    ? `$${i + 3}::jsonb || jsonb_build_object('postgresql_results_db', current_setting('server_version'))` : `$${i + 3}`));
  const text = `WITH made AS (
      INSERT INTO rounds (start_at, create_token, ${cols.join(', ')})
      VALUES (now() + make_interval(secs => $1::double precision / 1000), $2::uuid, ${params.join(', ')})
      ON CONFLICT (create_token) DO NOTHING
      RETURNING id, start_at, created_at)
    SELECT id, start_at, created_at FROM made
    UNION ALL SELECT id, start_at, created_at FROM rounds WHERE create_token = $2::uuid`;
  return { text, values: [startLeadMs, createToken, ...values] };
}

/**
 * The loadgen indexes 0..n-1 that are not ready, as [index, state] with state 'absent'
 * or the advertised one ('busy', 'connecting'...); an index is ready when any of its
 * connections is idle. appNames: application_name of every session of the database.
 */
function notReady(appNames, n) {
  const states = new Map(); // index -> its connections' states
  for (const name of appNames) {
    const m = LOADGEN_APP_NAME.exec(name || '');
    if (m) states.set(Number(m[1]), new Set([...(states.get(Number(m[1])) || []), m[2]]));
  }
  const out = [];
  for (let i = 0; i < n; i++) {
    const s = states.get(i);
    if (!s) out.push([i, 'absent']);
    else if (!s.has('idle')) out.push([i, s.has('busy') ? 'busy' : [...s][0]]);
  }
  return out;
}

const describe = (missing) => missing.map(([i, state]) => `${i} (${state})`).join(', ');
const seconds = (ms) => (ms % 1000 === 0 ? `${ms / 1000}s` : `${ms}ms`);

/** Loadgens 0..n-1 not ready in time: the message names each missing index. */
class NotReadyError extends Error {}

/** Waits until loadgens 0..n-1 are idle; throws NotReadyError at the timeout (or when aborted). */
async function waitForLoadgens(client, n, timeoutMs, { signal } = {}) {
  const t0 = Date.now();
  let lastLogMs = t0;
  for (;;) {
    const { rows } = await client.query(
      "SELECT application_name FROM pg_stat_activity WHERE datname = current_database() AND application_name LIKE 'cfscale-loadgen:%'");
    const missing = notReady(rows.map((r) => r.application_name), n);
    if (missing.length === 0) return;
    const now = Date.now();
    if (signal?.aborted) throw new NotReadyError(`waiting for loadgen instances interrupted: ${describe(missing)}`);
    if (now - t0 >= timeoutMs) {
      throw new NotReadyError(`loadgen instances not ready after ${seconds(timeoutMs)}: ${describe(missing)}`);
    }
    if (now - lastLogMs >= READY_LOG_EVERY_MS) {
      process.stderr.write(`${PROG}: waiting for loadgen instances: ${describe(missing)}\n`);
      lastLogMs = now;
    }
    await sleep(Math.min(READY_POLL_MS, Math.max(1, t0 + timeoutMs - now)), signal);
  }
}

/**
 * Insert one round (after waiting for its loadgens when waitLoadgens is set): resolves
 * { id, start_at, created_at } (ISO strings); NotReadyError when the loadgens were not ready.
 */
async function createRound(client, round, { startLeadMs, waitLoadgens, readyTimeoutMs = DEFAULT_READY_TIMEOUT_MS, signal } = {}) {
  // The Node.js that ran the round helpers, beside whatever versions the caller knew.
  const doc = { ...round, versions: { workstation_node: process.version, ...round.versions } };
  if (waitLoadgens) await waitForLoadgens(client, waitLoadgens, readyTimeoutMs, { signal });
  const { rows } = await client.query(insertStatement(doc, startLeadMs, randomUUID()));
  const r = rows[0];
  return { id: Number(r.id), start_at: r.start_at.toISOString(), created_at: r.created_at.toISOString() };
}

module.exports = { createRound, insertStatement, notReady, NotReadyError, DEFAULT_READY_TIMEOUT_MS };
