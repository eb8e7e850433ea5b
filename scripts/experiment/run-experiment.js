#!/usr/bin/env node
// run-experiment.js — entry point of scripts/run-experiment.sh: parse flags, load the
// plan (or the study's plans), connect to the results database, hand off to
// runner.js, plan after plan, with the time left on every plan's start. The rounds run in
// this process (round/round.js runRound), one after another.
'use strict';
const { parseCommand, note, CliError, cliExitCode } = require('../../lib/arg-table.js');
const { makeCli } = require('../ops/cli.js');
const { enterRepository } = require('../ops/target.js');
const { roundOptions } = require('../round/run-round-args.js');
const round = require('../round/round.js');
const { connect, resultsUrl } = require('../ops/results-url.js');
const { ensureResultsSchema } = require('../../lib/results-schema.js');
const { estimateText, listLines, studyPlans, withEstimates } = require('./catalogue.js');
const { shippedPlans } = require('../../plans/shipped.js');
const { duration } = require('./estimate.js');
const { defaultScale, loadPlan, PlanError, SCALES } = require('../../plans/plan.js');
const { makeSettingsApplier } = require('./round-runner.js');
const { runExperiment, UsageError } = require('./runner.js');
const { cellProblems, localCells } = require('./cell-fit.js');

// The flags, their defaults and --help in one (arg-table.js).
const COMMAND = {
  usage: 'Usage: scripts/run-experiment.sh PLAN [--scale local|cf] [--dry-run] [--platform local|cf]\n'
    + '       scripts/run-experiment.sh --study [--scale local|cf] [--dry-run] [...]\n'
    + '       scripts/run-experiment.sh --list [--scale local|cf]',
  about: 'Run an experiment plan unattended, resumable. PLAN: experiments/NAME.yml (or .json), see scripts/experiment/README.md '
    + 'for every field. Every round is a round of scripts/run-round.sh, run in this process, with a label exp:<plan>:<step>:rep<r>.',
  rows: [
    ['--study', 'study', 'bool', false, 'run every shipped plan that regenerates part of the study (the regenerates of '
      + '--list, its future work aside), ordered so that plans needing the same app configuration follow each other; '
      + 'prints each plan\'s rounds and estimated time and the total first, the time left as it goes'],
    ['--scale S', 'scale', 'str', note('local on the local platform, else cf'), 'local: each plan\'s local profile (its '
      + 'local: fields, sized for one small machine); cf: the plan as written', SCALES],
    ['--list', 'list', 'bool', false, 'print every shipped plan (experiments/) with the figure, table or section of the '
      + 'study it regenerates (the plan field regenerates), its rounds and estimated time'],
    ['--dry-run', 'dryRun', 'bool', false, 'print the rounds it would run (and the ones already done, when the results '
      + 'database is reachable) and the estimated time; run nothing'],
    ['--platform P', 'platform', 'str', note("the plan's"), "override the plan's platform", ['local', 'cf']],
    // A URL with its password: from the environment only, never a flag (`ps` shows argv).
    ['CFSCALE_RESULTS_URL URL', 'db', 'str', note('RESULTS_DATABASE_URL, else on local the report\'s service key on '
      + 'results-db through the cf CLI, starting the local platform and creating results-db first when needed'),
    'results database'],
  ],
  positionals: 2,
  notes: 'Finished rounds (same label, status done, recorded under the parameters the plan gives\n'
    + 'now: scripts/experiment/README.md "Resume") are skipped, so running a plan (or the study) again resumes it.\n'
    + 'Estimates: each round\'s warm-up and duration, plus its overhead, restarts and the reruns after\n'
    + 'a change (scripts/experiment/estimate.js); adaptive plans count every step as passing.\n'
    + 'Exit: 0 every round done, 1 usage or configuration, 2 some round failed. DEBUG=1 traces.',
  width: 100,
};

/**
 * One round in this process (round/round.js runRound): its values checked as run-round.sh
 * checks its flags, then run; its summary on stderr, indented. Resolves { code, roundId }: a
 * round that stopped early is its CliError's code (said on stderr); SIGINT/SIGTERM (130) ends
 * the experiment.
 */
async function execRound(values) {
  const cli = makeCli('run-round');
  try {
    const res = await round.runRound(roundOptions(values, cli));
    for (const line of (res.text || '').split('\n').filter(Boolean)) process.stderr.write(`  | ${line}\n`);
    return { code: res.code, roundId: res.roundId };
  } catch (e) {
    if (!(e instanceof CliError) || e.exitCode === round.EXIT_INTERRUPTED) throw e;
    if (e.message) process.stderr.write(`  | ${e.message}\n`);
    return { code: e.exitCode, roundId: null };
  }
}

/** A round run-round.sh would refuse stops the experiment (and its dry run) before it runs. */
function checkRound(values) {
  try {
    roundOptions(values, makeCli('run-round'));
  } catch (e) {
    if (e instanceof CliError) die(`round ${values.label}: ${e.message}`);
    throw e;
  }
}

function die(msg, code = 1) {
  process.stderr.write(`run-experiment: ${msg}\n`);
  process.exit(code);
}

const planError = (e) => { if (e instanceof PlanError) die(e.message); throw e; };

/** The plans to run, [{file, plan, specs, estimate}], with the platform override applied. */
async function selected(o) {
  const scale = o.scale || (o.platform ? defaultScale(o.platform) : null);
  let entries;
  if (o.study) {
    if (o._.length) die('--study takes no PLAN (see --help)');
    entries = await studyPlans(scale ?? defaultScale('local'));
  } else {
    if (o._.length !== 1) die('exactly one PLAN file is required, or --study (see --help)');
    entries = await withEstimates([{ file: o._[0], plan: loadPlan(o._[0], scale) }]);
  }
  for (const e of entries) if (o.platform) e.plan.platform = o.platform;
  return entries;
}

/** Locally, a plan whose quotas add up to more than the SUT's cell is refused, dry run or not (cell-fit.js). */
async function refuseOversized(entries) {
  if (!entries.some((e) => e.plan.platform === 'local')) return;
  const cells = await localCells();
  if (!cells) return;
  const problems = entries.filter((e) => e.plan.platform === 'local').flatMap((e) => cellProblems(e.plan, e.specs, cells.sutCount));
  if (problems.length) die(problems.join('\n'));
}

async function main() {
  const o = parseCommand('run-experiment', process.argv.slice(2), COMMAND);
  if (o.list) {
    if (o._.length || o.study) die('--list takes no PLAN and no --study (see --help)');
    const scale = o.scale || defaultScale('local');
    const entries = await withEstimates(shippedPlans(scale)).catch(planError);
    process.stdout.write(`${listLines(entries, scale).join('\n')}\n`);
    return 0;
  }
  const entries = await selected(o).catch(planError);
  await refuseOversized(entries);
  // The rounds run from the repository root (their commands and files are named from there).
  enterRepository();
  const log = (line) => process.stderr.write(`run-experiment: ${line}\n`);
  const dryRun = o.dryRun;
  const platform = entries[0].plan.platform;
  const totalS = entries.reduce((t, e) => t + e.estimate.seconds, 0);
  for (const e of entries) log(`${e.plan.name}: ${estimateText(e.estimate, e.plan.scaleProfile)}`);
  if (entries.length > 1 || dryRun) log(`estimated total: about ${duration(totalS)}, ${entries.reduce((t, e) => t + e.estimate.rounds, 0)} rounds`);

  let url;
  try {
    url = await resultsUrl({ db: o.db, platform, ensureLocal: !dryRun });
  } catch (e) {
    die(e.message, 2);
  }
  let client = null;
  if (url) {
    try {
      client = await connect(url);
      // Finished rounds are looked up before the first round runs: the schema must be there.
      if (!dryRun) await ensureResultsSchema((text, params) => client.query(text, params));
    } catch (e) {
      if (!dryRun) die(`cannot reach the results database: ${e.message}`);
      log(`results database unreachable (${e.message}); listing every round`);
    }
  } else if (!dryRun) {
    die('no results database: set CFSCALE_RESULTS_URL');
  }
  const t0 = Date.now();
  const applySettings = makeSettingsApplier({ platform, log });
  const sum = { ran: 0, skipped: 0, failed: 0, planned: 0, stale: 0, reruns: 0 };
  let leftS = totalS;
  let ranS = 0; // the estimate of the rounds run so far (a round done before takes no time)
  try {
    for (const [i, { plan, estimate }] of entries.entries()) {
      // The time left: the estimate of the plans to come, scaled by how the rounds run compared.
      const pace = ranS > 0 ? (Date.now() - t0) / 1000 / ranS : 1;
      if (entries.length > 1 && !dryRun) log(`study: plan ${i + 1}/${entries.length}, ${plan.name}; ETA about ${duration(leftS * pace)} left`);
      log(`plan ${plan.name} (${plan.scaleProfile} scale): kind ${plan.kind}, platform ${plan.platform}, apps ${plan.apps.join(', ')}, `
        + `${plan.variants.length} variant(s), ${plan.repetitions} repetition(s), order ${plan.order}`);
      const { tally } = await runExperiment(plan, {
        client, dryRun, log, applySettings, checkRound,
        print: (l) => process.stdout.write(`${l}\n`),
        execRound: (spec, values) => execRound(values),
      });
      for (const k of Object.keys(sum)) sum[k] += tally[k];
      const run = tally.ran + tally.failed;
      ranS += run > 0 ? estimate.seconds * run / (run + tally.skipped) : 0;
      leftS -= estimate.seconds;
    }
    const stale = sum.stale ? `, ${sum.stale} done before under other parameters (not reused)` : '';
    if (dryRun) log(`dry run: ${sum.planned} round(s) to run, ${sum.skipped} done before${stale}; estimated about ${duration(totalS)} for all`);
    const reruns = sum.reruns ? `, ${sum.reruns} step(s) run again after a change` : '';
    if (!dryRun) log(`finished: ${sum.ran} ran, ${sum.skipped} skipped (done before), ${sum.failed} failed${stale}${reruns} in ${duration((Date.now() - t0) / 1000)}`);
    return sum.failed > 0 ? 2 : 0;
  } catch (e) {
    if (e instanceof CliError) throw e;
    if (e instanceof UsageError) die(e.message);
    die(e.message, 2);
  } finally {
    if (client) await client.end();
  }
  return 0;
}

main().then((code) => process.exit(code), (e) => (e instanceof CliError ? process.exit(cliExitCode(e)) : die(e.stack || e.message, 2)));
