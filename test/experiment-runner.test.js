// The experiment runner end to end against a real PostgreSQL, with a stand-in for the
// round it runs in process (fake-run-round.js): resume skips finished rounds, failed rounds
// are retried, adaptive plans replay their decisions, settings are applied on change.
'use strict';
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const { test } = require('node:test');
const { loggedCalls: calls, runScript } = require('../report/test/helpers/cli.js');
const { testDatabaseAndDir } = require('../report/test/helpers/pg.js');
const { insertRound } = require('../report/test/helpers/synthetic.js');
const { maxCpuOfApp } = require('../scripts/experiment/results.js');
const { validatePlan } = require('../plans/plan.js');

const { FAKE_ROUND_ENV } = require('./fake-run-round.js');
const FAKE_CF = path.join(__dirname, 'fake-cf.js');
// Apps of their own (change-app, mem-app) beside the harness's: the rounds are checked as
// run-round.sh checks them, which takes an app with a manifest (CFSCALE_MANIFEST_DIR).
const OWN_APPS = ['change-app', 'mem-app'];
let manifests;
const fx = testDatabaseAndDir('runner', 'cfscale-report-runner-', async ({ dir }) => {
  manifests = path.join(dir, 'manifests');
  fs.mkdirSync(manifests);
  const repoManifests = path.join(__dirname, '..', 'manifests');
  for (const f of fs.readdirSync(repoManifests)) fs.symlinkSync(path.join(repoManifests, f), path.join(manifests, f));
  for (const app of OWN_APPS) fs.writeFileSync(path.join(manifests, `${app}.yml`), `applications:\n- name: ${app}\n`);
});

function writePlan(name, text) {
  const f = path.join(fx.dir, `${name}.yml`);
  fs.writeFileSync(f, text);
  return f;
}

// The apps' settings go to the stand-in cf (helpers/fake-cf.js): its calls in FAKE_CF_LOG.
function run(plan, extraArgs = [], env = {}) {
  const state = path.join(fx.dir, `${path.basename(plan)}.cf-state.json`);
  return runScript('run-experiment.sh', [plan, ...extraArgs],
    { ...FAKE_ROUND_ENV, CFSCALE_MANIFEST_DIR: manifests, CFSCALE_RESULTS_URL: fx.db.url, CFSCALE_PLATFORM_CLI: FAKE_CF, FAKE_CF_STATE: state, FAKE_CF_LOG: `${state}.log`, ...env });
}

const GRID = `apps: [node-app, java-app]
load: { loadgens: [1, 2], parallel: 1 }
duration: 4s
warmup: 1s
repetitions: 2
`;

test('resume: rounds done before are skipped, failed ones run again', async () => {
  const plan = writePlan('resume', GRID);
  const label = (app, l, r) => `exp:resume:${app}:default:i1:l${l}:p1:rep${r}`;
  // Recorded under the plan's duration 4 s and warm-up 1 s: still done for it.
  const same = { durationMs: 4000, warmupMs: 1000 };
  for (const l of [label('node-app', 1, 1), label('java-app', 1, 1), label('java-app', 2, 2)]) {
    await insertRound(fx.db.client, { app: l.split(':')[2], instances: 1, loadgens: Number(l.split(':')[5].slice(1)), parallel: 1, label: l, ...same });
  }
  await insertRound(fx.db.client, { app: 'node-app', instances: 1, loadgens: 2, parallel: 1, label: label('node-app', 2, 1), status: 'failed', ...same });

  const dry = run(plan, ['--dry-run']);
  assert.equal(dry.code, 0, dry.stderr);
  const lines = dry.stdout.trim().split('\n');
  assert.equal(lines.length, 8);
  assert.equal(lines.filter((l) => l.startsWith('skip')).length, 3);
  assert.ok(lines.some((l) => l.startsWith('run') && l.includes(label('node-app', 2, 1))), 'a failed round is not done');
  assert.ok(lines.find((l) => l.startsWith('run')).includes('--experiment resume'), 'run-round supports --experiment');

  const log = path.join(fx.dir, 'resume.log');
  const r1 = run(plan, [], { FAKE_RUN_ROUND_LOG: log });
  assert.equal(r1.code, 0, r1.stderr);
  const ran = calls(log).map((c) => c.label);
  assert.equal(ran.length, 5);
  assert.ok(!ran.includes(label('node-app', 1, 1)) && !ran.includes(label('java-app', 2, 2)));
  assert.ok(ran.includes(label('node-app', 2, 1)));
  assert.match(r1.stderr, /finished: 5 ran, 3 skipped \(done before\), 0 failed/);
  assert.match(r1.stderr, /\[\d\/8\] exp:resume:/, 'progress lines');
  const c0 = calls(log)[0];
  assert.deepEqual([c0.durationMs, c0.warmupMs, c0.platform, c0.maxErrorRate], [4000, 1000, 'local', '0.01']);

  const r2 = run(plan, [], { FAKE_RUN_ROUND_LOG: log });
  assert.equal(r2.code, 0, r2.stderr);
  assert.equal(calls(log).length, 5, 'nothing ran the second time');
  assert.match(r2.stderr, /0 ran, 8 skipped/);
});

test('a failed round: exit 2, the others still run, a rerun retries only it', async () => {
  const plan = writePlan('failing', GRID);
  const bad = 'exp:failing:java-app:default:i1:l2:p1:rep1';
  const log = path.join(fx.dir, 'failing.log');
  const r1 = run(plan, [], { FAKE_RUN_ROUND_LOG: log, FAKE_RUN_ROUND_FAIL: bad });
  assert.equal(r1.code, 2, r1.stderr);
  assert.equal(calls(log).length, 8);
  assert.match(r1.stderr, /FAILED \(run-round exit 2/);
  const r2 = run(plan, [], { FAKE_RUN_ROUND_LOG: log });
  assert.equal(r2.code, 0, r2.stderr);
  assert.deepEqual(calls(log).slice(8).map((c) => c.label), [bad]);
});

test('scale-until-SLO resumes by replaying its decisions from the database', async () => {
  const plan = writePlan('scaling', `kind: scale-until-slo
apps: [node-app]
slo: { metric: p95, threshold: 20ms }
scale: { loadgensStart: 2, loadgensStep: 2, loadgensMax: 12, maxInstances: 3 }
repetitions: 1
duration: 4s
warmup: 1s
afterChange: keep
`);
  const log = path.join(fx.dir, 'scaling.log');
  const r1 = run(plan, [], { FAKE_RUN_ROUND_LOG: log });
  assert.equal(r1.code, 0, r1.stderr);
  const first = calls(log).map((c) => `${c.instances}/${c.loadgens}`);
  // 1 instance = 100 req/s = 5 loadgens at 20 req/s: the SLO breaks at 6 loadgens.
  assert.deepEqual(first.slice(0, 4), ['1/2', '1/4', '1/6', '2/6']);
  assert.ok(first.includes('3/12') || /maxInstances|loadgensMax/.test(r1.stderr));
  const outcome = r1.stderr.split('\n').find((l) => l.includes('node-app/default: stopped'));
  assert.ok(outcome, r1.stderr);
  // Lose the last two rounds (an interrupted run), run again: only those run, same outcome.
  const lost = calls(log).slice(-2).map((c) => c.label);
  await fx.db.client.query('DELETE FROM rounds WHERE label = ANY($1)', [lost]);
  const r2 = run(plan, [], { FAKE_RUN_ROUND_LOG: log });
  assert.equal(r2.code, 0, r2.stderr);
  assert.deepEqual(calls(log).slice(first.length).map((c) => c.label), lost);
  assert.ok(r2.stderr.includes(outcome.replace(/^run-experiment: /, '')), r2.stderr);
  // The stop is stored (experiment_outcomes), once per run, for the report (study §7.3).
  const { rows } = await fx.db.client.query(`SELECT app, variant, instances, loadgens, stop, reason FROM experiment_outcomes
    WHERE experiment = 'scaling' ORDER BY id`);
  assert.equal(rows.length, 2);
  assert.deepEqual(rows[0], rows[1]);
  assert.ok(outcome.endsWith(`stopped at ${rows[0].instances} instance(s), ${rows[0].loadgens} loadgens: ${rows[0].reason}`), outcome);
  assert.ok(['router-saturation', 'max-instances', 'loadgens-max'].includes(rows[0].stop), rows[0].stop);
});

test('scale-until-SLO stops when the local router reaches 70 % of its one core, stored for the report (study §7.3)', async () => {
  const plan = writePlan('router-load', `kind: scale-until-slo
apps: [node-app]
slo: { metric: p95, threshold: 20ms }
scale: { loadgensStart: 4, loadgensStep: 4, loadgensMax: 96, maxInstances: 9, routerSaturation: false }
repetitions: 1
duration: 4s
warmup: 1s
afterChange: keep
`);
  // 2 ms of router CPU per request: 70 % of one core (no quota) at 350 req/s served.
  const r = run(plan, [], { FAKE_RUN_ROUND_ROUTER_MS: '2' });
  assert.equal(r.code, 0, r.stderr);
  const { rows } = await fx.db.client.query(`SELECT instances, loadgens, stop, reason FROM experiment_outcomes
    WHERE experiment = 'router-load'`);
  assert.equal(rows.length, 1);
  assert.equal(rows[0].stop, 'router-load');
  // Served: min(20 req/s × loadgens, 100 req/s × instances); the first step at or past 350.
  const served = Math.min(20 * rows[0].loadgens, 100 * rows[0].instances);
  assert.ok(served >= 350 && served < 450, `stopped serving ${served} req/s`);
  assert.equal(rows[0].reason, `router CPU ${(served * 0.002).toFixed(2)} cores reached 70 % of its 1.00 (${(served / 5).toFixed(0)} %)`);
});

test('capacity: the search result per instance count is stored with the soak verdict', async () => {
  const plan = writePlan('capsearch', `kind: capacity
apps: [node-app]
slo: { metric: p99, threshold: 50ms }
capacity: { instances: [1, 2], loadgens: 2, rateMin: 10, rateMax: 400, tolerance: 0.2, maxProbes: 4, probeDuration: 4s, soakDuration: 4s }
warmup: 1s
`);
  const r = run(plan);
  assert.equal(r.code, 0, r.stderr);
  const { rows } = await fx.db.client.query(`SELECT instances, capacity_rps, confirmed, reason FROM experiment_outcomes
    WHERE experiment = 'capsearch' ORDER BY instances`);
  assert.deepEqual(rows.map((x) => x.instances), [1, 2]);
  for (const x of rows) {
    const line = r.stderr.split('\n').find((l) => l.includes(`node-app/default x${x.instances}:`));
    assert.ok(line.endsWith(`capacity ${x.capacity_rps} req/s at ${x.instances} instance(s), ${x.reason}`), line);
    assert.equal(x.confirmed, x.reason === 'soak confirmed');
  }
});

test('the first round after a change is run again and left out; on resume it does not count as done', async () => {
  // Interleaved: at 1 instance, then at 2 (a change: run again), then at 1 (a change again).
  // An app of its own: the first round of an app in the database is not after a change.
  const plan = writePlan('change', `apps: [change-app]
instances: [1, 2]
load: [{ loadgens: 1, parallel: 1 }]
duration: 4s
warmup: 1s
repetitions: 2
`);
  const log = path.join(fx.dir, 'change.log');
  const r1 = run(plan, [], { FAKE_RUN_ROUND_LOG: log });
  assert.equal(r1.code, 0, r1.stderr);
  const ran = calls(log).map((c) => `${c.instances}:${c.label.split(':').pop()}`);
  assert.deepEqual(ran, ['1:rep1', '2:rep1', '2:rep1', '1:rep2', '1:rep2', '2:rep2', '2:rep2']);
  assert.match(r1.stderr, /exp:change:change-app:default:i2:l1:p1:rep1: round \d+ is the first after a change \(instances: 1 → 2\): left out, running the step again/);
  assert.match(r1.stderr, /finished: 7 ran, 0 skipped \(done before\), 0 failed, 3 step\(s\) run again after a change/);
  // The report leaves the first ones out (superseded by the re-run of their step).
  const out = path.join(fx.dir, 'change-report');
  const rep = runScript('report.sh', ['--experiment', 'change', '--plan', plan, '--out', out], { CFSCALE_RESULTS_URL: fx.db.url });
  assert.equal(rep.code, 0, rep.stderr);
  const rounds = fs.readFileSync(path.join(out, 'csv', 'rounds.csv'), 'utf8');
  assert.equal((rounds.match(/first round after a change \(instances: [12] → [12]\): left out, the step ran again as round \d+/g) || []).length, 3);
  // Lose the re-run of the last step: on resume its first round does not count as done.
  const last = calls(log).at(-1).label;
  await fx.db.client.query('DELETE FROM rounds WHERE id = (SELECT max(id) FROM rounds WHERE label = $1)', [last]);
  const r2 = run(plan, [], { FAKE_RUN_ROUND_LOG: log });
  assert.equal(r2.code, 0, r2.stderr);
  assert.deepEqual(calls(log).slice(ran.length).map((c) => c.label), [last]);
});

test('variant settings are applied with set-env + restart only when they change', async () => {
  const cliLog = path.join(fx.dir, 'cli.log');
  const plan = writePlan('variants', `apps: [node-app]
variants:
  - { name: pool30, settings: { DB_POOL_SIZE: 30 } }
  - { name: pool60, settings: { DB_POOL_SIZE: 60 } }
load: [{ loadgens: 1, parallel: 1 }]
order: sequential
repetitions: 2
duration: 4s
warmup: 1s
`);
  const r = run(plan, [], { FAKE_CF_LOG: cliLog });
  assert.equal(r.code, 0, r.stderr);
  assert.deepEqual(fs.readFileSync(cliLog, 'utf8').trim().split('\n'), [
    'set-env node-app DB_POOL_SIZE 30', 'restart node-app', 'set-env node-app DB_POOL_SIZE 60', 'restart node-app',
  ]);
});

test('a plan without settings runs the manifest\'s: what an earlier plan left is restored or unset, memory too; the control credential is kept', async () => {
  const cliLog = path.join(fx.dir, 'cli-reset.log');
  const state = path.join(fx.dir, 'cf-state-reset.json');
  // node-app as an earlier plan left it: a pool of 90, express, a JVM-style option, 1G; its token from push.
  fs.writeFileSync(state, JSON.stringify({ 'node-app': { memory_in_mb: 1024, env: {
    DB_SERVICE_NAME: 'node-db', DB_POOL_SIZE: '90', APP_FRAMEWORK: 'express', WEB_CONCURRENCY: '1', TIMINGS_ENABLED: 'true',
    DB_DRIVER: 'js', CONTROL_TOKEN: 'x'.repeat(43) } } }));
  const plan = writePlan('reset', `apps: [node-app]
load: [{ loadgens: 1, parallel: 1 }]
repetitions: 1
duration: 4s
warmup: 1s
`);
  const r = run(plan, [], { FAKE_CF_STATE: state, FAKE_CF_LOG: cliLog });
  assert.equal(r.code, 0, r.stderr);
  assert.deepEqual(fs.readFileSync(cliLog, 'utf8').trim().split('\n'), [
    'set-env node-app DB_POOL_SIZE 10', 'set-env node-app APP_FRAMEWORK raw', 'unset-env node-app DB_DRIVER', 'scale node-app -m 200M -f',
  ]);
  assert.equal(JSON.parse(fs.readFileSync(state, 'utf8'))['node-app'].env.CONTROL_TOKEN, 'x'.repeat(43));
});

/** Two memory variants of APP, two repetitions each, one after the other. */
const memoryVariantsPlan = (app) => `apps: [${app}]
variants:
  - { name: mem128m, memory: 128M }
  - { name: mem1g, memory: 1G }
load: [{ loadgens: 1, parallel: 1 }]
order: sequential
repetitions: 2
duration: 4s
warmup: 1s
`;

test('variant memory is applied with scale -m -f, after the settings, only when it changes', async () => {
  const cliLog = path.join(fx.dir, 'cli-mem.log');
  const plan = writePlan('memvariants', memoryVariantsPlan('node-app'));
  const r = run(plan, [], { FAKE_CF_LOG: cliLog });
  assert.equal(r.code, 0, r.stderr);
  assert.deepEqual(fs.readFileSync(cliLog, 'utf8').trim().split('\n'), ['scale node-app -m 128M -f', 'scale node-app -m 1024M -f']);
});

test('usage and configuration errors exit 1 with one line', () => {
  const cases = [
    [['--help'], 0, /Usage: scripts\/run-experiment.sh PLAN/],
    [[], 1, /^run-experiment: exactly one PLAN file is required/],
    [[writePlan('bad', 'apps: [node-app]\nload: [{ loadgens: 0, parallel: 1 }]\n')], 1, /^run-experiment: plan bad\.yml: load\[0\]\.loadgens must be an integer >= 1, got 0\n$/],
    [[writePlan('ok', GRID), '--platform', 'aws'], 1, /--platform must be local or cf/],
    [[writePlan('ok3', GRID)], 1, /cannot reach the results database/, 'postgres://x@127.0.0.1:1/x'],
    // A round run-round.sh would refuse is refused before anything runs, in a dry run too.
    ...[[], ['--dry-run']].map((extra) => [[writePlan('long-warmup', 'apps: [node-app]\nload: [{ loadgens: 1, parallel: 1 }]\nduration: 4s\nwarmup: 10s\n'), ...extra],
      1, /^run-experiment: round exp:long-warmup:node-app:default:i1:l1:p1:rep1: run-round: --warmup must be shorter than --duration/m, fx.db.url]),
    [[writePlan('ok4', GRID), '--bogus'], 1, /unknown option: --bogus/],
    // The URL holds a password: never a flag, so no command line carries it.
    [[writePlan('ok5', GRID), '--db', 'postgres://x@127.0.0.1:1/x'], 1, /unknown option: --db/],
  ];
  for (const [args, code, re, url = ''] of cases) {
    const r = runScript('run-experiment.sh', args, { CFSCALE_RESULTS_URL: url });
    assert.equal(r.code, code, `${args.join(' ')}: ${r.stderr}`);
    assert.match(code === 0 ? r.stdout : r.stderr, re, args.join(' '));
  }
});

test('cpuReference {app}: the highest CPU the reference app used in the experiment', async () => {
  const raw = { name: 'cpuref', kind: 'scale-until-slo', apps: ['java-app', 'node-app'], duration: '10s', warmup: '2s' };
  const plan = validatePlan(raw);
  // cpuPerInstance 0.4 × 2 instances, and a failed round with more that must not count,
  // nor a done one recorded under another warm-up than the plan's (stale).
  await insertRound(fx.db.client, { app: 'java-app', instances: 2, loadgens: 1, parallel: 1, label: 'exp:cpuref:java-app:default:i2:l1:p1:rep1', cpuPerInstance: 0.4 });
  await insertRound(fx.db.client, { app: 'java-app', instances: 1, loadgens: 1, parallel: 1, label: 'exp:cpuref:java-app:default:i1:l1:p1:rep1', cpuPerInstance: 0.3 });
  await insertRound(fx.db.client, { app: 'java-app', instances: 3, loadgens: 1, parallel: 1, label: 'exp:cpuref:java-app:default:i3:l1:p1:rep1', cpuPerInstance: 0.9, status: 'failed' });
  await insertRound(fx.db.client, { app: 'java-app', instances: 3, loadgens: 1, parallel: 1, label: 'exp:cpuref:java-app:default:i3:l1:p1:rep2', cpuPerInstance: 0.9, warmupMs: 3000 });
  const c = await maxCpuOfApp(fx.db.client, plan, 'java-app');
  assert.ok(Math.abs(c - 2 * 0.4 * 0.995) < 0.01, `${c}`);
  assert.equal(await maxCpuOfApp(fx.db.client, plan, 'node-app'), null);
  const c3 = await maxCpuOfApp(fx.db.client, validatePlan({ ...raw, warmup: '3s' }), 'java-app');
  assert.ok(c3 > 2.5, `the 3 s warm-up round counts for a plan with that warm-up: ${c3}`);
});

test('a memory change is a change: the first round after `scale -m` is run again and left out', async () => {
  // The fake cf keeps the memory `scale APP -m NM -f` set; the fake round records it as run-round does.
  const mem = path.join(fx.dir, 'mem-app.memory');
  fs.writeFileSync(mem, '1024');
  const plan = writePlan('memchange', memoryVariantsPlan('mem-app'));
  const log = path.join(fx.dir, 'memchange.log');
  const r = run(plan, [], { FAKE_APP_MEMORY_FILE: mem, FAKE_RUN_ROUND_LOG: log });
  assert.equal(r.code, 0, r.stderr);
  // Sequential: mem128m twice, then mem1g twice; its first round follows the change 128 → 1024,
  // and so does the CPU quota the platform applied by default (memory in GB x 1 core).
  assert.deepEqual(calls(log).map((c) => c.label.split(':')[3]), ['mem128m', 'mem128m', 'mem1g', 'mem1g', 'mem1g']);
  assert.match(r.stderr, /exp:memchange:mem-app:mem1g:i1:l1:p1:rep1: round \d+ is the first after a change \(cpu_quota: 0\.125 → 1; memory_mb: 128 → 1024\): left out, running the step again/);
  assert.match(r.stderr, /1 step\(s\) run again after a change/);
});
