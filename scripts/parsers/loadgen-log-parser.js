'use strict';
// loadgen-log-parser.js — the loadgen's `cfscale-loadgen-lost` lines out of `cf logs
// loadgen --recent` (pure). A worker that exits with samples not in the results database
// (the database down at SIGTERM; on CF its spool goes with the container, docs/cf-platform.md
// §4) prints one per round on stdout (loadgen/lib/worker.js):
//   cfscale-loadgen-lost {"round_id":12,"loadgen_index":3,"lost":1234,"recorded":40000}
// which `cf logs` shows as `   <ts> [APP/PROC/WEB/3] OUT cfscale-loadgen-lost {...}`
// (docs/cf-platform.md §10). `recorded` (samples that life recorded in the round) is absent
// when the round ran in an earlier life of the instance.

const MARK = 'cfscale-loadgen-lost ';

const isCount = (v) => Number.isSafeInteger(v) && v >= 0;

/**
 * @param {string} text log lines
 * @param {number} [round] keep only this round's reports
 * @returns {{reports: {round_id, loadgen_index, lost, recorded?}[], bad: number}} the last report
 *   per round and index (a restarted instance may print again); bad: marked lines that do not parse
 */
function lostReports(text, round) {
  const byKey = new Map();
  let bad = 0;
  for (const line of String(text).split('\n')) {
    const at = line.indexOf(MARK);
    if (at === -1) continue;
    let r;
    try {
      r = JSON.parse(line.slice(at + MARK.length));
    } catch {
      bad++;
      continue;
    }
    const ok = r !== null && typeof r === 'object' && [r.round_id, r.loadgen_index, r.lost].every(isCount)
      && (r.recorded === undefined || isCount(r.recorded));
    if (!ok) { bad++; continue; }
    if (round !== undefined && r.round_id !== Number(round)) continue;
    const report = { round_id: r.round_id, loadgen_index: r.loadgen_index, lost: r.lost };
    if (r.recorded !== undefined) report.recorded = r.recorded;
    byKey.set(`${r.round_id}:${r.loadgen_index}`, report);
  }
  return { reports: [...byKey.values()], bad };
}

module.exports = { lostReports, MARK };
