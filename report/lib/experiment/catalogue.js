// catalogue.js — the shipped plans (experiments/*.yml) and what of the study each
// regenerates (the plan field `regenerates`): `scripts/run-experiment.sh --list`.
import fs from 'node:fs';
import path from 'node:path';
import { REPO_ROOT } from '../results-db.js';
import { loadPlan } from './plan.js';

export const EXPERIMENTS_DIR = path.join(REPO_ROOT, 'experiments');

/** [{file, name, kind, regenerates, description}] of every plan in dir, by file name. */
export function shippedPlans(dir = EXPERIMENTS_DIR) {
  return fs.readdirSync(dir).filter((f) => /\.(ya?ml|json)$/.test(f)).sort().map((f) => {
    const p = loadPlan(path.join(dir, f));
    return { file: path.join(path.basename(dir), f), name: p.name, kind: p.kind, regenerates: p.regenerates, description: p.description };
  });
}

/** One line per plan: file, what it regenerates (or "-"), its description. */
export function listLines(plans) {
  const w = Math.max(...plans.map((p) => p.file.length));
  return plans.map((p) => `${p.file.padEnd(w)}  ${p.regenerates.length ? `study ${p.regenerates.join(', ')}` : '-'}  (${p.description || p.kind})`);
}
