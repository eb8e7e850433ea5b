'use strict';
// Facts live in the repository: no tracked file may cite a path outside it (the notes and
// the study the code was first written from are not in the clone), and every
// `docs/cf-platform.md §N` cited anywhere must name a section that exists (docs/README.md).

const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const { execFileSync } = require('node:child_process');

const ROOT = path.resolve(__dirname, '..');
const SELF = path.relative(ROOT, __filename);
const PLATFORM_DOC = 'docs/cf-platform.md';
// Paths that only exist on the machine the code was written on; joined from parts, so that
// this file does not cite them either.
const OUTSIDE_PATHS = [['shared', 'reference'].join('/'), ['..', 'shared'].join('/'), ['', 'work', ''].join('/'),
  ['cloud-foundry', 'contracts'].join('-')];
// `docs/cf-platform.md §3`, `docs/cf-platform.md` §1, `docs/cf-platform.md §3, §4 and §8`.
const DOC_CITATION_RE = /docs\/cf-platform\.md`?((?:(?:\s*,\s*|\s+and\s+|\s+)§\s*\d+)+)/g;
const HEADING_RE = /^## §(\d+) /gm;

/** Tracked text files, relative to the repository root. */
function trackedTextFiles() {
  const out = execFileSync('git', ['ls-files', '-z'], { cwd: ROOT, encoding: 'utf8' });
  return out.split('\0').filter(Boolean).filter((f) => {
    const abs = path.join(ROOT, f);
    if (!fs.existsSync(abs) || !fs.statSync(abs).isFile()) return false;
    return !fs.readFileSync(abs).subarray(0, 8000).includes(0);
  });
}

function lineOf(text, index) {
  return text.slice(0, index).split('\n').length;
}

test('no tracked file cites a path outside the repository', () => {
  const hits = [];
  for (const file of trackedTextFiles()) {
    if (file === SELF) continue;
    const text = fs.readFileSync(path.join(ROOT, file), 'utf8');
    for (const p of OUTSIDE_PATHS) {
      for (let i = text.indexOf(p); i !== -1; i = text.indexOf(p, i + 1)) hits.push(`${file}:${lineOf(text, i)}: ${p}`);
    }
  }
  assert.deepEqual(hits, [], `cite docs/cf-platform.md §N or "study §N" instead:\n${hits.join('\n')}`);
});

test(`${PLATFORM_DOC} numbers its sections §1, §2, … without gaps`, () => {
  const doc = fs.readFileSync(path.join(ROOT, PLATFORM_DOC), 'utf8');
  const numbers = [...doc.matchAll(HEADING_RE)].map((m) => Number(m[1]));
  assert.ok(numbers.length > 0, `${PLATFORM_DOC} has no "## §N" headings`);
  assert.deepEqual(numbers, numbers.map((_, i) => i + 1));
});

test(`every ${PLATFORM_DOC} §N cited in the tree is a section of it`, () => {
  const doc = fs.readFileSync(path.join(ROOT, PLATFORM_DOC), 'utf8');
  const sections = new Set([...doc.matchAll(HEADING_RE)].map((m) => Number(m[1])));
  const missing = [];
  let cited = 0;
  for (const file of trackedTextFiles()) {
    const text = fs.readFileSync(path.join(ROOT, file), 'utf8');
    for (const m of text.matchAll(DOC_CITATION_RE)) {
      for (const n of m[1].match(/\d+/g).map(Number)) {
        cited++;
        if (!sections.has(n)) missing.push(`${file}:${lineOf(text, m.index)}: §${n}`);
      }
    }
    // The document's own cross-references, "(§2)", "§11".
    if (file === PLATFORM_DOC) {
      for (const m of text.matchAll(/§(\d+)/g)) {
        if (!sections.has(Number(m[1]))) missing.push(`${file}:${lineOf(text, m.index)}: §${m[1]}`);
      }
    }
  }
  assert.ok(cited > 0, `no citation of ${PLATFORM_DOC} §N found: the pattern no longer matches`);
  assert.deepEqual(missing, [], `no such section in ${PLATFORM_DOC}:\n${missing.join('\n')}`);
});
