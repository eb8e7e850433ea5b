// shipped.js — the shipped plans (experiments/*.yml) and which of them are the study: what
// the runner's --list and --study run, and what the report's --study reads back.
'use strict';
const fs = require('node:fs');
const path = require('node:path');
const { loadPlan } = require('./plan.js');

const EXPERIMENTS_DIR = path.resolve(__dirname, '../experiments');

/** [{file, plan}] of every shipped plan at a scale (null: each plan's default), by file name. */
function shippedPlans(scale = null, dir = EXPERIMENTS_DIR) {
  return fs.readdirSync(dir).filter((f) => /\.(ya?ml|json)$/.test(f)).sort()
    .map((f) => ({ file: path.join(path.basename(dir), f), plan: loadPlan(path.join(dir, f), scale) }));
}

// The study's future work (§9) is not the study's result: plans for it stay out of --study.
const inStudy = (plan) => plan.regenerates.some((r) => !/^§9\b/.test(r));

module.exports = { shippedPlans, inStudy, EXPERIMENTS_DIR };
