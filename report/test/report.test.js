// The report from synthetic rounds in a real PostgreSQL: scripts/report.sh renders HTML,
// SVG and CSV, and the figures in them are the known answers of the synthetic model.
'use strict';
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const { test } = require('node:test');
const { runScript } = require('./helpers/cli.js');
const { testDatabaseAndDir } = require('./helpers/pg.js');
const { insertExperiment, insertRound } = require('./helpers/synthetic.js');
const { readCsv } = require('./helpers/csv.js');

let ids;
const fx = testDatabaseAndDir('report', 'cfscale-report-out-', async ({ db }) => {
  ids = await insertExperiment(db.client, 'synth');
});

const close = (a, b, tol, what) => assert.ok(Math.abs(Number(a) - b) <= tol, `${what}: ${a} vs ${b}`);

function report(args) {
  const r = runScript('report.sh', args, { CFSCALE_RESULTS_URL: fx.db.url });
  assert.equal(r.code, 0, r.stderr);
  return r;
}

test('the report renders HTML, one SVG per chart and the CSV tables', () => {
  const out = path.join(fx.dir, 'synth');
  const r = report(['--experiment', 'synth', '--out', out]);
  assert.equal(r.stdout.trim(), path.join(out, 'index.html'));
  const html = fs.readFileSync(path.join(out, 'index.html'), 'utf8');
  assert.ok(html.length > 800_000, 'the three Vega bundles are inlined');
  assert.ok(!/<script[^>]+src=/.test(html), 'no external scripts');
  assert.ok(!/https?:\/\/(?!vega\.github\.io\/schema|www\.w3\.org)/.test(html.replace(/<script>[\s\S]*?<\/script>/g, '')), 'no links outside the page');
  for (const chart of ['throughput-vs-load', 'latency-split-vs-load', 'throughput-at-full-core', 'throughput-vs-cpu',
    'memory-vs-throughput', 'scaling-efficiency', 'cpu-utilisation', 'latency-split', 'throughput-vs-loadgens', 'throughput-at-cpu-levels']) {
    const svg = fs.readFileSync(path.join(out, 'charts', `${chart}.svg`), 'utf8');
    assert.match(svg, /^<svg[^>]+xmlns="http:\/\/www\.w3\.org\/2000\/svg"/, chart);
    assert.ok((svg.match(/<path/g) || []).length > 5, `${chart} has marks`);
    assert.ok(html.includes(`id="chart-${chart}"`), `${chart} in the page`);
  }
  for (const csv of ['rounds', 'groups', 'comparisons', 'scaling-efficiency', 'cpu-utilisation', 'latency-split', 'environment', 'throughput-at-cpu']) {
    assert.ok(fs.statSync(path.join(out, 'csv', `${csv}.csv`)).size > 50, csv);
  }
  assert.equal(readCsv(path.join(out, 'csv', 'rounds.csv')).length, 24);
});

test('groups: n, means and Student t intervals are the known answers', () => {
  const groups = readCsv(path.join(fx.dir, 'synth', 'csv', 'groups.csv'));
  assert.equal(groups.length, 8);
  const g = groups.find((x) => x.app === 'java-app' && x.instances === '1' && x.loadgens === '2');
  assert.equal(g.n, '3');
  // Measured requests 280 + 7·rep over a span of (n − 1)·7.999/n s (warm-up 2 s of a 10 s round).
  const tput = [1, 2, 3].map((rep) => { const n = 280 + 7 * rep; return n / ((n - 1) * 7.999 / n); });
  const mean = tput.reduce((a, b) => a + b) / 3;
  const sd = Math.sqrt(tput.reduce((a, b) => a + (b - mean) ** 2, 0) / 2);
  close(g.throughput_rps, mean, 0.01, 'mean throughput');
  close(g.throughput_rps_ci_high - mean, 4.302653 * sd / Math.sqrt(3), 0.02, 'CI half width');
  close(g.mean_ms, 7 * 0.998, 0.05, 'mean latency excludes the 900 ms warm-up samples');
  close(g.cpu_used_pct, 30 * 0.995, 0.2, 'CPU % of one core');
  close(g.mem_mb, 300 * 0.995, 1, 'memory MiB');
  assert.equal(g.error_rate, '0');
});

test('comparisons: a real difference is significant, an equal p95 is within noise', () => {
  const cmp = readCsv(path.join(fx.dir, 'synth', 'csv', 'comparisons.csv'));
  assert.equal(cmp.length, 8, 'app comparison at 4 points × 2 metrics');
  for (const c of cmp) {
    assert.equal(c.changed, 'app');
    // At 4 loadgens repetition 3 had a saturated generator, java-app ×2 repetition 2 a crash.
    const n = c.loadgens === '2' ? ['3', '3'] : c.instances === '1' ? ['2', '2'] : ['1', '2'];
    assert.deepEqual([c.a_n, c.b_n], n, `n at ${c.instances}/${c.loadgens}`);
    const verdict = n.includes('1') ? 'not enough repetitions' : c.metric === 'throughput_rps' ? 'significant' : 'within noise';
    assert.equal(c.verdict, verdict, `${c.metric} at ${c.instances}/${c.loadgens}`);
  }
  const t = cmp.find((c) => c.metric === 'throughput_rps' && c.instances === '1' && c.loadgens === '2');
  close(t.diff_pct, 100 * (100 / 140 - 1), 1.5, 'node-app vs java-app');
});

test('rounds with a bad validity flag are excluded from the groups and listed', () => {
  const groups = readCsv(path.join(fx.dir, 'synth', 'csv', 'groups.csv'));
  const g = groups.find((x) => x.app === 'java-app' && x.instances === '2' && x.loadgens === '4');
  assert.equal(g.n, '1');
  assert.equal(g.excluded_rounds.split(' ').length, 2);
  assert.equal(g.rounds.split(' ').length, 1);
  const clean = groups.find((x) => x.app === 'java-app' && x.instances === '1' && x.loadgens === '2');
  assert.equal(clean.excluded_rounds, '');
});

test('scaling efficiency and CPU utilisation (Table 7.1)', () => {
  const eff = readCsv(path.join(fx.dir, 'synth', 'csv', 'scaling-efficiency.csv'));
  const e2 = eff.find((e) => e.app === 'node-app' && e.instances === '2');
  close(e2.efficiency, 1.6 / 2, 0.015, 'X(2) / 2 X(1)');
  assert.equal(e2.n, '2');
  assert.ok(Number(e2.ci_low) < Number(e2.efficiency) && Number(e2.ci_high) > Number(e2.efficiency));
  const cpu = readCsv(path.join(fx.dir, 'synth', 'csv', 'cpu-utilisation.csv'));
  const n2 = cpu.find((c) => c.app === 'node-app' && c.instances === '2');
  // Peak as the study took it: each instance's highest sample (jitter +2 %), summed.
  close(n2.max_cpu_used_pct, 2 * 80 * 1.02, 0.2, 'node ×2 at 4 loadgens, peak');
  close(n2.mean_cpu_used_pct, 2 * 80 * 0.995, 1, 'node ×2 at 4 loadgens, mean');
  close(n2.cpu_available_pct, 200, 0.01, 'two one-core quotas');
  assert.equal(n2.available_basis, 'quota');
  close(n2.utilisation_pct, 81.6, 0.1, 'utilisation');
  // The study's notion (one core per Node.js instance) and its own row, study Table 7.1.
  close(n2.study_available_pct, 200, 0.01, 'study: 1 core per Node.js instance');
  assert.deepEqual([n2.published_max_cpu_pct, n2.published_available_pct, n2.published_utilisation_pct], ['198', '200', '99']);
  // Java: the synthetic rounds record no host cores, so the study's 4 per cell is assumed and said.
  const j1 = cpu.find((c) => c.app === 'java-app' && c.instances === '1');
  close(j1.study_available_pct, 400, 0.01, 'study: 4 cores per Java instance');
  assert.match(j1.study_basis, /assumed 4 cores per cell \(study §7\.2\)/);
  assert.deepEqual([j1.published_max_cpu_pct, j1.published_utilisation_pct], ['229', '57']);
  const html = fs.readFileSync(path.join(fx.dir, 'synth', 'index.html'), 'utf8');
  assert.match(html, /<b>Assumption:<\/b> the cell's cores are not known .*: assumed 4 cores per cell \(study §7\.2\)/);
});

test('validity flags: saturated generator, restarts, late sends, errors, no warm-up, stats samples lost', async () => {
  const rounds = readCsv(path.join(fx.dir, 'synth', 'csv', 'rounds.csv'));
  const byId = new Map(rounds.map((r) => [Number(r.round), r]));
  const crash = rounds.find((r) => r.label === 'exp:synth:java-app:default:i2:l4:p1:rep2');
  assert.equal(crash.trusted, 'false');
  assert.match(crash.flags, /1 instance crash\/restart event/);
  const sat = rounds.find((r) => r.label === 'exp:synth:node-app:default:i1:l4:p1:rep3');
  assert.match(sat.flags, /generator saturated: loadgen CPU 95\.0 %/);
  assert.equal(byId.get(ids[0]).trusted, 'true');
  assert.equal(byId.get(ids[0]).flags, '');
  // A round with late sends, errors and no warm-up, selected by --rounds.
  const bad = await insertRound(fx.db.client, { app: 'node-app', instances: 1, loadgens: 2, rate: 50, label: 'manual', requests: 100,
    late: 20, errorEvery: 10, warmupMs: 0 });
  const out = path.join(fx.dir, 'single');
  report(['--rounds', `${bad}`, '--out', out]);
  const [r] = readCsv(path.join(out, 'csv', 'rounds.csv'));
  assert.equal(r.trusted, 'false');
  assert.match(r.flags, /open model: 40\.0 % sent late/);
  // With no warm-up the 20 early requests count too: 10 errors in 120 samples.
  assert.match(r.flags, /error rate 8\.3 %/);
  // No warm-up is often on purpose: said once in the method, not as a flag on every round.
  assert.doesNotMatch(r.flags, /warm-up/);
  assert.match(fs.readFileSync(path.join(out, 'index.html'), 'utf8'), new RegExp(`1 round\\(s\\) ran without one .*\\n?.*round ${bad}\\)`));
  // A generator that joined late: 10 samples 0.24 s apart (first to last 2.2 s) in 30 % of 8 s.
  const late = await insertRound(fx.db.client, { app: 'java-app', instances: 1, loadgens: 1, parallel: 1, label: 'late join', requests: 10, coverage: 0.3 });
  const out2 = path.join(fx.dir, 'late');
  report(['--rounds', `${late}`, '--out', out2]);
  const [l] = readCsv(path.join(out2, 'csv', 'rounds.csv'));
  assert.match(l.flags, /only 10 sample\(s\) after the warm-up/);
  assert.match(l.flags, /samples cover 2\.2 s of the 8\.0 s measured/);
  assert.equal(readCsv(path.join(out2, 'csv', 'groups.csv'))[0].n, '0', 'excluded from its group');
  // Stats samples lost: 4 per instance in the 8 s measured window where the recorded interval
  // of 1.25 s expects 5 (6, less one for an edge); a warning (CPU and memory figures thin), the
  // round stays in its group. At 1.6 s, 4 are expected: none lost.
  const stats = (intervalS) => ({ environment: { stats_source: 'v3', stats_interval_s: intervalS } });
  const thin = await insertRound(fx.db.client, { app: 'node-app', instances: 2, loadgens: 1, parallel: 1, label: 'thin stats', columns: stats(1.25) });
  const full = await insertRound(fx.db.client, { app: 'node-app', instances: 2, loadgens: 1, parallel: 1, label: 'full stats', columns: stats(1.6) });
  const out3 = path.join(fx.dir, 'stats');
  report(['--rounds', `${thin},${full}`, '--out', out3]);
  const statsRows = new Map(readCsv(path.join(out3, 'csv', 'rounds.csv')).map((x) => [x.label, x]));
  assert.match(statsRows.get('thin stats').flags, /8 of 10 expected stats samples \(one per 1\.25 s per instance\)/);
  assert.equal(statsRows.get('thin stats').trusted, 'true');
  assert.doesNotMatch(statsRows.get('full stats').flags, /stats samples/);
  const env = readCsv(path.join(out, 'csv', 'environment.csv'));
  assert.equal(env[0].platform, 'local');
  assert.equal(env[0].git_rev, 'abc1234');
  assert.deepEqual(JSON.parse(env[0].environment), { host_cpu: { cells: { sut_cpus: '1', harness_cpus: '0', sut_busy: 0.5, harness_busy: 0.5 } }, cpu_per_gb: 1 });
});

test('placement: the cells of app instances and loadgens; a loadgen on an app cell is flagged on CF; CF cannot see the router', async () => {
  const cf = await insertRound(fx.db.client, { app: 'java-app', instances: 2, loadgens: 2, parallel: 1, label: 'placed cf', columns: { platform: 'cf' } });
  const local = await insertRound(fx.db.client, { app: 'java-app', instances: 2, loadgens: 2, parallel: 1, label: 'placed local',
    columns: { environment: { host_cpus: 2, router_cpu_cores: 0.123 } } });
  await fx.db.client.query(`UPDATE instance_stats SET host = CASE WHEN instance_index = 0 THEN '10.0.4.12' ELSE '10.0.4.13' END
    WHERE round_id = ANY($1)`, [[cf, local]]);
  await fx.db.client.query(`UPDATE loadgen_runs SET host = CASE WHEN instance_index = 0 THEN '10.0.4.13' ELSE '10.0.4.99' END
    WHERE round_id = ANY($1)`, [[cf, local]]);
  const out = path.join(fx.dir, 'placement');
  report(['--rounds', `${cf},${local}`, '--out', out]);
  const rows = new Map(readCsv(path.join(out, 'csv', 'rounds.csv')).map((x) => [x.label, x]));
  for (const label of ['placed cf', 'placed local']) {
    assert.equal(rows.get(label).app_hosts, '10.0.4.12 10.0.4.13');
    assert.equal(rows.get(label).loadgen_hosts, '10.0.4.13 10.0.4.99');
  }
  assert.match(rows.get('placed cf').flags, /a loadgen ran on the cell of an app instance \(10\.0\.4\.13\)/);
  assert.equal(rows.get('placed cf').trusted, 'true', 'a warning');
  assert.doesNotMatch(rows.get('placed local').flags, /cell/, 'locally everything shares the machine');
  const html = fs.readFileSync(path.join(out, 'index.html'), 'utf8');
  assert.match(html, /<b>Router load\.<\/b> Study §7\.3 stopped scaling Java when the router reached its limit \(70 % load\)\. On Cloud Foundry/);
  // Locally the router's own cgroup gives its CPU per round (run-round: environment.router_cpu_cores).
  assert.equal(rows.get('placed local').router_cpu_cores, '0.123');
  assert.equal(rows.get('placed cf').router_cpu_cores, '');
  assert.match(html, /On CF an app's database is a service instance only the\napp reaches, so its PostgreSQL server version is not recorded for CF rounds/);
  assert.match(html, /Scale-until-SLO stops when it reaches <code>scale\.routerLoad<\/code>\n\(70 %, the study's\) of 1 core\(s\) \(the router's cgroup has no quota\)/);
  assert.match(html, new RegExp(`<b>Router load \\(local\\)\\.</b> The local router \\(HAProxy, in its own cgroup\\) used at most\\n0\\.123 cores .*\\(round ${local};`));
  assert.doesNotMatch(fs.readFileSync(path.join(fx.dir, 'synth', 'index.html'), 'utf8'), /Router load/, 'no router figure, no CF round: nothing to say');
  assert.doesNotMatch(fs.readFileSync(path.join(fx.dir, 'synth', 'index.html'), 'utf8'), /App databases on Cloud Foundry/, 'no CF round');
});

test('report.sh: selections and usage errors', () => {
  const cases = [
    [['--help'], 0, /Usage: scripts\/report.sh/],
    [['--rounds', '1,x'], 1, /--rounds must be ids and ranges/],
    [['--rounds', '5-2'], 1, /backwards/],
    [['--rounds', '1', '--experiment', 'synth'], 1, /not both/],
    [['--experiment', 'nope'], 1, /no rounds match --experiment nope/, fx.db.url],
    [[], 1, /cannot reach the results database/, 'postgres://x@127.0.0.1:1/x'],
    // The URL holds a password: never a flag, so no command line carries it.
    [['--db', 'postgres://x@127.0.0.1:1/x'], 1, /unknown option: --db/],
    [['--color'], 1, /unknown option: --color/],
  ];
  for (const [args, code, re, url = ''] of cases) {
    const r = runScript('report.sh', args, { CFSCALE_RESULTS_URL: url });
    assert.equal(r.code, code, `${args.join(' ')}: ${r.stderr}`);
    assert.match(code === 0 ? r.stdout : r.stderr, re, args.join(' '));
  }
  const out = path.join(fx.dir, 'range');
  report(['--rounds', `${ids[0]}-${ids[3]}`, '--out', out]);
  assert.equal(readCsv(path.join(out, 'csv', 'rounds.csv')).length, 4);
});
