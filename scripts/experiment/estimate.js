// estimate.js — how long a run of rounds takes, before it starts: every round's own length
// (warm-up and duration) plus what a round costs beyond it, the reruns and restarts its
// changes bring, in the order the rounds run. Adaptive plans (scale until the SLO, capacity
// search) count the rounds of their dry run: every step passing, an upper bound.
//
// Calibrated on run-experiment's "round N done in S s" of the study's rounds of 2026-11-29
// (local platform with cells, the router's log read after the window): cpu-100 89 s a round
// (1 instance at 1.0 core, 60,000 requests of prewarm, a restart per round), horizontal-efficiency
// 68 s at k = 1 and 81 s at k = 2 (0.1 core an instance, 20,000 requests of prewarm each, a
// restart per round), node-driver 68 s (0.2 core, a setting and a restart per round). The test
// holds the model to them (estimate.test.js).
'use strict';

// Between two rounds: the runner's look-ups, the platform's check, seeding.
const SETUP_S = 3;
// A restart (a settings or memory change, or restart: round) and a start of more instances.
const RESTART_S = 3;
const SCALE_S = 2;
// A prewarm runs the loadgen CLI once per instance, one after the other, without the quota
// locally: its start, then the requests at about this rate.
const PREWARM_START_S = 1;
const PREWARM_RPS = 4500;
// The gate ends the warm-up once a whole window is steady: the window, the loadgens' start lead
// and the seconds a steady load still takes to show it (13.6-19.9 s at a 10 s window).
const GATE_EXTRA_S = 7;
const GATE_WINDOW_S = 20; // run-round's default --steady-window
// After the window: the summary, and the router's lines and the server timings read and stored,
// about this many requests a second (cpu-100: 24 s after ~160,000 requests; k = 1: 11 s after ~35,000).
const AFTER_S = 7.4;
const AFTER_RPS = 9800;
// The rate a round serves, for the requests it leaves to store: an instance's quota at this
// many requests a second per core (Node.js 7,000-8,900 at 0.1-0.2 core), at most what one harness
// CPU carries (cpu-100 at 1.0 core: 3,000-4,400 req/s).
const RPS_PER_CORE = 7500;
const HARNESS_RPS = 3500;

/** The configuration of an app a round needs: what, when it changes, is a change (round_changes). */
function configKey(spec) {
  return JSON.stringify([spec.instances, Object.entries(spec.settings ?? {}).sort(), spec.memoryMb ?? null, spec.cpu ?? null, spec.loadbalancing ?? null]);
}

/** Requests a second the round is expected to serve (an open model's rate is per loadgen). */
function expectedRps(spec) {
  const byQuota = typeof spec.cpu === 'number' ? spec.instances * spec.cpu * RPS_PER_CORE : HARNESS_RPS;
  const offered = spec.rate ? spec.rate * (spec.loadgens ?? 1) : byQuota;
  return Math.min(offered, byQuota, HARNESS_RPS);
}

/** Seconds of one round, from its prewarm to its summary (a restart or scale before it aside). */
function roundSeconds(spec) {
  const warm = spec.warmupMs === null || spec.warmupMs === undefined
    ? (spec.steady?.windowMs ?? GATE_WINDOW_S * 1000) / 1000 + GATE_EXTRA_S
    : 0; // a fixed warm-up is inside the duration (run-round --warmup < --duration)
  const run = spec.durationMs ? spec.durationMs / 1000 : 30; // by requests: unknown, a guess
  const prewarm = spec.prewarm > 0 ? spec.instances * (PREWARM_START_S + spec.prewarm / PREWARM_RPS) : 0;
  const after = AFTER_S + (expectedRps(spec) * (warm + run)) / AFTER_RPS;
  return SETUP_S + prewarm + warm + run + after;
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
      if (k1 > k0) s += SCALE_S;
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

module.exports = { estimateRounds, roundSeconds, configKey, duration };
