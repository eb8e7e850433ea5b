#!/usr/bin/env node
// run-experiment.js — entry point of scripts/run-experiment.sh: parse flags, load the
// plan, connect to the results database, hand off to lib/experiment/runner.js.
'use strict';
const { parseArgs } = require('node:util');
const { connect, resultsUrl } = require('../lib/results-db.js');
const { listLines, shippedPlans } = require('../lib/experiment/catalogue.js');
const { loadPlan, PlanError } = require('../lib/experiment/plan.js');
const { DEFAULT_RUN_ROUND, makeSettingsApplier, runRoundFeatures, runRoundProcess } = require('../lib/experiment/round-runner.js');
const { runExperiment, UsageError } = require('../lib/experiment/runner.js');

const USAGE = `Usage: scripts/run-experiment.sh PLAN [--dry-run] [--platform local|cf] [--db URL] [--run-round PATH]
       scripts/run-experiment.sh --list
  PLAN             experiments/NAME.yml (or .json): see report/README.md for every field
  --list           print every shipped plan (experiments/) with the figure, table or
                   section of the study it regenerates (the plan field regenerates)
  --dry-run        print the rounds it would run (and the ones already done, when the
                   results database is reachable); run nothing
  --platform P     override the plan's platform (local | cf)
  --db URL         results database (default: CFSCALE_RESULTS_URL, else RESULTS_DATABASE_URL,
                   else on local the report's service key on results-db through the cf CLI,
                   starting the local platform and creating results-db first when needed)
  --run-round P    the round runner (default: scripts/run-round.sh; env CFSCALE_RUN_ROUND)
  -h, --help       this help
Finished rounds (same label, status done, recorded under the parameters the plan gives
now: report/README.md "Resume") are skipped, so running a plan again resumes it.
Exit: 0 every round done, 1 usage or configuration, 2 some round failed.`;

function die(msg, code = 1) {
  process.stderr.write(`run-experiment: ${msg}\n`);
  process.exit(code);
}

async function main() {
  let args;
  try {
    args = parseArgs({
      allowPositionals: true,
      options: {
        'dry-run': { type: 'boolean' }, platform: { type: 'string' }, db: { type: 'string' },
        'run-round': { type: 'string' }, list: { type: 'boolean' }, help: { type: 'boolean', short: 'h' },
      },
    });
  } catch (e) { die(`${e.message} (see --help)`); }
  const o = args.values;
  if (o.help) { process.stdout.write(`${USAGE}\n`); return 0; }
  if (o.list) {
    if (args.positionals.length) die('--list takes no PLAN (see --help)');
    try { process.stdout.write(`${listLines(shippedPlans()).join('\n')}\n`); } catch (e) { if (e instanceof PlanError) die(e.message); throw e; }
    return 0;
  }
  if (args.positionals.length !== 1) die('exactly one PLAN file is required (see --help)');
  if (o.platform && !['local', 'cf'].includes(o.platform)) die(`--platform must be local or cf, got "${o.platform}"`);
  let plan;
  try { plan = loadPlan(args.positionals[0]); } catch (e) { if (e instanceof PlanError) die(e.message); throw e; }
  if (o.platform) plan.platform = o.platform;
  const runRoundPath = o['run-round'] || process.env.CFSCALE_RUN_ROUND || DEFAULT_RUN_ROUND;
  const log = (line) => process.stderr.write(`run-experiment: ${line}\n`);
  const dryRun = Boolean(o['dry-run']);

  let features = runRoundFeatures(runRoundPath);
  if (!features.ok) {
    if (!dryRun) die(`${runRoundPath} --help failed (${features.reason}); is run-round.sh installed?`);
    log(`${runRoundPath} --help failed (${features.reason}); listing the rounds with the basic flags`);
    features = {};
  }
  const url = resultsUrl({ db: o.db, platform: plan.platform, ensureLocal: !dryRun });
  let client = null;
  if (url) {
    try { client = await connect(url); } catch (e) {
      if (!dryRun) die(`cannot reach the results database: ${e.message}`);
      log(`results database unreachable (${e.message}); listing every round`);
    }
  } else if (!dryRun) {
    die('no results database: pass --db URL or set CFSCALE_RESULTS_URL');
  }
  log(`plan ${plan.name}: kind ${plan.kind}, platform ${plan.platform}, apps ${plan.apps.join(', ')}, ` +
    `${plan.variants.length} variant(s), ${plan.repetitions} repetition(s), order ${plan.order}`);
  try {
    const { tally } = await runExperiment(plan, {
      client, dryRun, log, runRoundPath, features,
      print: (l) => process.stdout.write(`${l}\n`),
      applySettings: makeSettingsApplier({ platform: plan.platform, log }),
      execRound: (spec, a) => runRoundProcess(runRoundPath, a, { onLine: (l) => process.stderr.write(`  | ${l}\n`) }),
    });
    const stale = tally.stale ? `, ${tally.stale} done before under other parameters (not reused)` : '';
    if (dryRun) log(`dry run: ${tally.planned} round(s) to run, ${tally.skipped} done before${stale}`);
    const reruns = tally.reruns ? `, ${tally.reruns} step(s) run again after a change` : '';
    if (!dryRun) log(`finished: ${tally.ran} ran, ${tally.skipped} skipped (done before), ${tally.failed} failed${stale}${reruns}`);
    return tally.failed > 0 ? 2 : 0;
  } catch (e) {
    if (e instanceof UsageError) die(e.message);
    die(e.message, 2);
  } finally {
    if (client) await client.end();
  }
  return 0;
}

main().then((code) => process.exit(code), (e) => die(e.stack || e.message, 2));
