#!/usr/bin/env node
'use strict';
// loadgen — the one-off CLI: `loadgen --url URL --parallel 32 --duration 10s`.
// Parses and validates flags, hands the plan to lib/run.js, prints the summary
// (or --json), exits 0 ok, 1 usage, 2 when the run failed its own criteria.
// `--seed N --seed-only` only makes sure N ads exist and prints their id range
// (scripts/run-round.sh seeds the app this way before it creates a round).

const os = require('node:os');
const path = require('node:path');
const { buildPlan, help, UsageError } = require('../lib/args');
const { Run } = require('../lib/run');
const { humanSummary, progressLine, verdict } = require('../lib/report');

const STOP_GRACE_MAX_MS = 5000;
const FLUSH_TIMEOUT_MS = 30000;

async function main(argv) {
  let plan;
  try {
    plan = buildPlan(argv);
  } catch (err) {
    if (!(err instanceof UsageError)) throw err;
    process.stderr.write(`loadgen: ${err.message} (see --help)\n`);
    return 1;
  }
  if (plan.help) { process.stdout.write(help()); return 0; }

  if (plan.seedAds !== undefined) {
    const { seedAds } = require('../lib/seed');
    const s = await seedAds(plan.url, plan.seedAds, { host: plan.host, insecure: plan.insecure });
    Object.assign(plan, { idMin: s.idMin, idMax: s.idMax });
    if (plan.seedOnly) {
      process.stdout.write(plan.json
        ? JSON.stringify({ url: plan.url, seeded: s.created, total: s.total, id_min: s.idMin, id_max: s.idMax }) + '\n'
        : `seeded ${s.created} ads, ${s.total} in all; ids ${s.idMin}-${s.idMax}\n`);
      return 0;
    }
    if (!plan.json) process.stderr.write(`loadgen: seeded ${s.created} ads, ${s.total} in all; reads use ids ${s.idMin}-${s.idMax}\n`);
  }

  const spoolDir = plan.spoolDir || path.join(os.tmpdir(), 'cfscale-loadgen-spool-cli');
  let sink = null;
  if (plan.resultsDb) {
    const { Sink } = require('../lib/sink'); // with pg, ~45 ms of CPU at start: loaded only to persist
    sink = new Sink({ url: plan.resultsDb, spoolDir, log: (m) => process.stderr.write(`loadgen: ${m}\n`) });
  }
  const tty = plan.progress && process.stderr.isTTY;
  const run = new Run(plan, {
    sink, roundId: plan.round, loadgenIndex: plan.loadgenIndex, batchRows: plan.batchRows,
    onSecond: tty ? (s, ms) => process.stderr.write(progressLine(s, ms, run.stats.sent)) : undefined,
  });
  const onSignal = () => run.stop(Math.min(plan.timeoutMs, STOP_GRACE_MAX_MS));
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);

  const summary = await run.start();
  if (tty) process.stderr.write('\n');
  const result = {
    url: plan.url, model: plan.model, parallel: plan.parallel, rate: plan.rate ?? null,
    keepalive: plan.keepalive, scenario: plan.scenario, ...summary,
  };
  if (sink) {
    const f = await sink.flush(FLUSH_TIMEOUT_MS);
    await sink.close();
    result.persisted = { round: plan.round, rows_loaded: sink.rowsLoaded, spooled_batches: sink.batchesSpooled,
      spool_pending: f.spoolPending, rejected_batches: sink.batchesRejected, spool_dir: spoolDir };
  }
  const failed = verdict(result, plan.maxErrorRate);
  if (failed) result.failed = failed;
  process.stdout.write(plan.json ? JSON.stringify(result) + '\n' : humanSummary(result));
  return failed ? 2 : 0;
}

// A reader that went away (`loadgen ... | head -1`) is not a failure of the run: the
// output is lost, the exit code still tells how the run went.
process.stdout.on('error', (err) => {
  if (err.code !== 'EPIPE') throw err;
});

main(process.argv.slice(2)).then(
  (code) => { process.exitCode = code; },
  (err) => {
    process.stderr.write(`loadgen: ${err.message}\n`);
    process.exitCode = 2;
  },
);
