// cpu-list.js — the kernel's CPU list format (cpuset.cpus, /sys/devices/system/cpu/online):
// "0-2,5" ⇄ [0, 1, 2, 5]. The local platform writes its cells in it, run-round reads them.
'use strict';

/** "0-2,5" → [0, 1, 2, 5] (sorted, unique); throws on anything else. */
function parseCpuList(text) {
  const out = new Set();
  for (const part of String(text).split(',').map((s) => s.trim()).filter(Boolean)) {
    const m = /^(\d+)(?:-(\d+))?$/.exec(part);
    if (!m || (m[2] !== undefined && Number(m[2]) < Number(m[1]))) throw new Error(`not a CPU list like 1 or 2-3 or 0,2: "${text}"`);
    for (let c = Number(m[1]); c <= Number(m[2] ?? m[1]); c++) out.add(c);
  }
  return [...out].sort((a, b) => a - b);
}

/** [0, 1, 2, 5] → "0-2,5". */
function formatCpuList(cpus) {
  const runs = [];
  for (const c of [...cpus].sort((a, b) => a - b)) {
    const last = runs[runs.length - 1];
    if (last && c === last[1] + 1) last[1] = c; else runs.push([c, c]);
  }
  return runs.map(([a, b]) => (a === b ? `${a}` : `${a}-${b}`)).join(',');
}

module.exports = { parseCpuList, formatCpuList };
