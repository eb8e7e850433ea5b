// estimate.js — how long a run of rounds takes, before it starts: every round's own length
// (warm-up and duration) plus what a round costs beyond it, the reruns and restarts its
// changes bring, in the order the rounds run. Adaptive plans (scale until the SLO, capacity
// search) count the rounds of their dry run: every step passing, an upper bound.
'use strict';

// Seconds a round takes beyond its warm-up and duration: platform checks, seeding, the loadgens'
// start lead, the collectors' and the timings' flush, the summary, and the runner's own look-ups
// between rounds: 14 s a round over the 15 rounds of horizontal-efficiency (10 s window, 10 s
// measured: 44 s each) with cells and the shield.
const ROUND_OVERHEAD_S = 14;
// A prewarm runs the loadgen CLI once per instance, one after the other: its start, then the
// requests at about this rate (an instance at a 0.1-0.2 core quota).
const PREWARM_START_S = 1;
const PREWARM_RPS = 1500;
// The gate ends the warm-up once a whole window is steady: at least the window, plus the
// seconds a steady load still takes to show it (the README's round: 41 s at a 20 s window).
const GATE_EXTRA_S = 10;
const GATE_WINDOW_S = 20; // run-round's default --steady-window
// A settings or memory change restarts the app; a change of instance count starts or stops some.
const RESTART_S = 12;
const SCALE_S = 6;

/** The configuration of an app a round needs: what, when it changes, is a change (round_changes). */
function configKey(spec) {
  return JSON.stringify([spec.instances, Object.entries(spec.settings ?? {}).sort(), spec.memoryMb ?? null, spec.cpu ?? null, spec.loadbalancing ?? null]);
}

/** Seconds of one round, its warm-up included. */
function roundSeconds(spec) {
  const warm = spec.warmupMs === null || spec.warmupMs === undefined
    ? (spec.steady?.windowMs ?? GATE_WINDOW_S * 1000) / 1000 + GATE_EXTRA_S
    : 0; // a fixed warm-up is inside the duration (run-round --warmup < --duration)
  const run = spec.durationMs ? spec.durationMs / 1000 : 30; // by requests: unknown, a guess
  const prewarm = spec.prewarm > 0 ? spec.instances * (PREWARM_START_S + spec.prewarm / PREWARM_RPS) : 0;
  return warm + run + prewarm + ROUND_OVERHEAD_S;
}

/**
 * The rounds (order.js round specs, in run order) → { rounds, reruns, seconds }, given the
 * state the apps are in (appState: app → configKey, updated here so a run of several plans
 * carries it from one to the next). A changed configuration costs a restart or a scale, and
 * with afterChange rerun a second round.
 */
function estimateRounds(specs, appState = new Map()) {
  let seconds = 0;
  let reruns = 0;
  for (const spec of specs) {
    const key = configKey(spec);
    const before = appState.get(spec.app);
    let s = roundSeconds(spec);
    let restarted = false;
    if (before !== undefined && before !== key) {
      const [k0, set0, mem0] = JSON.parse(before);
      const [k1, set1, mem1] = JSON.parse(key);
      if (JSON.stringify(set0) !== JSON.stringify(set1) || mem0 !== mem1) { s += RESTART_S; restarted = true; }
      else if (k0 !== k1) s += SCALE_S;
      if (spec.afterChange !== 'keep') { reruns += 1; s += roundSeconds(spec); }
    }
    if (spec.restart === 'round' && !restarted) s += RESTART_S;
    appState.set(spec.app, key);
    seconds += s;
  }
  return { rounds: specs.length + reruns, reruns, seconds };
}

/** "1 h 05 min" | "12 min" | "45 s". */
function duration(seconds) {
  const s = Math.round(seconds);
  if (s < 60) return `${s} s`;
  const m = Math.round(s / 60);
  return m < 60 ? `${m} min` : `${Math.floor(m / 60)} h ${String(m % 60).padStart(2, '0')} min`;
}

module.exports = { estimateRounds, roundSeconds, configKey, duration, ROUND_OVERHEAD_S };
