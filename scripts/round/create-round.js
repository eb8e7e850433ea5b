#!/usr/bin/env node
'use strict';
// create-round.js — insert one round into `rounds` (the control plane: every idle loadgen
// wakes on the insert's NOTIFY) and print {"id","start_at","created_at"} as JSON.
//
// Usage: node scripts/round/create-round.js --db URL --start-lead-ms N < round.json
// round.json holds the `rounds` columns (platform, app, target_url, host_header,
// app_instances, loadgens, model, parallel, rate, duration_ms, requests, warmup_ms,
// timeout_ms, keepalive, scenario, plan, label, experiment, git_rev, versions, environment,
// settings). The id comes from the database; start_at = the database's now() + the lead,
// so every loadgen has time to get ready and all share one clock.
const { parseArgs } = require('./cli-args');
const { withClient } = require('./db');

const PROG = 'create-round';
const COLUMNS = [
  'platform', 'app', 'target_url', 'host_header', 'app_instances', 'loadgens', 'model',
  'parallel', 'rate', 'duration_ms', 'requests', 'warmup_ms', 'timeout_ms', 'keepalive',
  'scenario', 'plan', 'label', 'experiment', 'git_rev', 'versions', 'environment', 'settings',
];
const JSON_COLUMNS = new Set(['plan', 'versions', 'environment', 'settings']);

async function readStdin() {
  const chunks = [];
  for await (const c of process.stdin) chunks.push(c);
  return Buffer.concat(chunks).toString('utf8');
}

/** The INSERT for one round document: only the columns it has, defaults for the rest. */
function insertStatement(round, startLeadMs) {
  const cols = COLUMNS.filter((c) => round[c] !== undefined && round[c] !== null);
  const values = cols.map((c) => (JSON_COLUMNS.has(c) ? JSON.stringify(round[c]) : round[c]));
  const params = cols.map((_, i) => `$${i + 2}`);
  const text = `INSERT INTO rounds (start_at, ${cols.join(', ')})
    VALUES (now() + make_interval(secs => $1::double precision / 1000), ${params.join(', ')})
    RETURNING id, start_at, created_at`;
  return { text, values: [startLeadMs, ...values] };
}

async function main() {
  const args = parseArgs(process.argv.slice(2), {
    db: { required: true },
    'start-lead-ms': { type: 'int', required: true },
  }, PROG);
  let round;
  try {
    round = JSON.parse(await readStdin());
  } catch (err) {
    process.stderr.write(`${PROG}: stdin is not a JSON round document: ${err.message}\n`);
    process.exit(1);
  }
  // The Node.js that ran the round helpers, beside whatever versions the caller knew.
  round.versions = { workstation_node: process.version, ...round.versions };
  await withClient(args.db, PROG, async (client) => {
    const { rows } = await client.query(insertStatement(round, args.startLeadMs));
    const r = rows[0];
    process.stdout.write(`${JSON.stringify({
      id: Number(r.id), start_at: r.start_at.toISOString(), created_at: r.created_at.toISOString(),
    })}\n`);
  });
}

if (require.main === module) main();

module.exports = { insertStatement };
