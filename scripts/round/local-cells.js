'use strict';
// local-cells.js — the local platform's cells (`cfl cells`, docs/cf-platform.md §24): which CPUs
// the system under test had and which the harness had. The round records them (round-doc.js) and
// reads how busy each was (round-usage.js).
const { parseCpuList } = require('../../lib/cpu-list');

/** { sut_cpus, harness_cpus, app_db (as the platform names them), sut, harness (CPU numbers) }, or null without cells. */
async function localCells(p) {
  const r = await p.cflQuery('cells', { stderr: 'ignore' });
  let c = null;
  try { c = r.code === 0 ? JSON.parse(r.stdout) : null; } catch { /* an older platform */ }
  return c && { ...c, sut: parseCpuList(c.sut_cpus), harness: parseCpuList(c.harness_cpus) };
}

/**
 * Raise the shield for `seconds` (the machine's other processes off the SUT's CPUs while the round
 * measures; it lowers itself after them), or lower it (0). False when it could not be asked.
 */
async function shield(p, seconds) {
  return (await p.cflQuery('cells', '--shield', String(Math.ceil(seconds)), { stderr: 'ignore' })).code === 0;
}

module.exports = { localCells, shield };
