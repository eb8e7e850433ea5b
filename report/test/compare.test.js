// compare.test.js — scripts/compare.sh against a real PostgreSQL with the schema and
// synthetic rounds of known figures (helpers/synthetic.js): a 30 % faster variant is
// different on throughput and CPU per request and the same on latency; a twin is the same;
// three rounds a side are unknown; a flagged round is left out and named (--all keeps it); a password on the command line is refused; --simulate
// prints the false-alarm rate and power per round count and the count to run.
'use strict';
const assert = require('node:assert/strict');
const { after, before, test } = require('node:test');
const { runScript } = require('./helpers/cli.js');
const { stopOwnCluster, testDatabase } = require('./helpers/pg.js');
const { insertRound } = require('./helpers/synthetic.js');

let db;
const ids = {};

before(async () => {
  db = await testDatabase('compare');
  for (const [variant, f] of [['base', 1], ['fast', 1.3], ['twin', 1.01], ['flagged', 1]]) {
    ids[variant] = [];
    for (let rep = 1; rep <= 5; rep++) {
      ids[variant].push(await insertRound(db.client, {
        app: 'node-app', instances: 1, loadgens: 2, parallel: 1, label: `exp:cmp:node-app:${variant}:i1:l2:p1:rep${rep}`,
        requests: Math.round(1000 * f) + 4 * rep, latencyMs: 8, cpuPerInstance: 0.5,
      }));
    }
  }
  // A sixth round of 'flagged' with 10 samples: the report leaves it out (few samples).
  ids.flaggedOut = await insertRound(db.client, {
    app: 'node-app', instances: 1, loadgens: 2, parallel: 1, label: 'exp:cmp:node-app:flagged:i1:l2:p1:rep6',
    requests: 10, latencyMs: 8, cpuPerInstance: 0.5,
  });
});
after(async () => {
  await db.drop();
  stopOwnCluster();
});

/** compare.sh with the database in the environment, as it must be given. */
function compare(args) {
  return runScript('compare.sh', args, { RESULTS_DATABASE_URL: db.url, CFSCALE_RESULTS_URL: '' });
}

/** The verdict word of a metric's row. */
function verdictOf(stdout, metric) {
  const line = stdout.split('\n').find((l) => l.startsWith(metric));
  assert.ok(line, `no row for ${metric} in:\n${stdout}`);
  return /\s(same|different|unknown): /.exec(line)?.[1];
}

test('a 30 % faster variant: different throughput and CPU per request, the same latency; a twin: the same', () => {
  const r = compare(['--a', 'cmp:node-app:base', '--b', 'cmp:node-app:fast']);
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, new RegExp(`^A: 5 round\\(s\\) \\(${ids.base.join(', ')}\\)$`, 'm'));
  assert.match(r.stdout, /^metric\s+A\s+B\s+B\/A − 1 \(95 % CI\)\s+verdict$/m);
  assert.equal(verdictOf(r.stdout, 'throughput (req/s)'), 'different');
  assert.match(r.stdout, /^throughput \(req\/s\)\s+\d+(\.\d+)? ± \d+(\.\d+)? \(n = 5\)\s+\d+(\.\d+)? ± \S+ \(n = 5\)\s+\+(29|30|31)\.\d %/m);
  assert.equal(verdictOf(r.stdout, 'p50 latency (ms)'), 'same');
  assert.equal(verdictOf(r.stdout, 'p99 latency (ms)'), 'same');
  assert.equal(verdictOf(r.stdout, 'CPU per request (ms)'), 'different');
  const twin = compare(['--a', 'exp:cmp:node-app:base', '--b', ids.twin.join(',')]);
  assert.equal(twin.code, 0, twin.stderr);
  assert.equal(verdictOf(twin.stdout, 'throughput (req/s)'), 'same');
});

test('three rounds a side: unknown, with the engine\'s reason', () => {
  const [a, b] = [ids.base, ids.fast].map((x) => `${x[0]}-${x[2]}`);
  const r = compare(['--a', a, '--b', b]);
  assert.equal(r.code, 0, r.stderr);
  assert.equal(verdictOf(r.stdout, 'throughput (req/s)'), 'unknown');
  assert.match(r.stdout, /unknown: A: n = 3 < 5 rounds; B: n = 3 < 5 rounds/);
  // With the projection of the rounds that would decide it (lib/rounds-needed.js).
  assert.match(r.stdout, /unknown: .* \((≈ \d+|> \d+) rounds a side would decide it at this spread\)/);
});

test('a round with a bad validity flag is left out and named, as the study page does; --all keeps it', () => {
  const r = compare(['--a', 'cmp:node-app:base', '--b', 'cmp:node-app:flagged']);
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, new RegExp(`^B: 5 round\\(s\\) \\(${ids.flagged.join(', ')}\\)$`, 'm'));
  assert.match(r.stdout, new RegExp(`^B: round ${ids.flaggedOut} left out: only 10 sample\\(s\\) after the warm-up$`, 'm'));
  assert.match(r.stdout, /^throughput \(req\/s\).*\(n = 5\).*\(n = 5\)/m);
  const all = compare(['--a', 'cmp:node-app:base', '--b', 'cmp:node-app:flagged', '--all']);
  assert.equal(all.code, 0, all.stderr);
  assert.match(all.stdout, /^B: 6 round\(s\)/m);
  assert.doesNotMatch(all.stdout, /left out/);
});

test('usage: a password on --db, a selection of no round, --b missing: exit 1, one line', () => {
  const pw = compare(['--a', '1', '--b', '2', '--db', 'postgres://u:secret@127.0.0.1:1/x']);
  assert.equal(pw.code, 1);
  assert.match(pw.stderr, /^compare: --db must not carry a password/);
  assert.doesNotMatch(pw.stderr + pw.stdout, /secret/);
  const none = compare(['--a', 'cmp:java-app:base', '--b', 'cmp:node-app:fast']);
  assert.equal(none.code, 1);
  assert.match(none.stderr, /^compare: --a cmp:java-app:base matches no done round$/m);
  assert.equal(compare(['--a', '1']).code, 1);
});

test('--simulate: false alarms and power at n = 5, 8, 10 from the rounds\' spread, and the count to run', () => {
  const r = compare(['--a', 'cmp:node-app:base', '--simulate', '--trials', '300']);
  assert.equal(r.code, 0, r.stderr);
  for (const n of [5, 8, 10]) assert.match(r.stdout, new RegExp(`^${n}\\s+\\d+\\.\\d %\\s+\\d+\\.\\d %\\s+\\d+\\.\\d %$`, 'm'), r.stdout);
  // Rounds within 2 % of each other: a 15 % shift is always seen, nothing else ever is.
  assert.match(r.stdout, /^5\s+0\.0 %\s+100\.0 %\s+100\.0 %$/m, r.stdout);
  assert.match(r.stdout, /^recommended: 5 rounds a side \(the fewest with false alarms ≤ 5\.0 % and power ≥ 80\.0 %\)$/m);
});
