#!/usr/bin/env node
// run-experiment.js — entry point of scripts/run-experiment.sh: parse flags, load the
// plan, connect to the results database, hand off to lib/experiment/runner.js.
'use strict';
const { parseOrExit, note } = require('../lib/arg-table.js');
const { connect, resultsUrl } = require('../lib/results-db.js');
const { listLines, shippedPlans } = require('../lib/experiment/catalogue.js');
const { loadPlan, PlanError } = require('../lib/experiment/plan.js');
const { DEFAULT_RUN_ROUND, makeSettingsApplier, runRoundFlags, runRoundProcess } = require('../lib/experiment/round-runner.js');
const { runExperiment, UsageError } = require('../lib/experiment/runner.js');

// The flags, their defaults and --help in one (arg-table.js).
const COMMAND = {
  usage: 'Usage: scripts/run-experiment.sh PLAN [--dry-run] [--platform local|cf] [--db URL] [--run-round PATH]\n'
    + '       scripts/run-experiment.sh --list',
  about: 'Run an experiment plan unattended, resumable. PLAN: experiments/NAME.yml (or .json), see report/README.md '
    + 'for every field. Every round goes through scripts/run-round.sh with a label exp:<plan>:<step>:rep<r>.',
  rows: [
    ['--list', 'list', 'bool', false, 'print every shipped plan (experiments/) with the figure, table or section of the '
      + 'study it regenerates (the plan field regenerates)'],
    ['--dry-run', 'dryRun', 'bool', false, 'print the rounds it would run (and the ones already done, when the results '
      + 'database is reachable); run nothing'],
    ['--platform P', 'platform', 'str', note("the plan's"), "override the plan's platform", ['local', 'cf']],
    ['--db URL', 'db', 'str', note('CFSCALE_RESULTS_URL, else RESULTS_DATABASE_URL, else on local the report\'s service '
      + 'key on results-db through the cf CLI, starting the local platform and creating results-db first when needed'),
    'results database'],
    ['--run-round PATH', 'runRound', 'str', note('CFSCALE_RUN_ROUND, else scripts/run-round.sh'), 'the round runner'],
  ],
  positionals: 2,
  notes: 'Finished rounds (same label, status done, recorded under the parameters the plan gives\n'
    + 'now: report/README.md "Resume") are skipped, so running a plan again resumes it.\n'
    + 'Exit: 0 every round done, 1 usage or configuration, 2 some round failed. DEBUG=1 traces.',
  width: 100,
};

function die(msg, code = 1) {
  process.stderr.write(`run-experiment: ${msg}\n`);
  process.exit(code);
}

async function main() {
  const o = parseOrExit('run-experiment', process.argv.slice(2), COMMAND);
  if (o.list) {
    if (o._.length) die('--list takes no PLAN (see --help)');
    try { process.stdout.write(`${listLines(shippedPlans()).join('\n')}\n`); } catch (e) { if (e instanceof PlanError) die(e.message); throw e; }
    return 0;
  }
  if (o._.length !== 1) die('exactly one PLAN file is required (see --help)');
  let plan;
  try { plan = loadPlan(o._[0]); } catch (e) { if (e instanceof PlanError) die(e.message); throw e; }
  if (o.platform) plan.platform = o.platform;
  const runRoundPath = o.runRound || process.env.CFSCALE_RUN_ROUND || DEFAULT_RUN_ROUND;
  const log = (line) => process.stderr.write(`run-experiment: ${line}\n`);
  const dryRun = o.dryRun;

  const help = runRoundFlags(runRoundPath);
  if (!help.ok) {
    if (!dryRun) die(`${runRoundPath} --help failed (${help.reason}); is run-round.sh installed?`);
    log(`${runRoundPath} --help failed (${help.reason}); listing the rounds without checking their flags`);
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
      client, dryRun, log, runRoundPath, flags: help.ok ? help.flags : null,
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
