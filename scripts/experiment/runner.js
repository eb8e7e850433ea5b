// runner.js — run an experiment plan unattended: every round through runRound (execRound),
// finished rounds (same label, status done, recorded under the parameters the plan gives
// now: spec-match.js) skipped so an interrupted run resumes,
// progress on stderr, --dry-run lists the rounds instead of running them.
'use strict';
const { configurations, gridRounds } = require('../../plans/order.js');
const { capacitySearch, scaleUntilSlo } = require('./procedures.js');
const { changeOf, doneRoundFor, maxCpuOfApp, roundByLabel, roundMetrics } = require('./results.js');
const { EXIT_USAGE, roundCommandLine, roundValues } = require('./round-runner.js');

class UsageError extends Error {}

// What a dry run assumes for adaptive plans: every step meets the SLO (an upper bound
// on the rounds of the first instance count / the first probe).
const DRY_METRICS = Object.freeze({ throughputRps: 0, errorRate: 0, meanMs: 0, p50Ms: 0, p95Ms: 0, p99Ms: 0, cpuCores: null, lateFraction: 0 });

function fmt(m) {
  if (!m) return 'no figures';
  const f = (v, d = 1) => (v === null || v === undefined ? '-' : Number(v).toFixed(d));
  return `${f(m.throughputRps)} req/s, p95 ${f(m.p95Ms)} ms, p99 ${f(m.p99Ms)} ms, errors ${f(100 * m.errorRate, 2)} %`;
}

/**
 * opts: client (pg client of the results db; null only for a dry run), dryRun,
 * execRound(spec, values) → Promise<{ code, roundId }> (values: round-runner.js roundValues),
 * checkRound(values) (optional: throws when run-round.sh would refuse the round, dry run too),
 * applySettings(app, settings, memoryMb, { restart }) → Promise, log (progress lines), print
 * (dry-run lines).
 */
async function runExperiment(plan, opts) {
  const { client, dryRun, log, print } = opts;
  const tally = { ran: 0, skipped: 0, failed: 0, planned: 0, stale: 0, reruns: 0 };
  let count = 0;
  let ranMs = 0;
  const total = plan.kind === 'grid' ? gridRounds(plan).length : null;
  // Remaining time of a grid from the mean length of the rounds run so far.
  const eta = () => {
    if (!total || tally.ran + tally.failed === 0) return '';
    const min = Math.ceil(((total - count + 1) * ranMs) / (tally.ran + tally.failed) / 60_000);
    return ` (about ${min} min left)`;
  };

  async function runOne(spec) {
    count += 1;
    const tag = `[${count}${total ? `/${total}` : ''}] ${spec.label}`;
    const values = roundValues(spec);
    opts.checkRound?.(values);
    if (client) {
      // Only a done round recorded under the parameters the plan gives now is reused.
      const { round: prev, stale } = await doneRoundFor(client, spec);
      if (stale.length) {
        tally.stale += stale.length;
        log(`${tag}: done before under other parameters as round ${stale.map((s) => s.id).join(', ')} (${stale[0].mismatches.join('; ')}), not reused`);
      }
      if (prev) {
        tally.skipped += 1;
        const m = await roundMetrics(client, prev.id);
        if (dryRun) print(`skip  ${spec.label}  (round ${prev.id} done)`);
        else log(`${tag}: done before as round ${prev.id}, skipped (${fmt(m)})`);
        return m;
      }
    }
    if (dryRun) {
      tally.planned += 1;
      opts.onPlanned?.(spec);
      print(`run   ${roundCommandLine(values)}`);
      return { ...DRY_METRICS };
    }
    log(`${tag}: running${eta()}`);
    const m = await execute(spec, values, tag);
    // The first round after a change is left out and the step runs again (once): it now
    // follows a round of the same configuration.
    const change = m && spec.afterChange !== 'keep' ? await changeOf(client, m.roundId) : null;
    if (!change) return m;
    tally.reruns += 1;
    log(`${tag}: round ${m.roundId} is the first after a change (${change.join('; ')}): left out, running the step again`);
    return execute(spec, values, tag);
  }

  async function execute(spec, values, tag) {
    const t0 = Date.now();
    await opts.applySettings(spec.app, spec.settings, spec.memoryMb, { restart: spec.restart === 'round' });
    const res = await opts.execRound(spec, values);
    if (res.code === EXIT_USAGE) throw new UsageError(`the round ${spec.label} was rejected (exit 1); fix the plan or the platform`);
    const row = res.roundId ? { id: res.roundId } : await roundByLabel(client, spec.label);
    const m = row ? await roundMetrics(client, row.id) : null;
    ranMs += Date.now() - t0;
    const secs = ((Date.now() - t0) / 1000).toFixed(0);
    if (res.code !== 0 || !m || m.status !== 'done') {
      tally.failed += 1;
      log(`${tag}: FAILED (run-round exit ${res.code}${row ? `, round ${row.id} ${m?.status ?? '?'}` : ', no round recorded'}) after ${secs} s`);
      return null;
    }
    tally.ran += 1;
    log(`${tag}: round ${m.roundId} done in ${secs} s: ${fmt(m)}`);
    return m;
  }

  const outcomes = [];
  if (plan.kind === 'grid') {
    for (const spec of gridRounds(plan)) await runOne(spec);
  } else if (plan.kind === 'scale-until-slo') {
    const cfgs = configurations(plan);
    const refApp = plan.scale.cpuReference?.app ?? null;
    // The reference app runs first: the others stop at the CPU it reached (study §7.3).
    const phases = refApp ? [cfgs.filter((c) => c.app === refApp), cfgs.filter((c) => c.app !== refApp)] : [cfgs];
    for (const phase of phases) {
      let cpuReferenceCores = plan.scale.cpuReference?.cores ?? null;
      if (refApp && phase[0]?.app !== refApp && client) cpuReferenceCores = await maxCpuOfApp(client, plan, refApp);
      const gens = phase.map((cfg) => ({ name: `${cfg.app}/${cfg.variant}`, cfg, gen: scaleUntilSlo(plan, cfg, { cpuReferenceCores }) }));
      outcomes.push(...await interleave(gens, runOne));
    }
  } else {
    const gens = [];
    for (const k of plan.capacity.instances) {
      for (const cfg of configurations(plan)) gens.push({ name: `${cfg.app}/${cfg.variant} x${k}`, cfg, gen: capacitySearch(plan, cfg, k) });
    }
    outcomes.push(...await interleave(gens, runOne));
  }
  for (const o of outcomes) log(`${o.name}: ${describe(o.result, dryRun)}`);
  if (!dryRun && client) for (const o of outcomes) await recordOutcome(client, plan, o);
  return { tally, outcomes };
}

/**
 * The rounds a plan runs, in order, as its dry run lists them without a database (adaptive
 * plans: every step passing, an upper bound).
 */
async function plannedRounds(plan) {
  const specs = [];
  const quiet = () => {};
  await runExperiment(plan, {
    client: null, dryRun: true, log: quiet, print: quiet, applySettings: quiet, execRound: null, onPlanned: (s) => specs.push(s),
  });
  return specs;
}

/** The procedure's conclusion into experiment_outcomes (results-schema.sql), for the report. */
async function recordOutcome(client, plan, o) {
  const r = o.result;
  const capacity = 'capacityRps' in r;
  await client.query(
    `INSERT INTO experiment_outcomes (experiment, platform, kind, app, variant, instances, loadgens, stop, capacity_rps, confirmed, reason)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)`,
    [plan.name, plan.platform, plan.kind, o.cfg.app, o.cfg.variant, r.instances, capacity ? null : r.loadgens,
      capacity ? null : r.stop, capacity ? r.capacityRps : null, capacity ? r.confirmed : null, r.reason]);
}

function describe(r, dryRun) {
  const pre = dryRun ? '(dry run, assuming every step passes) ' : '';
  if ('capacityRps' in r) return `${pre}capacity ${r.capacityRps ?? '-'} req/s at ${r.instances} instance(s), ${r.reason}`;
  return `${pre}stopped at ${r.instances} instance(s), ${r.loadgens} loadgens: ${r.reason}`;
}

/**
 * Drive several procedure generators in lock-step so their rounds interleave: repetition
 * i of every procedure's current step runs before repetition i + 1 of any.
 */
async function interleave(gens, runOne) {
  const active = gens.map((g) => ({ ...g, cur: g.gen.next() }));
  const done = [];
  while (active.length) {
    const len = Math.max(...active.map((a) => a.cur.value.length));
    const results = active.map(() => []);
    for (let i = 0; i < len; i++) {
      for (let j = 0; j < active.length; j++) {
        const spec = active[j].cur.value[i];
        if (spec) results[j][i] = await runOne(spec);
      }
    }
    for (let j = active.length - 1; j >= 0; j--) {
      const a = active[j];
      a.cur = a.gen.next(results[j]);
      if (a.cur.done) { done.unshift({ name: a.name, cfg: a.cfg, result: a.cur.value }); active.splice(j, 1); }
    }
  }
  return done;
}

module.exports = { UsageError, runExperiment, plannedRounds, interleave };
