// experiment.e2e.test.js — the whole chain on the real local platform: the shipped plan
// experiments/ci-tiny.yml through scripts/run-experiment.sh → scripts/run-round.sh (real
// apps, loadgen, HAProxy, PostgreSQL, cgroups), resumed a second time (nothing reruns),
// then scripts/report.sh, and the report opened in headless Chromium.
// Needs scripts/run-round.sh (another part of cfscale): when it is missing or its --help
// fails this test FAILS with that message; set CFSCALE_SKIP_E2E=1 to skip it on purpose.
// Own CFSCALE_HOME (/tmp/cfscale-report-*), every port pinned in range `experiment` of ports.json; torn down afterwards.
'use strict';
const assert = require('node:assert/strict');
const { spawnSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');
const { after, test } = require('node:test');
const pg = require('pg');
const { REPO_ROOT, resultsUrl } = require('../scripts/ops/results-url.js');
const { inspectPage } = require('../report/test/helpers/browser.js');
const { platformPortEnv } = require('../lib/ports');

const SKIP = process.env.CFSCALE_SKIP_E2E === '1';
const RUN_ROUND = path.join(REPO_ROOT, 'scripts/run-round.sh');
const HOME = SKIP ? null : fs.mkdtempSync('/tmp/cfscale-report-e2e-');
const ENV = {
  ...process.env,
  PLATFORM: 'local',
  CFSCALE_HOME: HOME ?? '',
  ...platformPortEnv('experiment'),
  CFSCALE_RESULTS_URL: '',
  RESULTS_DATABASE_URL: '',
  // The chain is under test, not the isolation: beside the other suites the harness's cell is
  // busy by design, and a round it kept busy is rightly left out of every chart (cells:
  // local-platform/test/cells.test.js, test/round.e2e.test.js).
  CFSCALE_SUT_CPUS: 'off',
};

function script(name, args, timeoutMs = 600_000) {
  const r = spawnSync(path.join(REPO_ROOT, 'scripts', name), args, { env: ENV, encoding: 'utf8', timeout: timeoutMs });
  return { code: r.status, stdout: r.stdout ?? '', stderr: r.stderr ?? '', error: r.error };
}

function runRoundWorks() {
  if (!fs.existsSync(RUN_ROUND)) return `${RUN_ROUND} does not exist`;
  const r = spawnSync(RUN_ROUND, ['--help'], { encoding: 'utf8', timeout: 30_000 });
  return r.status === 0 ? null : `${RUN_ROUND} --help exited ${r.status}: ${(r.stderr || '').trim().split('\n')[0]}`;
}

after(() => {
  if (!HOME) return;
  script('teardown.sh', ['--platform', 'local'], 120_000);
  fs.rmSync(HOME, { recursive: true, force: true });
});

test('ci-tiny experiment → report → Chromium on the local platform', { skip: SKIP && 'CFSCALE_SKIP_E2E=1', timeout: 900_000 }, async () => {
  const broken = runRoundWorks();
  assert.equal(broken, null, `the end-to-end experiment needs scripts/run-round.sh: ${broken} (set CFSCALE_SKIP_E2E=1 to skip)`);
  const plan = path.join(REPO_ROOT, 'experiments/ci-tiny.yml');

  const first = script('run-experiment.sh', [plan]);
  assert.equal(first.code, 0, `run-experiment failed:\n${first.stderr.slice(-4000)}`);
  assert.match(first.stderr, /finished: 8 ran, 0 skipped/);

  // The report's own way to the local results-db (its service key, through the cf CLI).
  const saved = Object.fromEntries(Object.keys(ENV).map((k) => [k, process.env[k]]));
  Object.assign(process.env, ENV);
  let url;
  try {
    url = await resultsUrl({ platform: 'local' });
  } finally {
    for (const [k, v] of Object.entries(saved)) { if (v === undefined) delete process.env[k]; else process.env[k] = v; }
  }
  assert.match(url ?? '', /^postgres/, 'the results database through the report\'s service key');
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query(
      `SELECT label, status, app, experiment, samples, throughput_rps FROM report_round_overview
        WHERE label LIKE 'exp:ci-tiny:%' ORDER BY round_id`);
    assert.equal(rows.length, 8);
    assert.ok(rows.every((r) => r.status === 'done' && r.samples > 0 && r.throughput_rps > 0), JSON.stringify(rows));
    assert.ok(rows.every((r) => r.experiment === 'ci-tiny'));
    assert.deepEqual(rows.slice(0, 2).map((r) => r.app).sort(), ['java-app', 'node-app'], 'apps interleaved');
  } finally {
    await client.end();
  }

  const again = script('run-experiment.sh', [plan]);
  assert.equal(again.code, 0, again.stderr.slice(-2000));
  assert.match(again.stderr, /finished: 0 ran, 8 skipped/);

  const out = path.join(HOME, 'report');
  const rep = script('report.sh', ['--experiment', 'ci-tiny', '--out', out]);
  assert.equal(rep.code, 0, rep.stderr);
  for (const f of ['index.html', 'csv/groups.csv', 'csv/comparisons.csv', 'charts/throughput-vs-load.svg']) {
    assert.ok(fs.existsSync(path.join(out, f)), f);
  }
  const page = await inspectPage(path.join(out, 'index.html'));
  assert.deepEqual(page.errors, []);
  assert.ok(Number(page.chartsRendered) >= 2, `charts rendered: ${page.chartsRendered}`);
  assert.ok(page.chartPixels > 2_000, `first chart has ${page.chartPixels} non-white pixels`);
});
