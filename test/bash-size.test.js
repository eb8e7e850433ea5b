'use strict';
// bash-size.test.js — no tracked bash file (vendored code aside) is over 100 lines: bash is
// for thin entry points; past that, logic goes into Node, Java or Go (STYLE "Bash").
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const { execFileSync } = require('node:child_process');

const ROOT = path.resolve(__dirname, '..');
const MAX_LINES = 100;

test(`no tracked bash file is over ${MAX_LINES} lines`, () => {
  const files = execFileSync('git', ['ls-files', '-z', '--', '*.sh', '.ci/run', ':(exclude)*/vendor/*'], { cwd: ROOT, encoding: 'utf8' })
    .split('\0').filter(Boolean);
  assert.ok(files.length > 0, 'git ls-files found no bash file');
  const over = files.map((f) => [f, fs.readFileSync(path.join(ROOT, f), 'utf8').split('\n').length - 1])
    .filter(([, n]) => n > MAX_LINES).map(([f, n]) => `${f}: ${n} lines`);
  assert.deepEqual(over, []);
});
