// cell-fit.js — does a local plan fit the system under test's cell? Its rounds' CPU quotas,
// summed over the instances of a round, must not pass the cell's CPUs (`scripts/cfl cells`):
// a quota is a ceiling, not a reservation, and instances that together were given more than
// the cell has would share it, so the plan would measure the cell, not the quota it names.
'use strict';
const path = require('node:path');
const { capture } = require('../ops/exec.js');
const { parseCpuList } = require('../../lib/cpu-list.js');

const CFL = path.join(__dirname, '..', 'cfl');

/**
 * The local platform's cells (`cfl cells`: the running one's, else the split it would make), or
 * null. run: the look-up, → Promise<{ code, stdout }> (exec.js capture).
 */
async function localCells(run = () => capture([CFL, 'cells'])) {
  const r = await run();
  if (r.code !== 0) return null;
  try {
    const c = JSON.parse(r.stdout);
    return c && { ...c, sutCount: parseCpuList(c.sut_cpus).length };
  } catch { return null; }
}

/** One line per distinct oversized round of a plan: instances × quota > the SUT's CPUs. */
function cellProblems(plan, specs, sutCount) {
  const seen = new Set();
  const out = [];
  for (const s of specs) {
    const cpu = typeof s.cpu === 'number' ? s.cpu : null;
    if (cpu === null || s.instances * cpu <= sutCount + 1e-9) continue;
    const key = `${s.instances}x${cpu}`;
    if (seen.has(key)) continue;
    seen.add(key);
    out.push(`plan ${plan.name}: ${s.instances} instance(s) × ${cpu} core(s) = ${+(s.instances * cpu).toFixed(3)} cores of quota, `
      + `more than the ${sutCount} CPU(s) of the system under test's cell (scripts/cfl cells): the instances would share the cell, `
      + 'not run at their quota; lower cpu or instances');
  }
  return out;
}

module.exports = { localCells, cellProblems };
