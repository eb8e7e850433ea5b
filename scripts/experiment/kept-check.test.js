// Every figure and table of the study has a plan: `scripts/run-experiment.sh --list` names a shipped plan for
// every figure and table of the study, the keep-alive finding (§5.2.3) and the Jetty thread
// sweep (§6.2). A plan that stops regenerating one of them fails here. And --list's lines.
'use strict';
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const { spawnSync } = require('node:child_process');
const { test } = require('node:test');

const RUN_EXPERIMENT = path.join(__dirname, '..', 'run-experiment.sh');
const EXPERIMENTS = path.join(__dirname, '../../experiments');

const KEPT = ['Fig. 3.1', 'Fig. 4.3', 'Fig. 6.2', 'Fig. 6.3', 'Fig. 7.1', 'Fig. 7.2', 'Fig. 7.3', 'Fig. 7.4', 'Fig. 7.5',
  'Fig. 7.6', 'Fig. 7.7', 'Table 7.1', '§5.2.3 keep-alive finding', '§6.2 Jetty thread sweep'];

test('run-experiment.sh --list names every figure and table of the study, the keep-alive finding and the Jetty sweep', () => {
  const r = spawnSync(RUN_EXPERIMENT, ['--list'], { encoding: 'utf8', timeout: 120_000 });
  assert.equal(r.status, 0, r.stderr);
  // Each line: file, "study A, B, C" (or -), (description).
  const named = new Set(r.stdout.trim().split('\n').flatMap((l) => {
    const m = /^\S+\s+study (.+?)\s+\(.*\)$/.exec(l);
    return m ? m[1].split(', ') : [];
  }));
  for (const item of KEPT) assert.ok(named.has(item), `no shipped plan regenerates ${item}:\n${r.stdout}`);
});

test('--list prints each shipped plan with what it regenerates; a plan beside it is a usage error', () => {
  const r = spawnSync(RUN_EXPERIMENT, ['--list'], { encoding: 'utf8', timeout: 120_000 });
  assert.equal(r.status, 0, r.stderr);
  const lines = r.stdout.trim().split('\n');
  assert.equal(lines.length, fs.readdirSync(EXPERIMENTS).filter((f) => /\.ya?ml$/.test(f)).length);
  assert.match(lines.find((l) => l.startsWith('experiments/pool-size.yml ')), /^experiments\/pool-size\.yml +study Fig\. 6\.2, Fig\. 6\.3 +\(database connection pool/);
  assert.match(lines.find((l) => l.startsWith('experiments/ci-tiny.yml ')), /^experiments\/ci-tiny\.yml +- +\(/);
  assert.equal(spawnSync(RUN_EXPERIMENT, ['--list', 'x.yml'], { encoding: 'utf8', timeout: 120_000 }).status, 1);
});
