// study-page.test.js — `scripts/report.sh --study` on a stored sample of real rounds of the
// study (helpers/study-fixture.js: every round of a real run, one request in 200): the page
// names its commit, machine and wall time, has the claims table with a verdict per claim, and
// a section with its SVG, the study's value, ours and the rounds behind it for every figure
// and table of the study.
'use strict';
const assert = require('node:assert/strict');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { after, before, test } = require('node:test');
const { runScript } = require('./helpers/cli.js');
const { stopOwnCluster, testDatabase } = require('./helpers/pg.js');
const { loadFixture } = require('./helpers/study-fixture.js');
const { FIGURES } = require('../lib/report/study-figures-page.js');
const { CLAIMS, NOT_MEASURABLE, NOT_REPRODUCED, REPRODUCED } = require('../lib/report/study-claims.js');

let db;
let dir;
let counts;

before(async () => {
  db = await testDatabase('studypage');
  counts = await loadFixture(db.client);
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cfscale-study-page-'));
});
after(async () => {
  await db.drop();
  stopOwnCluster();
  fs.rmSync(dir, { recursive: true, force: true });
});

test('report.sh --study writes every section of the results page from real rounds', () => {
  assert.ok(counts.rounds > 50 && counts.requests > 1000, JSON.stringify(counts));
  const out = path.join(dir, 'page');
  const r = runScript('report.sh', ['--study', '--out', out], { CFSCALE_RESULTS_URL: db.url });
  assert.equal(r.code, 0, r.stderr);
  assert.equal(r.stdout.trim(), path.join(out, 'README.md'));
  const page = fs.readFileSync(path.join(out, 'README.md'), 'utf8');
  for (const head of ['rounds made from commit', 'page written from commit', 'machine', 'versions', 'wall time', 'the harness\'s share']) {
    assert.match(page, new RegExp(`^\\| ${head} \\| \\S`, 'm'), head);
  }
  assert.match(page, /^\| machine \| 2 cores \(.+\), [\d.]+ GiB, Linux \S+ \|$/m);
  // The claims: one row each, with a verdict and its reason.
  const claims = page.split('## Claims')[1].split('\n## ')[0];
  for (const c of CLAIMS) {
    const row = claims.split('\n').find((l) => l.startsWith(`| ${c.finding} (`));
    assert.ok(row, `no claims row for "${c.finding}"`);
    assert.match(row, new RegExp(`\\| \\*\\*(${[REPRODUCED, NOT_REPRODUCED, NOT_MEASURABLE].join('|')})\\*\\*: \\S`), row);
  }
  // Every figure and table: its heading, its chart (a real SVG), the study's value, ours, the rounds.
  for (const fig of FIGURES) {
    const section = page.split(`## ${fig.id}: `)[1]?.split('\n## ')[0];
    assert.ok(section, `no section for ${fig.id}`);
    const svg = /!\[[^\]]*\]\(([^)]+\.svg)\)/.exec(section)?.[1];
    assert.ok(svg, `${fig.id}: no chart`);
    assert.match(fs.readFileSync(path.join(out, svg), 'utf8'), /^<svg[\s\S]*<\/svg>\s*$/, `${fig.id}: ${svg} is no SVG`);
    assert.match(section, /^\*\*Study:\*\* \S/m, fig.id);
    assert.match(section, /^\*\*Here:\*\* \S/m, fig.id);
    assert.match(section, /<summary>The rounds behind it<\/summary>[\s\S]*\| \d+ \|/, `${fig.id}: no rounds`);
  }
  assert.ok(fs.existsSync(path.join(out, 'csv', 'claims.csv')));
});
