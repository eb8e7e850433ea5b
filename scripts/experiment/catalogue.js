// catalogue.js — the shipped plans (experiments/*.yml), what of the study each regenerates
// (the plan field `regenerates`) and how long each takes: `scripts/run-experiment.sh --list`;
// and the study: every plan that regenerates part of it, in the order `--study` runs them.
'use strict';
const fs = require('node:fs');
const path = require('node:path');
const { REPO_ROOT } = require('../ops/results-url.js');
const { loadPlan } = require('./plan.js');
const { plannedRounds } = require('./runner.js');
const { configKey, duration, estimateRounds } = require('./estimate.js');

const EXPERIMENTS_DIR = path.join(REPO_ROOT, 'experiments');

/** [{file, plan}] of every shipped plan at a scale (null: each plan's default), by file name. */
function shippedPlans(scale = null, dir = EXPERIMENTS_DIR) {
  return fs.readdirSync(dir).filter((f) => /\.(ya?ml|json)$/.test(f)).sort()
    .map((f) => ({ file: path.join(path.basename(dir), f), plan: loadPlan(path.join(dir, f), scale) }));
}

// The study's future work (§9) is not the study's result: plans for it stay out of --study.
const inStudy = (plan) => plan.regenerates.some((r) => !/^§9\b/.test(r));

/** Each plan with its rounds (dry run) and the estimate of running it alone. */
async function withEstimates(entries) {
  const out = [];
  for (const e of entries) {
    const specs = await plannedRounds(e.plan);
    out.push({ ...e, specs, estimate: estimateRounds(specs) });
  }
  return out;
}

/**
 * The study's plans in run order: from the apps as they stand, each next plan the one whose
 * first rounds need the fewest changes (instances, settings, memory, CPU quota, routing) of
 * the apps the plan before left, so plans that share a configuration share its restart and its
 * rerun; ties in file order.
 */
function studyOrder(entries) {
  const left = [...entries];
  const state = new Map();
  const out = [];
  const changesAtStart = (e) => {
    const firsts = new Map();
    for (const s of e.specs) if (!firsts.has(s.app)) firsts.set(s.app, configKey(s));
    return [...firsts].filter(([app, key]) => state.get(app) !== key).length;
  };
  while (left.length) {
    let best = 0;
    for (let i = 1; i < left.length; i++) if (changesAtStart(left[i]) < changesAtStart(left[best])) best = i;
    const [e] = left.splice(best, 1);
    for (const s of e.specs) state.set(s.app, configKey(s));
    out.push(e);
  }
  return out;
}

/** The study at a scale: [{file, plan, specs, estimate}] in run order, estimates in that order. */
async function studyPlans(scale, dir = EXPERIMENTS_DIR) {
  const ordered = studyOrder(await withEstimates(shippedPlans(scale, dir).filter((e) => inStudy(e.plan))));
  const state = new Map();
  return ordered.map((e) => ({ ...e, estimate: estimateRounds(e.specs, state) }));
}

const estimateText = (est, scale) => `${est.rounds} rounds, about ${duration(est.seconds)} at ${scale} scale`;

/** One line per plan: file, what it regenerates (or "-"), (its description; rounds and time). */
function listLines(entries, scale) {
  const w = Math.max(...entries.map((e) => e.file.length));
  return entries.map(({ file, plan, estimate }) => `${file.padEnd(w)}  ${plan.regenerates.length ? `study ${plan.regenerates.join(', ')}` : '-'}  `
    + `(${plan.description || plan.kind}; ${estimateText(estimate, scale)})`);
}

module.exports = { shippedPlans, withEstimates, studyPlans, studyOrder, inStudy, listLines, estimateText, EXPERIMENTS_DIR };
