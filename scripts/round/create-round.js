#!/usr/bin/env node
'use strict';
// create-round.js — insert one round into `rounds` (the control plane: every idle loadgen
// wakes on the insert's NOTIFY) and print {"id","start_at","created_at"} as JSON.
//
// Usage: node scripts/round/create-round.js --db URL --start-lead-ms N
//          [--wait-loadgens N --ready-timeout-ms MS] < round.json
// round.json holds the `rounds` columns (platform, app, target_url, host_header,
// app_instances, loadgens, model, parallel, rate, duration_ms, requests, warmup_ms,
// timeout_ms, keepalive, scenario, plan, label, experiment, git_rev, versions, environment,
// settings, steady_gate). The id comes from the database; start_at = the database's now() + the lead,
// so every loadgen has time to get ready and all share one clock.
// --wait-loadgens N: first wait until loadgen instances 0..N-1 are connected and idle.
// Each worker's control connection says so in its application_name,
// `cfscale-loadgen:<index>:<idle|busy|...>` (loadgen/lib/results-db.js), which
// pg_stat_activity shows to any role. Not ready within --ready-timeout-ms (default 60 s):
// exit 2 with one line naming each missing index, e.g.
// `create-round: loadgen instances not ready after 60s: 1 (absent), 3 (busy)`.
// Also a module (run-round.js): createRound(client, round, { startLeadMs, waitLoadgens,
// readyTimeoutMs, signal }) → { id, start_at, created_at }, NotReadyError at the timeout.
const { parseArgs, fail } = require('./cli-args');
const { withClient } = require('./results-db');
const { sleep } = require('./sleep');

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

async function readStdin() {
  const chunks = [];
  for await (const c of process.stdin) chunks.push(c);
  return Buffer.concat(chunks).toString('utf8');
}

/** The INSERT for one round document: only the columns it has, defaults for the rest. */
function insertStatement(round, startLeadMs) {
  const cols = COLUMNS.filter((c) => round[c] !== undefined && round[c] !== null);
  const values = cols.map((c) => (JSON_COLUMNS.has(c) ? JSON.stringify(round[c]) : round[c]));
  // The results database's PostgreSQL server joins the versions (locally the app databases
  // live on the same server, scripts/local/services.js).
  const params = cols.map((c, i) => (c === 'versions'
    ? `$${i + 2}::jsonb || jsonb_build_object('postgresql_results_db', current_setting('server_version'))` : `$${i + 2}`));
  const text = `INSERT INTO rounds (start_at, ${cols.join(', ')})
    VALUES (now() + make_interval(secs => $1::double precision / 1000), ${params.join(', ')})
    RETURNING id, start_at, created_at`;
  return { text, values: [startLeadMs, ...values] };
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
  const { rows } = await client.query(insertStatement(doc, startLeadMs));
  const r = rows[0];
  return { id: Number(r.id), start_at: r.start_at.toISOString(), created_at: r.created_at.toISOString() };
}

async function main() {
  const args = parseArgs(process.argv.slice(2), {
    db: { required: true },
    'start-lead-ms': { type: 'int', required: true },
    'wait-loadgens': { type: 'int' },
    'ready-timeout-ms': { type: 'int', default: DEFAULT_READY_TIMEOUT_MS },
  }, PROG);
  if (args.waitLoadgens === 0) fail(PROG, '--wait-loadgens must be at least 1');
  let round;
  try {
    round = JSON.parse(await readStdin());
  } catch (err) {
    process.stderr.write(`${PROG}: stdin is not a JSON round document: ${err.message}\n`);
    process.exit(1);
  }
  await withClient(args.db, PROG, async (client) => {
    let created;
    try {
      created = await createRound(client, round, {
        startLeadMs: args.startLeadMs, waitLoadgens: args.waitLoadgens, readyTimeoutMs: args.readyTimeoutMs,
      });
    } catch (err) {
      if (!(err instanceof NotReadyError)) throw err;
      process.stderr.write(`${PROG}: ${err.message}\n`);
      await client.end().catch(() => {});
      process.exit(2);
    }
    process.stdout.write(`${JSON.stringify(created)}\n`);
  });
}

if (require.main === module) main();

module.exports = { createRound, insertStatement, notReady, NotReadyError, DEFAULT_READY_TIMEOUT_MS };
