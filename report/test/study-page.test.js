// study-page.test.js — `scripts/report.sh --study` on a stored sample of real rounds of the
// study (helpers/study-fixture.js: every round of a real run, one request in 200): the page
// names its commit, machine and wall time, has the claims table with a verdict per claim and
// every constant of its rules, csv/claims.csv and csv/rounds.csv (as many rows as the page
// counts rounds), the method checklist and the round-position effect, and for every figure
// and table of the study a section with its SVG (or one sentence why none), the study's
// value, ours and the rounds behind it; every SVG keeps the chart rules
// (helpers/svg-rules.js), no untrusted round drawn.
'use strict';
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const { test } = require('node:test');
const { runScript } = require('./helpers/cli.js');
const { testDatabaseAndDir } = require('./helpers/pg.js');
const { loadFixture, FIXTURE_2026_11_26, FIXTURE_PLANS_2026_11_26 } = require('./helpers/study-fixture.js');
const { FIGURES } = require('../lib/report/study-figures-page.js');
const { CLAIMS, CLAIM_RULES } = require('../lib/report/study-claims.js');
const { MIN_ROUNDS, RULES, VERDICTS } = require('../../lib/verdict.js');
const { ROUNDS_NEEDED_CAP } = require('../../lib/rounds-needed.js');
const { chartProblems } = require('./helpers/svg-rules.js');
const { readCsv } = require('./helpers/csv.js');

let counts;
const fx = testDatabaseAndDir('studypage', 'cfscale-study-page-', async ({ db }) => {
  counts = await loadFixture(db.client, FIXTURE_2026_11_26);
});

test('report.sh --study writes every section of the results page from real rounds', () => {
  assert.ok(counts.rounds > 50 && counts.requests > 1000, JSON.stringify(counts));
  const out = path.join(fx.dir, 'page');
  const r = runScript('report.sh', ['--study', '--plans', FIXTURE_PLANS_2026_11_26, '--out', out], { CFSCALE_RESULTS_URL: fx.db.url });
  assert.equal(r.code, 0, r.stderr);
  assert.equal(r.stdout.trim(), path.join(out, 'README.md'));
  const page = fs.readFileSync(path.join(out, 'README.md'), 'utf8');
  for (const head of ['rounds made from commit', 'page written from commit', 'machine', 'versions', 'wall time', 'the harness\'s share']) {
    assert.match(page, new RegExp(`^\\| ${head} \\| \\S`, 'm'), head);
  }
  assert.match(page, /^\| machine \| 2 cores \(.+\), [\d.]+ GiB, Linux \S+ \|$/m);
  // The claims: one row each, with a verdict of the four, its reason, n_min and the widest CI.
  const claims = page.split('## Claims')[1].split('\n## ')[0];
  assert.match(claims, /^\| finding \| study \| test: groups compared \| ours \| verdict \| n_min \| widest 95 % CI \| rounds a side to decide \|$/m);
  for (const c of CLAIMS) {
    const row = claims.split('\n').find((l) => l.startsWith(`| ${c.finding} (`));
    assert.ok(row, `no claims row for "${c.finding}"`);
    assert.match(row, new RegExp(`\\| \\*\\*(${VERDICTS.join('|')})\\*\\*: \\S.* \\| (\\d+|–) \\| (±[\\d.]+ %|–) \\| (≈ \\d+|> ${ROUNDS_NEEDED_CAP}|\\?|–) \\|$`), row);
    // Undecided claims carry their projection; decided ones none.
    if (!/\*\*inconclusive\*\*/.test(row)) assert.ok(row.endsWith('| – |'), row);
    assert.equal(row.includes('our own experiment, not the study\'s finding'), c.own, row);
  }
  // Every constant the verdicts use, with its value, under the claims.
  for (const [name, value] of Object.entries({ ...RULES, ...CLAIM_RULES })) assert.match(claims, new RegExp(`^\\| ${name} = ${value} \\| \\S`, 'm'), name);
  const claimsCsv = readCsv(path.join(out, 'csv', 'claims.csv'));
  assert.deepEqual(Object.keys(claimsCsv[0]), ['finding', 'cite', 'study', 'ours', 'verdict', 'n_min', 'ci_halfwidth_pct', 'rounds_needed', 'reason']);
  for (const c of claimsCsv) assert.match(c.rounds_needed, new RegExp(`^(\\d+|>${ROUNDS_NEEDED_CAP}|)$`), c.finding);
  assert.match(claims, new RegExp(`> ${ROUNDS_NEEDED_CAP}: not within ${ROUNDS_NEEDED_CAP}`), 'the projection\'s cap on the page');
  assert.equal(claimsCsv.length, CLAIMS.length);
  for (const c of claimsCsv) assert.ok(VERDICTS.includes(c.verdict), c.verdict);
  // csv/rounds.csv: a row per round, as many as the header counts.
  const rounds = readCsv(path.join(out, 'csv', 'rounds.csv'));
  assert.equal(Number(/^\| rounds \| (\d+) /m.exec(page)[1]), rounds.length);
  assert.ok(rounds.length > 50 && rounds.length <= counts.rounds, `${rounds.length} of ${counts.rounds}`);
  for (const k of ['plan', 'app', 'variant', 'instances', 'load', 'trusted', 'flags', 'throughput_rps', 'p50_ms', 'p99_ms', 'mean_ms', 'cpu_used_pct', 'mem_mib']) {
    assert.ok(k in rounds[0], k);
  }
  assert.ok(rounds.some((r) => r.trusted === 'false' && /bad: /.test(r.flags)), 'untrusted rounds with their flags');
  // The method checklist (Papadopoulos et al.) and the round-position effect.
  const checklist = page.split('## Method checklist')[1].split('\n## ')[0];
  for (const p of ['P1 repeated experiments', 'P2 workload', 'P3 experimental setup', 'P4 open access artifact', 'P5 probabilistic', 'P6 statistical tests', 'P7 measurement units', 'P8 cost']) {
    assert.match(checklist, new RegExp(`^\\| ${p}[^|]* \\| \\S`, 'm'), p);
  }
  assert.match(checklist, /^\| P1 repeated experiments \| trusted rounds per point: min \d+, median 2, max 2 over \d+ points; 0 reach 5 \| not met \|$/m);
  // Which plans decide and which describe only: a row per plan, its role from its rounds a point;
  // a deciding plan states its stopping rule (the plan's `stopping`).
  const roles = [...page.split('## Deciding and descriptive plans')[1].split('\n## ')[0]
    .matchAll(/^\| ([a-z0-9-]+) \| [^|]* \| (\d+) \| (decides|descriptive only)[^|]* \| ([^|]*) \|$/gm)];
  assert.ok(roles.length >= 2, 'a row per plan');
  for (const [, plan, reps, role, stopping] of roles) {
    assert.equal(role, Number(reps) >= MIN_ROUNDS ? 'decides' : 'descriptive only', plan);
    if (role === 'decides') assert.match(stopping, /\d+ rounds a point/, `${plan}: no stopping rule`);
  }
  assert.match(page.split('## Round position')[1], /^\| pool-size \| \d+ \| [+−][\d.]+ % \| [+−][\d.]+ % to [+−][\d.]+ % \| /m);
  // Every figure and table: its heading, its chart (or one sentence why none), the study's value, ours, the rounds.
  const trusted = new Set(rounds.filter((r) => r.trusted === 'true').map((r) => Number(r.round)));
  let charts = 0;
  for (const fig of FIGURES) {
    const section = page.split(`## ${fig.id}: `)[1]?.split('\n## ')[0];
    assert.ok(section, `no section for ${fig.id}`);
    const svg = /!\[[^\]]*\]\(([^)]+\.svg)\)/.exec(section)?.[1];
    if (svg) {
      const text = fs.readFileSync(path.join(out, svg), 'utf8');
      assert.match(text, /^<svg[\s\S]*<\/svg>\s*$/, `${fig.id}: ${svg} is no SVG`);
      assert.deepEqual(chartProblems(text, { trusted }), [], `${fig.id}: ${svg}`);
      charts++;
    } else {
      assert.match(section, /^No chart: [^\n]+\.$/m, `${fig.id}: neither a chart nor why`);
    }
    assert.match(section, /^\*\*Study:\*\* \S/m, fig.id);
    assert.match(section, /^\*\*Here:\*\* \S/m, fig.id);
    assert.match(section, /<summary>The rounds behind it<\/summary>[\s\S]*\| \d+ \|/, `${fig.id}: no rounds`);
  }
  assert.ok(charts >= FIGURES.length - 2, `${charts} charts of ${FIGURES.length}`);
  assert.match(page, /## Fig\. 4\.3: Memory needed \(our procedure, not the study's\)/);
});

test('wall time: rounds more than 15 min apart are two sittings, the time between them left out', () => {
  const { sittings } = require('../lib/report/study-page.js');
  const min = 60_000;
  // Two rounds back to back, a third after a 2 h break, a fourth 14 min after it.
  const runs = sittings([[0, 2 * min], [200 * min, 202 * min], [2 * min + 5000, 5 * min], [216 * min, 218 * min]]);
  assert.deepEqual(runs, [[0, 5 * min], [200 * min, 218 * min]]);
  assert.deepEqual(sittings([]), []);
});
