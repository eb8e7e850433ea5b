// study-page.js — the results page (`scripts/report.sh --study --out DIR`): the study
// (Zeng 2017) regenerated from the rounds of `scripts/run-experiment.sh --study`, in
// Markdown that renders on a repository host. DIR/README.md: the run (commit, machine,
// versions, wall time, the harness's share of the CPU), the claims table, then per figure
// and table of the study our chart (SVG), the study's values beside ours, the rounds behind
// it with their intervals and validity flags, and what this run says. DIR/*.svg, DIR/csv/.
// Generated, never edited by hand: every sentence comes from the analyses.
'use strict';
const fs = require('node:fs');
const path = require('node:path');
const { analyse } = require('./analysis.js');
const { CHART_CONFIG, MIN_ROUNDS_DRAWN } = require('./chart-kit.js');
const { loadReportData } = require('./data.js');
const { chartSvg } = require('./render.js');
const { RULES, VERDICTS } = require('../../../lib/verdict.js');
const { ROUNDS_NEEDED_CAP, roundsNeededText } = require('../../../lib/rounds-needed.js');
const { claimRows, CLAIM_RULES } = require('./study-claims.js');
const { FIGURES, withCi, n0, pct } = require('./study-figures-page.js');
const { mdTable, plansSection, positionSection, principlesSection, roundsCsvRows, studyRounds } = require('./study-method.js');

/** The analysis of every study plan, by plan name: { name: {plan, data, analysis} }. */
async function studyAnalyses(client, plans) {
  const out = {};
  for (const plan of plans) {
    const data = await loadReportData(client, { experiment: plan.name, plan });
    out[plan.name] = { plan, data, analysis: analyse(data, { limits: plan.validity, afterChange: plan.afterChange, slo: plan.slo }) };
  }
  return out;
}

/** The CPU an instance had in a plan's rounds, as the page names it. */
function cpuMode(plan) {
  if (plan.cpu === 'none') return 'no quota: CPU as a Diego cell gives it when its neighbours idle (shares), the JVM sees the host\'s cores';
  if (plan.cpu) return `a hard quota of ${plan.cpu} core(s) per instance`;
  return 'the default quota, memory GB × 1 core per instance (CF\'s shares follow memory)';
}

const slug = (id) => id.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/-$/, '');
const csv = (rows) => rows.map((r) => r.map((v) => (/[",\n]/.test(String(v ?? '')) ? `"${String(v).replace(/"/g, '""')}"` : String(v ?? ''))).join(',')).join('\n') + '\n';

/** The groups behind a figure: one row per group of repeated rounds. */
function groupRows(a) {
  return a.groups.filter((g) => g.kind === 'rep').map((g) => {
    const flagged = a.rounds.filter((r) => g.round_ids.includes(r.round_id) || g.excluded_ids.includes(r.round_id))
      .flatMap((r) => r.flags.map((f) => `round ${r.round_id}: ${f.text}`));
    const samples = a.rounds.filter((r) => g.round_ids.includes(r.round_id)).reduce((t, r) => t + Number(r.samples || 0), 0);
    return [g.series, g.app_instances, g.load, g.stats.throughput_rps.n, g.round_ids.join(' '), g.excluded_ids.join(' '), samples,
      withCi(g.stats.throughput_rps), g.stats.mean_ms.n ? withCi(g.stats.mean_ms, 'ms', (x) => x.toFixed(2)) : '',
      g.stats.cpu_used_pct.n ? withCi(g.stats.cpu_used_pct, '%') : '', flagged.join('; ')];
  });
}
const GROUP_HEAD = ['app / variant', 'instances', 'in flight', 'n', 'rounds', 'left out', 'samples', 'throughput', 'mean latency', 'CPU (% of a core)', 'flags'];

/** Facts of the run: commits, machine, versions, wall time, the harness's share. */
function runFacts(analyses) {
  const rounds = studyRounds(analyses).map((x) => x.r);
  const revs = [...new Set(rounds.map((r) => r.git_rev).filter(Boolean))];
  const env = rounds.find((r) => r.environment?.host_cpus)?.environment ?? {};
  const times = rounds.map((r) => [new Date(r.created_at).getTime(), new Date(r.finished_at ?? r.created_at).getTime()]);
  const runs = sittings(times);
  const wallS = runs.reduce((sum, [a, b]) => sum + (b - a) / 1000, 0);
  const versions = {};
  for (const r of rounds) {
    for (const [k, v] of Object.entries(r.versions ?? {})) {
      versions[k] ??= v && typeof v === 'object' ? Object.entries(v).map(([lib, ver]) => `${lib} ${ver}`).join(', ') : v;
    }
  }
  const shares = rounds.map((r) => r.environment?.host_cpu).filter((h) => h && h.sut_cores + h.harness_cores > 0)
    .map((h) => h.harness_cores / (h.sut_cores + h.harness_cores)).sort((x, y) => x - y);
  return {
    rounds: rounds.length, trusted: rounds.filter((r) => r.trusted).length, revs, env, wallS, versions,
    harnessMedian: shares.length ? shares[Math.floor(shares.length / 2)] : null, harnessN: shares.length,
    first: runs.length ? new Date(runs[0][0]).toISOString() : null, runs,
  };
}

// Rounds of one run follow each other within minutes (the longest gate and restart included):
// a longer gap between one round's end and the next one's start is time between two sittings.
const SITTING_GAP_MS = 15 * 60_000;

/** The sittings of a run, [start, end] in ms, from its rounds' [start, end]: gaps over SITTING_GAP_MS split it. */
function sittings(times) {
  const out = [];
  for (const [a, b] of [...times].sort((x, y) => x[0] - y[0])) {
    const last = out[out.length - 1];
    if (last && a - last[1] <= SITTING_GAP_MS) last[1] = Math.max(last[1], b);
    else out.push([a, b]);
  }
  return out;
}

/** "1 h 36 min from the first round's start (…) to the last one's end", or one part a sitting. */
function wallText(f) {
  if (f.runs.length <= 1) return `${hm(f.wallS)} from the first round's start (${f.first}) to the last one's end`;
  const parts = f.runs.map(([a, b]) => `${hm((b - a) / 1000)} from ${new Date(a).toISOString()}`);
  return `${hm(f.wallS)} of rounds in ${f.runs.length} sittings (${parts.join('; ')}); gaps of more than ${SITTING_GAP_MS / 60_000} min between rounds are left out`;
}

const hm = (s) => `${Math.floor(s / 3600)} h ${String(Math.round((s % 3600) / 60)).padStart(2, '0')} min`;

function header(f, meta) {
  const e = f.env;
  return [
    '# The study, regenerated',
    '',
    `Zeng 2017 ("Performance Comparison between Java and Node.js in terms of Scaling in Cloud") at ${meta.scale} scale, from the rounds of `
      + '`scripts/run-experiment.sh --study`, written by `scripts/report.sh --study`. Generated, never edited by hand: to regenerate, run both.',
    '',
    mdTable(['', ''], [
      ['rounds made from commit', f.revs.join(', ') || 'not recorded'],
      ['page written from commit', meta.pageRev],
      ['machine', `${e.host_cpus ?? '?'} cores (${e.host_cpu_model ?? '?'}), ${e.host_memory_bytes ? `${(e.host_memory_bytes / 2 ** 30).toFixed(1)} GiB` : '? GiB'}, Linux ${e.host_kernel ?? '?'}`],
      ['versions', Object.entries(f.versions).map(([k, v]) => `${k} ${v}`).join('; ')],
      ['wall time', wallText(f)],
      ['rounds', `${f.rounds} (${f.trusted} trusted; the rest are listed with their flags; every one in [csv/rounds.csv](csv/rounds.csv))`],
      ['the harness\'s share', f.harnessMedian === null ? 'not recorded'
        : `median ${pct(f.harnessMedian)} of the CPU that the system under test and the harness used together (${f.harnessN} rounds: loadgens, results database, router, platform daemon, run-round and collectors against app instances and app databases; on CF none of the harness runs on the app's cell)`],
    ]),
    '',
  ];
}

const OWN = ' — *our own experiment, not the study\'s finding*';
// What each constant of the verdicts means (lib/verdict.js, study-claims.js): printed, every one.
const RULE_TEXT = {
  MIN_ROUNDS: 'a side with fewer trusted rounds decides nothing: inconclusive (the round is the unit of replication, never the request)',
  MAX_CI_HALFWIDTH: 'a side whose CI half-width is above this share of its mean decides nothing: inconclusive',
  SIDE_CONFIDENCE: 'the CI of a side\'s own mean (Student t over its rounds) that rule takes',
  EQUIVALENCE_MARGIN: '*no deciding difference*: reproduced only when the CI of B/A − 1 lies inside ± this, contradicted when it lies entirely outside, else inconclusive (TOST)',
  EQUIVALENCE_CONFIDENCE: 'the CI of that equivalence test (two one-sided tests at 5 %); the CI of a ratio of means is Fieller\'s, with the Welch–Satterthwaite df',
  BOUND_CONFIDENCE: '*at least / at most X* (A faster, an efficiency, a share): reproduced when this CI\'s bound on the claim\'s side clears X, contradicted when the opposite bound is on the wrong side, else inconclusive; never the point estimate',
  VOID_ABOVE: 'an efficiency or a share of a quota above this voids the reading (a bad baseline): inconclusive, not a pass',
  LINEAR_MIN: '*about 100 %* and *near-linear*: at least this share of the CPU available, of k·X(1)',
  PART_MAX: '*only part of the CPU*: at most this share of it',
  HOST_BOUND_SHARE: 'without CPUs of its own for the system under test, a host at least this busy has no core to spare: a reading that needs one is *not measurable here*',
  KEEPALIVE_GAIN_MIN: 'keep-alive lifts the cap: with / without at least this factor',
  NODE_MEMORY_MAX_MIB: 'Node.js needs at most this many MiB per instance (window mean)',
  JAVA_MEMORY_FACTOR_MIN: 'Java needs at least this many times Node.js\'s memory per instance',
  FASTER_MIN: '*A is faster / serves more*: the ratio A / B at least this (1 + the equivalence margin: a difference inside it is no deciding difference)',
};
const RULE_VALUES = { ...RULES, ...CLAIM_RULES };

function claimsSection(claims) {
  const rows = claims.map((c) => [`${c.finding} (${c.cite})${c.own ? OWN : ''}`, c.study, `${c.test}: ${c.compares}`, c.ours,
    `**${c.verdict}**: ${c.reason}`, c.n_min ?? '–', c.ci_halfwidth_pct === null ? '–' : `±${c.ci_halfwidth_pct} %`, roundsNeededText(c.rounds_needed)]);
  return [
    '## Claims',
    '',
    mdTable(['finding', 'study', 'test: groups compared', 'ours', 'verdict', 'n_min', 'widest 95 % CI', 'rounds a side to decide'], rows),
    '',
    `Verdicts: ${VERDICTS.map((v) => `*${v}*`).join(', ')}. *n_min*: trusted rounds on the smaller side behind the verdict;`
      + ' *widest 95 % CI*: the largest half-width behind it, in % of its mean (– : a side with fewer than 2 rounds has none).'
      + ` Rows marked${OWN} test what the study did not measure.`
      + ' *rounds a side to decide*: for an undecided claim, the trusted rounds each side of its points would need before'
      + ' the verdict is decided, if the spread between rounds and the estimate stayed as measured (`lib/rounds-needed.js`:'
      + ' rule 1 met and the estimate\'s CI off its line): a projection to plan the next run, not a verdict;'
      + ` > ${ROUNDS_NEEDED_CAP}: not within ${ROUNDS_NEEDED_CAP} (the estimate sits on or near its line); ?: a side has fewer than 2 rounds or the reading is void.`,
    '',
    'Rules: every constant the verdicts use (`lib/verdict.js`, `report/lib/report/study-claims.js`).',
    '',
    mdTable(['constant', 'rule'], Object.entries(RULE_VALUES).map(([k, v]) => [`${k} = ${v}`, RULE_TEXT[k]])),
    '',
    'A figure\'s sentence that calls a difference *significant* means Welch\'s p < 0.05 **and** non-overlapping 95 % CIs'
      + ' (`lib/inference.js` compare); neither that nor *within the noise* is a verdict.',
    '',
  ];
}

/** One sentence on why a figure has no chart (charts draw a mean only with its CI). */
function noChart(fig, a) {
  if (!a.rounds.some((r) => r.trusted)) return `No chart: plan \`${fig.plan}\` has no trusted rounds.`;
  if (!a.groups.some((g) => g.kind === 'rep' && g.round_ids.length >= MIN_ROUNDS_DRAWN)) {
    return `No chart: no point of plan \`${fig.plan}\` has ${MIN_ROUNDS_DRAWN} trusted rounds, and a mean is drawn only with its 95 % CI.`;
  }
  return `No chart: ${fig.empty ?? `these rounds hold nothing this figure draws with a 95 % CI (${MIN_ROUNDS_DRAWN} trusted rounds a point)`}.`;
}

async function figureSection(fig, x, outDir, files) {
  const lines = [`## ${fig.id}: ${fig.title}`, ''];
  if (!x || !x.analysis.groups.length) return [...lines, `No rounds of plan \`${fig.plan}\` yet: run \`scripts/run-experiment.sh --study\`.`, ''];
  const a = x.analysis;
  const spec = fig.chart(a);
  if (spec) {
    const name = `${slug(fig.id)}.svg`;
    fs.writeFileSync(path.join(outDir, name), await chartSvg({ ...spec, config: { ...CHART_CONFIG, ...spec.config } }));
    files.push(name);
    lines.push(`![${fig.id}: ${fig.title}](${name})`, '');
  } else {
    lines.push(noChart(fig, a), '');
  }
  const rows = groupRows(a);
  const csvName = `csv/${slug(fig.id)}.csv`;
  fs.writeFileSync(path.join(outDir, csvName), csv([GROUP_HEAD, ...rows]));
  files.push(csvName);
  lines.push(
    `**Study:** ${fig.study}`, '',
    `**Here:** ${fig.say(a)}`, '',
    `Plan \`experiments/${fig.plan}.yml\` at ${x.plan.scaleProfile} scale; CPU: ${cpuMode(x.plan)}. ${x.data.stale.length ? `${x.data.stale.length} stale round(s) left out.` : ''}`, '',
    '<details><summary>The rounds behind it</summary>', '', mdTable(GROUP_HEAD, rows), '', `Also as [${csvName}](${csvName}).`, '', '</details>', '');
  return lines;
}

const CLAIMS_CSV_HEAD = ['finding', 'cite', 'study', 'ours', 'verdict', 'n_min', 'ci_halfwidth_pct', 'rounds_needed', 'reason'];
// rounds_needed in the CSV: a number, ">CAP", or empty (decided, or not projectable).
const roundsNeededCsv = (n) => (n === null || Number.isNaN(n) ? '' : Number.isFinite(n) ? n : `>${ROUNDS_NEEDED_CAP}`);

/** Write DIR/README.md, the SVGs and CSVs; returns the files written (relative to DIR). */
async function writeStudyPage(outDir, analyses, meta) {
  fs.mkdirSync(path.join(outDir, 'csv'), { recursive: true });
  const files = [];
  const byName = Object.fromEntries(Object.entries(analyses).map(([k, v]) => [k, v.analysis]));
  const claims = claimRows(byName);
  fs.writeFileSync(path.join(outDir, 'csv', 'claims.csv'), csv([CLAIMS_CSV_HEAD, ...claims.map((c) => CLAIMS_CSV_HEAD.map((k) => (k === 'rounds_needed' ? roundsNeededCsv(c[k]) : c[k])))]));
  files.push('csv/claims.csv');
  fs.writeFileSync(path.join(outDir, 'csv', 'rounds.csv'), csv(roundsCsvRows(analyses)));
  files.push('csv/rounds.csv');
  const facts = runFacts(analyses);
  const lines = [...header(facts, meta), ...claimsSection(claims), ...principlesSection(analyses, facts, claims), ...plansSection(analyses), ...positionSection(analyses)];
  for (const fig of FIGURES) lines.push(...await figureSection(fig, analyses[fig.plan], outDir, files));
  fs.writeFileSync(path.join(outDir, 'README.md'), `${lines.join('\n').replace(/\n{3,}/g, '\n\n').trimEnd()}\n`);
  files.push('README.md');
  return { files, claims };
}

module.exports = { studyAnalyses, writeStudyPage, runFacts, sittings, cpuMode, n0, RULE_TEXT, RULE_VALUES, CLAIMS_CSV_HEAD };
