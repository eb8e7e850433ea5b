// fake-run-round.js (test helper) — stands in for the round in the runner tests: preloaded into
// run-experiment.sh's node (NODE_OPTIONS=--require this file, FAKE_ROUND_ENV below), it puts its
// runRound in place of round/round.js's, so that the runner calls it in process as it calls the
// real one. It takes the options as the real one does (checked by run-round-args.js
// roundOptions before the call), writes a synthetic
// finished round (synthetic.js) into CFSCALE_RESULTS_URL and resolves { code, roundId, text }.
// Model: each app instance serves 100 req/s; latency grows past 80 % utilisation. Records the
// round's parameters as round.js does (duration/requests, warm-up, timeout, scenario,
// keep-alive, the CPU quota applied in environment, the load balancing in plan). Every call's
// options are appended as a JSON line to FAKE_RUN_ROUND_LOG; labels listed in
// FAKE_RUN_ROUND_FAIL (comma-separated) fail (code 2).
// FAKE_RUN_ROUND_ROUTER_MS: the local router's CPU per request served (ms), recorded as
// run-round does (environment.router_cpu_cores, router_cpu_quota_cores null: no quota).
// FAKE_APP_MEMORY_FILE: a file holding the app's container memory (MB, written by a fake
// `scale -m`), recorded as run-round does from the v3 process (environment.app_memory_mb).
'use strict';
const fs = require('node:fs');
const pg = require('pg');
const { insertRound } = require('../report/test/helpers/synthetic.js');
const { CPU_DEFAULT } = require('../lib/cpu-quota.js');

// The local platform's default quota: manifest memory in GB x CFSCALE_CPU_PER_GB (1.0) cores.
const DEFAULT_MEMORY_MB = 1024;

async function runRound(o) {
  if (process.env.FAKE_RUN_ROUND_LOG) fs.appendFileSync(process.env.FAKE_RUN_ROUND_LOG, `${JSON.stringify(o)}\n`);
  const instances = Number(o.instances);
  const loadgens = Number(o.loadgens);
  const rate = o.rate === '' ? null : Number(o.rate);
  const parallel = o.parallel === '' ? 1 : Number(o.parallel);
  const requests = o.requests === '' ? null : Number(o.requests);
  const offered = rate ? rate * loadgens : loadgens * parallel * 20;
  const cap = instances * 100;
  const util = offered / cap;
  const failed = (process.env.FAKE_RUN_ROUND_FAIL || '').split(',').includes(o.label);
  const memoryMb = process.env.FAKE_APP_MEMORY_FILE ? Number(fs.readFileSync(process.env.FAKE_APP_MEMORY_FILE, 'utf8')) : null;
  const client = new pg.Client({ connectionString: process.env.CFSCALE_RESULTS_URL });
  await client.connect();
  try {
    const id = await insertRound(client, {
      app: o.app, instances, loadgens, label: o.label, experiment: o.experiment || null,
      ...(rate ? { rate } : { parallel }),
      requests: Math.max(5, Math.round(Math.min(offered, cap) * 0.5)),
      // A --requests round still needs a span for the synthetic samples: 4 s.
      durationMs: requests ? 4000 : o.durationMs, warmupMs: o.warmupMs,
      latencyMs: util < 0.8 ? 5 : 5 + 100 * (util - 0.8), cpuPerInstance: Math.min(1, util),
      status: failed ? 'failed' : 'done',
      columns: {
        ...(requests ? { requests, duration_ms: null } : {}),
        timeout_ms: o.timeoutMs, scenario: o.scenario, keepalive: o.keepalive,
        environment: {
          stats_source: 'fake',
          app_cpu_quota_cores: o.cpu === CPU_DEFAULT ? (memoryMb ?? DEFAULT_MEMORY_MB) / 1024 : o.cpu,
          app_cpu_quota_default: o.cpu === CPU_DEFAULT,
          ...(process.env.FAKE_RUN_ROUND_ROUTER_MS
            ? { router_cpu_cores: (Math.min(offered, cap) * Number(process.env.FAKE_RUN_ROUND_ROUTER_MS)) / 1000, router_cpu_quota_cores: null } : {}),
          ...(memoryMb !== null ? { app_memory_mb: memoryMb } : {}),
        },
        plan: { seed_ads: 1000, ...(o.loadbalancing ? { loadbalancing: o.loadbalancing } : {}) },
      },
    });
    return { code: failed ? 2 : 0, roundId: id, text: `fake round ${id}\n` };
  } finally {
    await client.end();
  }
}

// The round module's exports, as run-experiment.js reads them at each round.
require('../scripts/round/round.js').runRound = runRound;

/** The environment that makes a run-experiment.sh process run its rounds here. */
const FAKE_ROUND_ENV = { NODE_OPTIONS: `--require ${__filename}` };

module.exports = { runRound, FAKE_ROUND_ENV };
