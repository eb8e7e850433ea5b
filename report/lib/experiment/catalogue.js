// catalogue.js — the shipped plans (experiments/*.yml) and what of the study each
// regenerates (the plan field `regenerates`): `scripts/run-experiment.sh --list`.
'use strict';
const fs = require('node:fs');
const path = require('node:path');
const { REPO_ROOT } = require('../results-db.js');
const { loadPlan } = require('./plan.js');

const EXPERIMENTS_DIR = path.join(REPO_ROOT, 'experiments');

/** [{file, name, kind, regenerates, description}] of every plan in dir, by file name. */
function shippedPlans(dir = EXPERIMENTS_DIR) {
  return fs.readdirSync(dir).filter((f) => /\.(ya?ml|json)$/.test(f)).sort().map((f) => {
    const p = loadPlan(path.join(dir, f));
    return { file: path.join(path.basename(dir), f), name: p.name, kind: p.kind, regenerates: p.regenerates, description: p.description };
  });
}

/** One line per plan: file, what it regenerates (or "-"), its description. */
function listLines(plans) {
  const w = Math.max(...plans.map((p) => p.file.length));
  return plans.map((p) => `${p.file.padEnd(w)}  ${p.regenerates.length ? `study ${p.regenerates.join(', ')}` : '-'}  (${p.description || p.kind})`);
}

module.exports = { shippedPlans, listLines, EXPERIMENTS_DIR };
