#!/usr/bin/env node
// fake-run-round.js (test helper) — stands in for scripts/run-round.sh in the runner
// tests: its flags (parsed and --help from run-round.sh's own table, run-round-args.js) and
// exit codes, writes a synthetic finished round (synthetic.js)
// into CFSCALE_RESULTS_URL and prints round_id=N. Model: each app instance serves
// 100 req/s; latency grows past 80 % utilisation. Records the round's parameters as
// run-round.sh does (duration/requests, warm-up, timeout, scenario, keep-alive, the CPU quota
// in environment, the load balancing in plan). Every call is appended as a JSON line to
// FAKE_RUN_ROUND_LOG; labels listed in FAKE_RUN_ROUND_FAIL (comma-separated) fail (exit 2).
// FAKE_RUN_ROUND_ROUTER_MS: the local router's CPU per request served (ms), recorded as
// run-round does (environment.router_cpu_cores, router_cpu_quota_cores null: no quota).
// FAKE_APP_MEMORY_FILE: a file holding the app's container memory (MB, written by a fake
// `scale -m`), recorded as run-round does from the v3 process (environment.app_memory_mb).
'use strict';
const fs = require('node:fs');
const pg = require('pg');
const { insertRound } = require('../report/test/helpers/synthetic.js');

// run-round.sh's own flag table (its parser and --help): the stand-in takes exactly its flags.
const { COMMAND } = require('../scripts/round/run-round-args.js');
const { help, parse } = require('../lib/arg-table.js');

let o;
try {
  o = parse(process.argv.slice(2), COMMAND.rows);
} catch (e) {
  console.error(`run-round: ${e.message} (see --help)`);
  process.exit(1);
}
if (o.help) { process.stdout.write(help(COMMAND.usage, COMMAND.about, COMMAND.rows, { notes: COMMAND.notes })); process.exit(0); }
if (!o.app || (o.durationMs === undefined && o.requests === undefined)) { console.error('run-round: missing flags'); process.exit(1); }
// The call as given, flag name → text (true for a switch), one JSON line per call.
const given = {};
process.argv.slice(2).forEach((a, i, argv) => {
  if (a.startsWith('--')) given[a.slice(2)] = argv[i + 1] === undefined || argv[i + 1].startsWith('--') ? true : argv[i + 1];
});
if (process.env.FAKE_RUN_ROUND_LOG) fs.appendFileSync(process.env.FAKE_RUN_ROUND_LOG, `${JSON.stringify(given)}\n`);
const instances = Number(o.instances);
const loadgens = Number(o.loadgens);
const offered = o.rate ? o.rate * loadgens : loadgens * (o.parallel ?? 1) * 20;
const cap = instances * 100;
const util = offered / cap;
const failed = (process.env.FAKE_RUN_ROUND_FAIL || '').split(',').includes(o.label);
async function main() {
  const client = new pg.Client({ connectionString: process.env.CFSCALE_RESULTS_URL });
  await client.connect();
  const id = await insertRound(client, {
    app: o.app, instances, loadgens, label: o.label, experiment: o.experiment ?? null,
    ...(o.rate ? { rate: o.rate } : { parallel: o.parallel ?? 1 }),
    requests: Math.max(5, Math.round(Math.min(offered, cap) * 0.5)),
    // A --requests round still needs a span for the synthetic samples: 4 s.
    durationMs: o.requests ? 4000 : o.durationMs, warmupMs: o.warmupMs ?? 0,
    latencyMs: util < 0.8 ? 5 : 5 + 100 * (util - 0.8), cpuPerInstance: Math.min(1, util),
    status: failed ? 'failed' : 'done',
    columns: {
      ...(o.requests ? { requests: o.requests, duration_ms: null } : {}),
      timeout_ms: o.timeoutMs, scenario: o.scenario, keepalive: !o.noKeepalive,
      environment: {
        stats_source: 'fake', app_cpu_quota_cores: o.cpu ?? 'default',
        ...(process.env.FAKE_RUN_ROUND_ROUTER_MS
          ? { router_cpu_cores: (Math.min(offered, cap) * Number(process.env.FAKE_RUN_ROUND_ROUTER_MS)) / 1000, router_cpu_quota_cores: null } : {}),
        ...(process.env.FAKE_APP_MEMORY_FILE ? { app_memory_mb: Number(fs.readFileSync(process.env.FAKE_APP_MEMORY_FILE, 'utf8')) } : {}),
      },
      plan: { seed_ads: 1000, ...(o.loadbalancing ? { loadbalancing: o.loadbalancing } : {}) },
    },
  });
  await client.end();
  console.log(`round_id=${id}`);
  process.exit(failed ? 2 : 0);
}

main().catch((e) => { console.error(e.stack); process.exit(1); });
