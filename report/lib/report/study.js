// study.js — the study's published values the report puts beside ours (Zeng 2017, cited
// by section, figure or table), and its notion of the CPU an instance has. One place for
// every number taken from the study's text; docs/README.md points here.
'use strict';

/** Runtime of an app by its name: 'java' | 'node' | null (the two apps of this project). */
function runtimeOf(app) {
  if (/java/.test(app ?? '')) return 'java';
  if (/node/.test(app ?? '')) return 'node';
  return null;
}

const STUDY = Object.freeze({
  // study §7.3.2 Table 7.1: max CPU usage % (peak, of one core, all instances), max
  // available CPU % (4 cores per Java instance, 1 per Node.js instance), utilisation %.
  table71: {
    cite: 'study §7.3.2 Table 7.1',
    rows: [
      { runtime: 'java', instances: 1, maxCpuPct: 229, availablePct: 400, utilisationPct: 57 },
      { runtime: 'java', instances: 2, maxCpuPct: 361, availablePct: 800, utilisationPct: 45 },
      { runtime: 'java', instances: 3, maxCpuPct: 429, availablePct: 1200, utilisationPct: 35 },
      { runtime: 'node', instances: 1, maxCpuPct: 103, availablePct: 100, utilisationPct: 103 },
      { runtime: 'node', instances: 2, maxCpuPct: 198, availablePct: 200, utilisationPct: 99 },
      { runtime: 'node', instances: 3, maxCpuPct: 291, availablePct: 300, utilisationPct: 97 },
      { runtime: 'node', instances: 4, maxCpuPct: 384, availablePct: 400, utilisationPct: 96 },
      { runtime: 'node', instances: 5, maxCpuPct: 471, availablePct: 500, utilisationPct: 94 },
    ],
  },
  // study §7.2: a Diego cell of the landscape had 4 CPUs, and a Java instance could get all
  // of them; Node.js, single-threaded, uses one. Table 7.1's "available" follows from this.
  cellCores: { value: 4, cite: 'study §7.2' },
  // study §5.2.3: each TLS-terminating HAProxy handled at most ~100 req/s until its CPU hit
  // the ceiling; 4 of them capped the landscape at ~400 req/s; Gorouter handled 5,000/s.
  proxyCap: { perProxyRps: 100, proxies: 4, landscapeRps: 400, gorouterRps: 5000, cite: 'study §5.2.3' },
  // study §7.3: Java stopped at 3 instances (the router at its limit, 70 % load), Node.js at
  // 5 (its CPU reached Java's maximum); loadgens 4 at a time up to 96.
  scaleStops: {
    cite: 'study §7.3',
    rows: [
      { runtime: 'java', instances: 3, reason: 'router at its limit (70 % load)' },
      { runtime: 'node', instances: 5, reason: "CPU reached Java's maximum CPU" },
    ],
  },
  // study §7.2 (Fig. 7.1): the criterion of optimal performance, mean end-to-end < 10 ms.
  fig71Slo: { metric: 'mean', thresholdMs: 10, cite: 'study §7.2' },
});

/** The study's Table 7.1 row for an app at k instances, or null. */
function studyTable71(app, k) {
  return STUDY.table71.rows.find((r) => r.runtime === runtimeOf(app) && r.instances === k) ?? null;
}

/** The study's stop of §7.3 for an app, or null. */
function studyScaleStop(app) {
  return STUDY.scaleStops.rows.find((r) => r.runtime === runtimeOf(app)) ?? null;
}

/**
 * The study's available CPU (cores) of k instances of an app: the cell's cores for Java,
 * one core for Node.js (study §7.3.2 Table 7.1), never more than the system under test had.
 * cellCores: the cores a Java instance's cell has — locally the system under test's
 * (environment.sut_cpus, else the host's); null (CF: not observable) = the study's 4, and
 * `assumed` says so. capCores: the CPUs of the system under test (null: not known, no cap).
 * `wanted` is the study's figure before the cap; `capped` says the cap bit.
 */
function studyAvailableCores(app, k, cellCores, capCores = null) {
  const rt = runtimeOf(app);
  let base;
  if (rt === 'node') base = { cores: k, basis: '1 core per Node.js instance', assumed: false };
  else if (rt !== 'java') return null;
  else if (cellCores > 0) base = { cores: k * cellCores, basis: `${cellCores} cores per Java instance`, assumed: false };
  else base = { cores: k * STUDY.cellCores.value, basis: `assumed ${STUDY.cellCores.value} cores per cell (${STUDY.cellCores.cite})`, assumed: true };
  if (!(capCores > 0) || base.cores <= capCores) return { ...base, wanted: base.cores, capped: false };
  return { cores: capCores, wanted: base.cores, capped: true, assumed: base.assumed,
    basis: `${base.basis}, capped at the ${capCores} CPU(s) of the system under test` };
}

module.exports = { runtimeOf, studyTable71, studyScaleStop, studyAvailableCores, STUDY };
