// Regression: a plan edited after its rounds ran (warm-up, cpu, loadbalancing) got its OLD
// rounds back on resume and in the report, because the label names the step only. Against a
// real PostgreSQL with the stand-in round (fake-run-round.js, which records the parameters it
// is given as round.js does).
'use strict';
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const { test } = require('node:test');
const { loggedCalls: calls, runScript } = require('../report/test/helpers/cli.js');
const { testDatabaseAndDir } = require('../report/test/helpers/pg.js');

const { FAKE_ROUND_ENV } = require('./fake-run-round.js');
const fx = testDatabaseAndDir('stale', 'cfscale-report-stale-');

// afterChange: keep: the edits change the CPU quota; re-running the first round after that
// change is the subject of runner.test.js, not of this one.
const BASE = `name: edited
apps: [node-app]
load: [{ loadgens: 1, parallel: 1 }]
duration: 4s
warmup: 1s
cpu: 1
repetitions: 2
afterChange: keep
`;

test('a plan edited after its rounds ran re-runs them; the report ignores the old ones', async () => {
  const planFile = path.join(fx.dir, 'edited.yml');
  const log = path.join(fx.dir, 'calls.log');
  const cfState = path.join(fx.dir, 'cf-state.json');
  const run = (extra = []) => runScript('run-experiment.sh', [planFile, ...extra],
    { ...FAKE_ROUND_ENV, CFSCALE_RESULTS_URL: fx.db.url, FAKE_RUN_ROUND_LOG: log, CFSCALE_PLATFORM_CLI: path.join(__dirname, 'fake-cf.js'),
      FAKE_CF_STATE: cfState, FAKE_CF_LOG: `${cfState}.log` });
  fs.writeFileSync(planFile, BASE);
  const first = run();
  assert.equal(first.code, 0, first.stderr);
  assert.equal(calls(log).length, 2);

  // [what is edited, plan text, the option (and its typed value) runRound now gets, the difference the runner names]
  const edits = [
    ['warmup', BASE.replace('warmup: 1s', 'warmup: 2s'), ['warmupMs', 2000], 'warmup_ms: round 1000, plan 2000'],
    ['cpu', BASE.replace('warmup: 1s', 'warmup: 2s').replace('cpu: 1', 'cpu: 0.5'), ['cpu', 0.5], 'cpu: round 1, plan 0.5'],
    ['loadbalancing', `${BASE.replace('warmup: 1s', 'warmup: 2s').replace('cpu: 1', 'cpu: 0.5')}loadbalancing: least-connection\n`,
      ['loadbalancing', 'least-connection'], 'loadbalancing: round round-robin, plan least-connection'],
  ];
  let stale = 0;
  for (const [what, text, [flag, value], difference] of edits) {
    stale += 2; // every earlier round of the plan is stale now
    fs.writeFileSync(planFile, text);
    const dry = run(['--dry-run']);
    assert.equal(dry.code, 0, dry.stderr);
    assert.equal(dry.stdout.split('\n').filter((l) => l.startsWith('run ')).length, 2, `${what}: dry run lists both rounds to run\n${dry.stdout}`);
    assert.match(dry.stderr, new RegExp(`, 0 done before, ${stale} done before under other parameters`), what);
    const n = calls(log).length;
    const r = run();
    assert.equal(r.code, 0, r.stderr);
    const ran = calls(log).slice(n);
    assert.equal(ran.length, 2, `${what}: both rounds run again`);
    assert.ok(ran.every((c) => c[flag] === value), `${what}: run with ${flag} ${value}: ${JSON.stringify(ran)}`);
    assert.ok(r.stderr.includes(difference), `${what}: says what differs\n${r.stderr}`);
    assert.ok(r.stderr.includes(`finished: 2 ran, 0 skipped (done before), 0 failed, ${stale} done before under other parameters`), what);
    // The new rounds match: a second run reuses them.
    const again = run();
    assert.equal(again.code, 0, again.stderr);
    assert.equal(calls(log).length, n + 2, `${what}: nothing runs the second time`);
    assert.match(again.stderr, /0 ran, 2 skipped/, what);
  }

  // 8 rounds in the database, 2 under the plan as it is now.
  const { rows } = await fx.db.client.query("SELECT id FROM rounds WHERE experiment = 'edited' ORDER BY id");
  assert.equal(rows.length, 8);
  const newest = rows.slice(-2).map((r) => r.id);
  const out = path.join(fx.dir, 'report');
  const rep = runScript('report.sh', ['--experiment', 'edited', '--plan', planFile, '--out', out], { CFSCALE_RESULTS_URL: fx.db.url });
  assert.equal(rep.code, 0, rep.stderr);
  assert.match(rep.stderr, /report: 2 round\(s\)/);
  assert.match(rep.stderr, /checked against plan edited: 6 stale round\(s\) ignored/);
  const csvIds = fs.readFileSync(path.join(out, 'csv', 'rounds.csv'), 'utf8').trim().split('\n').slice(1)
    .map((l) => Number(l.split(',')[0]));
  assert.deepEqual(csvIds.sort((a, b) => a - b), newest);
  const html = fs.readFileSync(path.join(out, 'index.html'), 'utf8');
  assert.match(html, /Plan check: checked against plan edited: 6 stale round\(s\) ignored/);

  // Under the first version of the plan, only its two rounds count again.
  const v1 = path.join(fx.dir, 'v1.yml');
  fs.writeFileSync(v1, BASE);
  const old = runScript('report.sh', ['--experiment', 'edited', '--plan', v1, '--out', path.join(fx.dir, 'report-v1')], { CFSCALE_RESULTS_URL: fx.db.url });
  assert.equal(old.code, 0, old.stderr);
  assert.match(old.stderr, /report: 2 round\(s\).*\n.*6 stale round\(s\) ignored/);
});

test('report: --plan errors and a plan whose every round is stale exit 1 with one line', () => {
  const other = path.join(fx.dir, 'other.yml');
  fs.writeFileSync(other, BASE.replace('name: edited', 'name: other'));
  const allStale = path.join(fx.dir, 'all-stale.yml');
  fs.writeFileSync(allStale, BASE.replace('duration: 4s', 'duration: 9s'));
  const cases = [
    [['--experiment', 'edited', '--plan', other], /^report: --plan .*other\.yml is plan other, not --experiment edited\n$/],
    [['--experiment', 'edited', '--plan', path.join(fx.dir, 'missing.yml')], /^report: plan .*missing\.yml: cannot read: ENOENT\n$/],
    [['--experiment', 'edited', '--plan', allStale], /^report: no rounds match --experiment edited \(checked against plan edited: 8 stale round\(s\) ignored.*duration_ms: round 4000, plan 9000\)\n$/],
  ];
  for (const [args, re] of cases) {
    const r = runScript('report.sh', [...args, '--out', path.join(fx.dir, 'never')], { CFSCALE_RESULTS_URL: fx.db.url });
    assert.equal(r.code, 1, `${args.join(' ')}: ${r.stderr}`);
    assert.match(r.stderr, re, args.join(' '));
  }
});
