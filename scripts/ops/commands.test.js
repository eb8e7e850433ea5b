'use strict';
// commands.test.js — every command of the repository reads its flags from one table
// (arg-table.js): --help prints the usage on stdout and exits 0, an unknown flag is one line on
// stderr naming it, exit 1, nothing on stdout. Cheap: no platform, no database, nothing runs.
const test = require('node:test');
const assert = require('node:assert/strict');
const path = require('node:path');
const { spawnSync } = require('node:child_process');

const ROOT = path.resolve(__dirname, '../..');

// [the command (repository path), arguments before the flags (a verb, or what skips a setup)].
const COMMANDS = [
  ['loadgen/bin/loadgen.js', []],
  ['scripts/push.sh', []],
  ['scripts/scale.sh', []],
  ['scripts/teardown.sh', []],
  ['scripts/rounds.sh', []],
  ['scripts/collect-stats.sh', []],
  ['scripts/collect-logs.sh', []],
  ['scripts/run-round.sh', []],
  ['scripts/tunnel.sh', []],
  ['scripts/report.sh', []],
  ['scripts/run-experiment.sh', []],
  ['scripts/test.sh', ['--no-setup']],
  ['scripts/pg-cluster.sh', ['start']],
  ['scripts/cfl', ['status']],
  ['scripts/cf/tunnel-info.js', []],
  ['scripts/parsers/ingest-stats.js', []],
  ['scripts/parsers/ingest-rtr.js', []],
  ['scripts/parsers/ingest-events.js', []],
  ['test/round-overhead.bench.js', []],
  ['scripts/parsers/bench-parsers.js', []],
  ['contract/run.sh', []],
  ['contract/readme-tables.js', []],
  ['bench/apps/settings.sh', []],
  ['bench/apps/throughput.sh', []],
  ['bench/apps/measure.js', []],
  ['bench/apps/timings-flush.js', []],
  ['bench/rounds/repeatability.sh', []],
  ['bench/rounds/cfs-period.sh', []],
  ['local-platform/bench/router.js', []],
  ['local-platform/bench/cf-push.js', []],
];

function run(file, args) {
  const argv = file.endsWith('.js') ? [process.execPath, path.join(ROOT, file), ...args] : [path.join(ROOT, file), ...args];
  const r = spawnSync(argv[0], argv.slice(1), { cwd: ROOT, encoding: 'utf8', timeout: 30000, env: { ...process.env, DRY_RUN: '' } });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

for (const [file, verb] of COMMANDS) {
  test(`${file}: --help prints the usage, exit 0`, () => {
    const r = run(file, [...verb, '--help']);
    assert.equal(r.code, 0, r.err);
    assert.match(r.out, /^Usage:/m);
    assert.equal(r.err, '');
  });

  test(`${file}: an unknown flag is one line naming it, exit 1`, () => {
    const r = run(file, [...verb, '--no-such-flag']);
    assert.equal(r.code, 1, r.err);
    assert.equal(r.out, '');
    assert.match(r.err, /unknown option: --no-such-flag/);
    assert.equal(r.err.trimEnd().split('\n').length, 1, r.err);
  });
}
