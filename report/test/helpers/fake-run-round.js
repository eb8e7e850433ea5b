#!/usr/bin/env node
// fake-run-round.js (test helper) — stands in for scripts/run-round.sh in the runner
// tests: same flags and exit codes, writes a synthetic finished round (synthetic.js)
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
const { parseArgs } = require('node:util');
const pg = require('pg');
const { insertRound } = require('./synthetic.js');

const HELP = `Usage: scripts/run-round.sh --app APP --instances N --loadgens N (--parallel N | --rate R)
  (--duration D | --requests N) [--warmup D] [--timeout D] [--scenario S] [--label L] [--no-keepalive]
  [--platform P] [--cpu C] [--loadbalancing ALGO] [--experiment NAME] [--max-error-rate F] [--dry-run]`;

const { values: o } = parseArgs({ options: Object.fromEntries(['app', 'instances', 'loadgens', 'parallel', 'rate', 'duration',
  'requests', 'warmup', 'timeout', 'scenario', 'label', 'platform', 'cpu', 'loadbalancing', 'experiment', 'max-error-rate']
  .map((k) => [k, { type: 'string' }])
  .concat([['help', { type: 'boolean' }], ['dry-run', { type: 'boolean' }], ['no-keepalive', { type: 'boolean' }]])) });
if (o.help) { console.log(HELP); process.exit(0); }
if (!o.app || !o.instances || !o.loadgens || (!o.parallel && !o.rate)) { console.error('run-round: missing flags'); process.exit(1); }
if (process.env.FAKE_RUN_ROUND_LOG) fs.appendFileSync(process.env.FAKE_RUN_ROUND_LOG, `${JSON.stringify(o)}\n`);
// The runner passes durations as "<n>ms".
const ms = (v, dflt) => (v === undefined ? dflt : Number(/^(\d+)ms$/.exec(v)?.[1] ?? NaN));
const instances = Number(o.instances);
const loadgens = Number(o.loadgens);
const offered = o.rate ? Number(o.rate) * loadgens : loadgens * Number(o.parallel) * 20;
const cap = instances * 100;
const util = offered / cap;
const failed = (process.env.FAKE_RUN_ROUND_FAIL || '').split(',').includes(o.label);
async function main() {
  const client = new pg.Client({ connectionString: process.env.CFSCALE_RESULTS_URL });
  await client.connect();
  const id = await insertRound(client, {
    app: o.app, instances, loadgens, label: o.label, experiment: o.experiment ?? null,
    ...(o.rate ? { rate: Number(o.rate) } : { parallel: Number(o.parallel) }),
    requests: Math.max(5, Math.round(Math.min(offered, cap) * 0.5)),
    // A --requests round still needs a span for the synthetic samples: 4 s.
    durationMs: o.requests ? 4000 : ms(o.duration), warmupMs: ms(o.warmup, 0),
    latencyMs: util < 0.8 ? 5 : 5 + 100 * (util - 0.8), cpuPerInstance: Math.min(1, util),
    status: failed ? 'failed' : 'done',
    columns: {
      ...(o.requests ? { requests: Number(o.requests), duration_ms: null } : {}),
      timeout_ms: ms(o.timeout, 10_000), scenario: o.scenario ?? 'read', keepalive: !o['no-keepalive'],
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
