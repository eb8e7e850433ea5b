// study-method.js — how far the results page's run can be trusted, from its own rounds:
// csv/rounds.csv (one row per round of the study: plan, point, trusted or its flags, the
// figures), the round-position effect per plan (does a point's first round differ from its
// later ones?) and the eight principles of reproducible cloud performance evaluation
// (Papadopoulos et al., IEEE TSE 2019) as a checklist filled from the data.
'use strict';
const { summarize } = require('../../../lib/inference.js');
const { MIN_ROUNDS, VERDICTS } = require('../../../lib/verdict.js');
const { offeredLoad } = require('./analysis.js');

const r2 = (x, d = 2) => (x === null || x === undefined || !Number.isFinite(Number(x)) ? '' : Number(Number(x).toFixed(d)));
const ms = (us) => (us === null || us === undefined ? null : us / 1000);
const pct = (x) => `${x >= 0 ? '+' : '−'}${(100 * Math.abs(x)).toFixed(1)} %`;
const median = (xs) => (xs.length ? [...xs].sort((a, b) => a - b)[Math.floor((xs.length - 1) / 2)] : null);

const ROUNDS_HEAD = ['plan', 'round', 'created_at', 'app', 'variant', 'instances', 'loadgens', 'model', 'parallel', 'rate', 'load',
  'trusted', 'flags', 'throughput_rps', 'p50_ms', 'p99_ms', 'mean_ms', 'cpu_used_pct', 'cpu_peak_pct', 'mem_mib', 'sut_cpus'];

/** Every round of the study's plans in run order: [plan, round] pairs, the one list the page counts. */
function studyRounds(analyses) {
  return Object.entries(analyses).flatMap(([plan, x]) => x.analysis.rounds.map((r) => ({ plan, r })))
    .sort((x, y) => new Date(x.r.created_at) - new Date(y.r.created_at) || x.r.round_id - y.r.round_id);
}

/** csv/rounds.csv: [head, ...rows], one row per round. */
function roundsCsvRows(analyses) {
  const rows = studyRounds(analyses).map(({ plan, r }) => [plan, r.round_id, new Date(r.created_at).toISOString(), r.app, r.variant,
    r.app_instances, r.loadgens, r.model, r.parallel, r.rate, offeredLoad(r), r.trusted,
    r.flags.filter((f) => f.severity !== 'info').map((f) => `${f.severity}: ${f.text}`).join('; '),
    r2(r.throughput_rps), r2(ms(r.p50_us), 3), r2(ms(r.p99_us), 3), r2(ms(r.mean_us), 3),
    r2(r.cpu_used_cores === null ? null : 100 * r.cpu_used_cores, 1), r2(r.cpu_peak_cores == null ? null : 100 * r.cpu_peak_cores, 1),
    r2(r.mem_avg_bytes === null ? null : r.mem_avg_bytes / 2 ** 20, 1), r.environment?.sut_cpus ?? '']);
  return [ROUNDS_HEAD, ...rows];
}

/**
 * The round-position effect of a plan: per point (group) with at least 2 trusted rounds, its
 * first round's throughput against the mean of its later ones (run order), first / later − 1;
 * over the points, the mean with its 95 % CI. null when no point has 2 rounds.
 */
function positionEffect(a) {
  const byId = new Map(a.rounds.map((r) => [Number(r.round_id), r]));
  const diffs = [];
  for (const g of a.groups.filter((x) => x.kind === 'rep' && x.round_ids.length >= 2)) {
    const rs = g.round_ids.map((id) => byId.get(Number(id))).filter((r) => r && Number.isFinite(r.throughput_rps))
      .sort((x, y) => new Date(x.created_at) - new Date(y.created_at) || x.round_id - y.round_id);
    if (rs.length < 2) continue;
    const later = rs.slice(1).reduce((t, r) => t + r.throughput_rps, 0) / (rs.length - 1);
    if (later > 0) diffs.push(rs[0].throughput_rps / later - 1);
  }
  return diffs.length ? { points: diffs.length, ...summarize(diffs) } : null;
}

function positionSection(analyses) {
  const rows = [];
  for (const [plan, x] of Object.entries(analyses)) {
    const e = positionEffect(x.analysis);
    if (!e) continue;
    const ci = e.n >= 2 ? `${pct(e.ciLow)} to ${pct(e.ciHigh)}` : 'none (one point)';
    const reading = e.n < 2 ? 'one point: no interval' : e.ciLow > 0 ? 'first rounds faster: run order matters'
      : e.ciHigh < 0 ? 'first rounds slower: run order matters' : 'no effect shown (the CI holds 0)';
    rows.push([plan, e.points, pct(e.mean), ci, reading]);
  }
  if (!rows.length) return ['## Round position', '', 'No point has two trusted rounds: the effect of a round\'s position cannot be read.', ''];
  return ['## Round position', '',
    'Per plan, each point\'s first trusted round (in run order) against the mean of its later ones: throughput first / later − 1, '
      + 'the mean over the points with its 95 % CI. A position effect means rounds are not exchangeable repetitions.', '',
    mdTable(['plan', 'points', 'first vs later', '95 % CI', 'reading'], rows), ''];
}

/** The eight principles (Papadopoulos et al., TSE 2019), each filled from the run. */
function principlesSection(analyses, facts, claims) {
  const groups = Object.values(analyses).flatMap((x) => x.analysis.groups.filter((g) => g.kind === 'rep'));
  const ns = groups.map((g) => g.round_ids.length);
  const rounds = studyRounds(analyses).map((x) => x.r);
  const withEnv = rounds.filter((r) => r.environment?.host_cpus && r.git_rev).length;
  const withSut = rounds.filter((r) => r.environment?.sut_cpus).length;
  const loads = groups.map((g) => g.load);
  const decided = claims.filter((c) => c.verdict === VERDICTS[0] || c.verdict === VERDICTS[1]).length;
  const seconds = rounds.reduce((t, r) => t + Number(r.duration_ms || 0) / 1000, 0);
  const rows = [
    ['P1 repeated experiments', `trusted rounds per point: min ${Math.min(...ns)}, median ${median(ns)}, max ${Math.max(...ns)} over ${ns.length} points; `
      + `${ns.filter((n) => n >= MIN_ROUNDS).length} reach ${MIN_ROUNDS}`, ns.length && Math.min(...ns) >= MIN_ROUNDS ? 'met' : 'not met'],
    ['P2 workload and configuration coverage', `${Object.keys(analyses).length} plans, ${ns.length} points, apps ${[...new Set(groups.map((g) => g.app))].join(', ')}, `
      + `instances ${[...new Set(groups.map((g) => g.app_instances))].sort((a, b) => a - b).join(', ')}, load ${Math.min(...loads)}–${Math.max(...loads)}`, 'reported'],
    ['P3 experimental setup description', `machine, versions and commits above; ${withEnv} of ${rounds.length} rounds record their environment and commit, `
      + `${withSut} the CPUs of the system under test`, withEnv === rounds.length ? 'met' : 'partly'],
    ['P4 open access artifact', 'the plans (experiments/*.yml), the code at the commits above, every round in csv/rounds.csv, every figure\'s groups in csv/', 'met'],
    ['P5 probabilistic result description', `every mean with its 95 % CI and n; per-round p50, p99 and mean latency in csv/rounds.csv; `
      + `${ns.filter((n) => n < 2).length} points with fewer than 2 rounds have no CI`, ns.some((n) => n < 2) ? 'partly' : 'met'],
    ['P6 statistical tests', `lib/verdict.js: equivalence by TOST (90 % Fieller CI), directional claims on the 95 % CI bound; ${decided} of ${claims.length} claims decided`, 'met'],
    ['P7 measurement units', 'req/s, ms, % of one core, MiB: every column, axis and figure names its unit', 'met'],
    ['P8 cost', `${rounds.length} rounds, ${Math.round(seconds / 60)} min of rounds, ${Math.round(facts.wallS / 60)} min wall time on ${facts.env.host_cpus ?? '?'} cores`, 'reported'],
  ];
  return ['## Method checklist', '',
    'The eight principles of reproducible performance evaluation in the cloud (Papadopoulos et al., IEEE TSE 2019), filled from this run.', '',
    mdTable(['principle', 'here', ''], rows), ''];
}

/**
 * Which plans can decide a claim: a plan that runs fewer than MIN_ROUNDS rounds a point is
 * descriptive only (its figures describe; a claim it feeds stays inconclusive), so the page
 * says which points a run spent its rounds on.
 */
function plansSection(analyses) {
  const rows = Object.entries(analyses).map(([name, { plan }]) => [name, (plan.regenerates || []).join(', '), plan.repetitions,
    plan.repetitions >= MIN_ROUNDS ? 'decides: its points can reach the rounds a verdict needs'
      : `descriptive only: fewer than ${MIN_ROUNDS} rounds a point, so it decides no claim`, plan.stopping || '–']);
  return ['## Deciding and descriptive plans', '',
    `A point needs ${MIN_ROUNDS} trusted rounds before it decides anything (MIN_ROUNDS). The run spends its rounds on the plans `
      + 'that decide claims; the others run fewer, and their figures describe only.', '',
    mdTable(['plan', 'regenerates', 'rounds a point', 'role', 'stopping rule (the plan\'s `stopping`)'], rows), ''];
}

const cell = (x) => String(x ?? '').replace(/\|/g, '\\|').replace(/\n/g, ' ');
function mdTable(head, rows) {
  return [`| ${head.map(cell).join(' | ')} |`, `|${head.map(() => '---').join('|')}|`, ...rows.map((r) => `| ${r.map(cell).join(' | ')} |`)].join('\n');
}

module.exports = { studyRounds, roundsCsvRows, positionEffect, positionSection, principlesSection, plansSection, mdTable, ROUNDS_HEAD };
