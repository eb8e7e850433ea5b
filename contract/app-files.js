// app-files.js — the two apps pair file for file: the README's "The two apps, file for file"
// table against the files on disk. Every app source file (node-app/*.js without tests,
// java-app's main classes) is in exactly one row; a pair's names agree (AdStore.java ↔
// ad-store.js, a Java Exception ↔ a JS Error) or the row says why not; a file one app alone
// has says why. readme-tables.test.js runs appFilesProblems().
'use strict';

const fs = require('node:fs');
const path = require('node:path');

const ROOT = path.join(__dirname, '..');
const README_FILE = path.join(__dirname, 'README.md');
const NODE_DIR = path.join(ROOT, 'node-app');
const JAVA_DIR = path.join(ROOT, 'java-app', 'src', 'main', 'java', 'cfscale', 'javaapp');
const MARKERS = ['<!-- app files table: checked against the files by app-files.js -->', '<!-- end of app files table -->'];
const NONE = '—';

/** The node-app file name a Java class pairs with by name: AdStore.java → ad-store.js. */
function nodeNameOf(javaFile) {
  const kebab = javaFile.replace(/\.java$/, '').replace(/(?<=[a-z0-9])(?=[A-Z])/g, '-').toLowerCase();
  return `${kebab.replace(/-exception$/, '-error')}.js`;
}

/** [{ node, java, note, line }] of the table rows (node/java: a file name, or null for —). */
function tableRows(readme) {
  const from = readme.indexOf(MARKERS[0]);
  const to = readme.indexOf(MARKERS[1]);
  if (from < 0 || to < from) throw new Error(`contract/README.md: no "${MARKERS[0]}" … "${MARKERS[1]}" block`);
  const cell = (c) => (c === NONE ? null : c.replace(/^`|`$/g, ''));
  return readme
    .slice(from + MARKERS[0].length, to)
    .split('\n')
    .filter((l) => l.startsWith('| ') && !l.startsWith('| node-app ') && !l.startsWith('|---'))
    .map((line) => {
      const [node, java, note] = line.split('|').slice(1, -1).map((c) => c.trim());
      return { node: cell(node), java: cell(java), note: note ?? '', line };
    });
}

function nodeSources() {
  return fs.readdirSync(NODE_DIR).filter((f) => f.endsWith('.js') && !f.endsWith('.test.js') && f !== 'test-support.js');
}

function javaSources() {
  return fs.readdirSync(JAVA_DIR).filter((f) => f.endsWith('.java'));
}

/** Every way the table and the files disagree, one line each (empty: they agree). */
function appFilesProblems(readme = fs.readFileSync(README_FILE, 'utf8')) {
  const problems = [];
  const rows = tableRows(readme);
  const sides = [
    ['node', 'node-app', nodeSources()],
    ['java', 'java-app', javaSources()],
  ];
  for (const [key, app, files] of sides) {
    const listed = rows.map((r) => r[key]).filter((f) => f !== null);
    for (const f of files) {
      const n = listed.filter((l) => l === f).length;
      if (n !== 1) problems.push(`${app}/${f}: in ${n} rows of the table, not 1`);
    }
    for (const f of new Set(listed)) if (!files.includes(f)) problems.push(`${app}/${f}: in the table, not on disk`);
  }
  for (const r of rows) {
    if (r.node === null && r.java === null) problems.push(`row without a file: ${r.line}`);
    else if (r.node === null || r.java === null) {
      if (r.note === '') problems.push(`${r.node ?? r.java}: one-sided without a reason`);
    } else if (nodeNameOf(r.java) !== r.node && r.note === '') {
      problems.push(`${r.node} ↔ ${r.java}: the names differ (${nodeNameOf(r.java)} expected) without a reason`);
    }
  }
  return problems;
}

module.exports = { appFilesProblems, nodeNameOf };
