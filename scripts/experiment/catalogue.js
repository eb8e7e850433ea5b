// catalogue.js — the shipped plans (plans/shipped.js) with how long each takes: what
// `scripts/run-experiment.sh --list` prints; and the study: every plan that regenerates part of
// it, in the order `--study` runs them.
'use strict';
const { EXPERIMENTS_DIR, inStudy, shippedPlans } = require('../../plans/shipped.js');
const { plannedRounds } = require('./runner.js');
const { configKey, duration, estimateRounds } = require('./estimate.js');

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

module.exports = { withEstimates, studyPlans, studyOrder, listLines, estimateText };
