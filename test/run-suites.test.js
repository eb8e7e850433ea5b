'use strict';
// run-suites.test.js — scripts/test.sh's face: --list names every suite in order, --help
// shows every flag, and bad usage is one line and exit 1, all without setup or a cluster; a
// suite stopped with the runner leaves no process of it behind.
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { spawnSync } = require('node:child_process');
const { SUITES, runSuite, stopSuites } = require('./run-suites');

const TEST_SH = path.resolve(__dirname, '..', 'scripts', 'test.sh');
const run = (args) => spawnSync(TEST_SH, args, { encoding: 'utf8' });

test('--list prints the suites in order, one a line', () => {
  const r = run(['--list']);
  assert.equal(r.status, 0, r.stderr);
  assert.deepEqual(r.stdout.trim().split('\n'), SUITES.map(([name]) => name));
});

test('--help names every flag', () => {
  const r = run(['--help']);
  assert.equal(r.status, 0, r.stderr);
  for (const flag of ['--no-setup', '--only', '--lanes', '--list', '--help']) assert.match(r.stdout, new RegExp(`^  (-h, |    )${flag}`, 'm'));
});

for (const [args, message] of [[['--no-setup', '--bogus'], 'unknown option: --bogus'], [['--no-setup', '--only', 'nope'], 'unknown suite: nope'],
  [['--no-setup', '--only'], '--only needs a value']]) {
  test(`${args.join(' ')}: exit 1, one line`, () => {
    const r = run(args);
    assert.equal(r.status, 1);
    assert.match(r.stderr, new RegExp(`^test: ${message}`));
    assert.equal(r.stderr.trim().split('\n').length, 1, r.stderr);
  });
}

test('stopSuites: a running suite and what it started end (its whole process group)', { timeout: 10_000 }, async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cfscale-suite-stop-'));
  const pidFile = path.join(dir, 'grandchild.pid');
  // A suite whose command leaves a process of its own in the background, as a test's platform does.
  const done = runSuite(`sleep 60 & echo $! > ${pidFile}; wait`, path.join(dir, 'log'));
  while (!fs.existsSync(pidFile) || !fs.readFileSync(pidFile, 'utf8').trim()) await new Promise((r) => setTimeout(r, 20));
  const grandchild = Number(fs.readFileSync(pidFile, 'utf8'));
  stopSuites();
  assert.equal(await done, false);
  const alive = () => { try { process.kill(grandchild, 0); return true; } catch { return false; } };
  for (let i = 0; i < 100 && alive(); i++) await new Promise((r) => setTimeout(r, 20));
  assert.equal(alive(), false, `the suite's background process ${grandchild} outlived it`);
  fs.rmSync(dir, { recursive: true, force: true });
});
