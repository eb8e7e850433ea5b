#!/usr/bin/env node
// report.js — entry point of scripts/report.sh: select rounds, read the report views,
// analyse (groups, CIs, comparisons) and write HTML + SVG + CSV; with --study, the results
// page of the study's plans in Markdown (lib/report/study-page.js).
'use strict';
const path = require('node:path');
const { parseCommand, note, CliError, cliExitCode } = require('../../lib/arg-table.js');
const { REPO_ROOT, resultsUrl } = require('../../lib/results-db-url.js');
const fs = require('node:fs');
const { execFileSync } = require('node:child_process');
const { ensureResultsSchema } = require('../../lib/results-schema.js');
const { defaultScale, loadPlan, PlanError, SCALES } = require('../../plans/plan.js');
const { inStudy, shippedPlans } = require('../../plans/shipped.js');
const { studyAnalyses, writeStudyPage } = require('../lib/report/study-page.js');
const { analyse } = require('../lib/report/analysis.js');
const { loadReportData, parseRoundList, staleLine } = require('../lib/report/data.js');
const { writeReport } = require('../lib/report/render.js');
const { connect } = require('../lib/report/results-db.js');

// The flags, their defaults and --help in one (arg-table.js).
const COMMAND = {
  usage: 'Usage: scripts/report.sh [--rounds IDS | --experiment NAME | --study [--plans DIR]] [--plan FILE] [--scale local|cf] [--out DIR] [--platform local|cf]',
  about: 'Render the results of rounds or an experiment: HTML with charts, SVG, CSV, from the report views of '
    + 'results-schema.sql (statistics method: report/README.md). Prints the path of index.html.',
  rows: [
    ['--rounds IDS', 'rounds', 'str', undefined, 'round ids and ranges, e.g. 3,5,10-12'],
    ['--study', 'study', 'bool', false, 'the results page of the study: every plan of run-experiment --study, each figure '
      + 'and table of the study with our chart beside its values, the claims table; DIR/README.md (Markdown), SVG, CSV'],
    ['--scale S', 'scale', 'str', note('local on the local platform, else cf'), 'the plans\' scale (run-experiment --scale)', SCALES],
    ['--experiment NAME', 'experiment', 'str', note('every round'), 'every round of an experiment (plan name)'],
    ['--plan FILE', 'plan', 'str', note('experiments/NAME.yml when it exists'), "the experiment's plan: its rounds "
      + 'recorded under other parameters than it gives now are left out and counted (stale); its validity thresholds apply'],
    ['--plans DIR', 'plansDir', 'str', note('experiments/'), '--study: the plans the run was made under (a run kept with '
      + 'the plans of its day); rounds recorded under other parameters are left out as stale'],
    ['--out DIR', 'out', 'str', note('report/out/<experiment|rounds|all|study>'), 'output directory'],
    ['--platform P', 'platform', 'str', 'local', 'where to look for the results database when CFSCALE_RESULTS_URL is not set',
      ['local', 'cf']],
    // A URL with its password: from the environment only, never a flag (`ps` shows argv).
    ['CFSCALE_RESULTS_URL URL', 'db', 'str', note("RESULTS_DATABASE_URL, else on local the report's service key on "
      + 'results-db, through the cf CLI'), 'results database'],
  ],
  notes: 'Without a plan, no round is left out as stale and the default validity thresholds apply.\n'
    + 'Writes DIR/index.html (self-contained, opens offline, Vega inlined), DIR/charts/*.svg, DIR/csv/*.csv.\n'
    + 'Exit: 0 ok, 1 usage or configuration (also: no rounds selected), 2 failure while rendering. DEBUG=1 traces.',
  width: 100,
};

function die(msg, code = 1) {
  process.stderr.write(`report: ${msg}\n`);
  process.exit(code);
}

/** The study's results page into outDir (--study). */
async function studyPage(o) {
  if (o.rounds || o.experiment || o.plan) die('--study takes no --rounds, --experiment or --plan');
  const scale = o.scale || defaultScale(o.platform);
  let plans;
  if (o.plansDir && !fs.existsSync(o.plansDir)) die(`--plans ${o.plansDir}: no such directory`);
  try { plans = shippedPlans(scale, o.plansDir ? path.resolve(o.plansDir) : undefined).map((e) => e.plan).filter(inStudy); } catch (e) {
    if (e instanceof PlanError) die(e.message);
    throw e;
  }
  const url = await resultsUrl({ db: o.db, platform: o.platform });
  if (!url) die('no results database: set CFSCALE_RESULTS_URL');
  const outDir = path.resolve(o.out || path.join(REPO_ROOT, 'report/out/study'));
  let client;
  try { client = await connect(url); } catch (e) { die(`cannot reach the results database: ${e.message}`); }
  await ensureResultsSchema((text, params) => client.query(text, params));
  try {
    const analyses = await studyAnalyses(client, plans);
    const n = Object.values(analyses).reduce((t, x) => t + x.analysis.rounds.length, 0);
    if (!n) die('no rounds of the study\'s plans: run scripts/run-experiment.sh --study first');
    const pageRev = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: REPO_ROOT, encoding: 'utf8' }).trim();
    const { files, claims } = await writeStudyPage(outDir, analyses, { scale, pageRev });
    process.stderr.write(`report: the study from ${n} round(s) of ${plans.length} plan(s), ${files.length} file(s); `
      + `claims: ${claims.map((c) => c.verdict).join(', ')}\n`);
    process.stdout.write(`${path.join(outDir, 'README.md')}\n`);
    return 0;
  } finally {
    await client.end();
  }
}

async function main() {
  const o = parseCommand('report', process.argv.slice(2), COMMAND);
  if (o.plansDir && !o.study) die('--plans goes with --study');
  if (o.study) return studyPage(o);
  if (o.rounds && o.experiment) die('give --rounds or --experiment, not both');
  const sel = {};
  if (o.rounds) { try { sel.rounds = parseRoundList(o.rounds); } catch (e) { die(e.message); } }
  if (o.experiment) sel.experiment = o.experiment;
  // The plan: its stale rounds are left out, its validity thresholds apply.
  const planFile = o.plan || (o.experiment && path.join(REPO_ROOT, 'experiments', `${o.experiment}.yml`));
  if (o.plan || (planFile && fs.existsSync(planFile))) {
    try { sel.plan = loadPlan(planFile); } catch (e) { if (e instanceof PlanError) die(e.message); throw e; }
    if (o.experiment && sel.plan.name !== o.experiment) die(`--plan ${o.plan} is plan ${sel.plan.name}, not --experiment ${o.experiment}`);
  }
  const url = await resultsUrl({ db: o.db, platform: o.platform });
  if (!url) die('no results database: set CFSCALE_RESULTS_URL');
  const outDir = path.resolve(o.out || path.join(REPO_ROOT, 'report/out', o.experiment || (o.rounds ? 'rounds' : 'all')));
  let client;
  try { client = await connect(url); } catch (e) { die(`cannot reach the results database: ${e.message}`); }
  await ensureResultsSchema((text, params) => client.query(text, params));
  try {
    const data = await loadReportData(client, sel);
    const staleNote = staleLine(sel.plan, data.stale);
    if (!data.overview.length) die(`no rounds match ${o.rounds ? `--rounds ${o.rounds}` : o.experiment ? `--experiment ${o.experiment}` : '(the database has no rounds)'}${data.stale.length ? ` (${staleNote})` : ''}`);
    const analysis = analyse(data, { limits: sel.plan?.validity, afterChange: sel.plan?.afterChange, slo: sel.plan?.slo });
    const selection = o.rounds ? `rounds ${o.rounds}` : o.experiment ? `experiment ${o.experiment}` : 'every round';
    const files = await writeReport(outDir, analysis, data, {
      title: `cfscale report: ${selection}`, selection, generatedAt: new Date().toISOString(), staleNote,
    });
    process.stderr.write(`report: ${data.overview.length} round(s), ${analysis.groups.length} group(s), ${files.length} file(s)\n`);
    if (staleNote) process.stderr.write(`report: ${staleNote}\n`);
    process.stdout.write(`${path.join(outDir, 'index.html')}\n`);
    return 0;
  } finally {
    await client.end();
  }
}

main().then((code) => process.exit(code), (e) => (e instanceof CliError ? process.exit(cliExitCode(e)) : die(e.stack || e.message, 2)));
