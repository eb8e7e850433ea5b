// readme-tables.js — what is generated from the contract's tables: the "Settings" table of
// contract/README.md and node-app/settings.json (a copy, because CF pushes node-app/ alone)
// from the settings spec (settings.json), the "Framing" table from framing-cases.js, and each
// app's copy of the `ads` statement of results-schema.sql (the one source of the DDL; an app
// cannot read a file outside what CF pushes: node-app/, or java-app's jar, which packs
// src/main/resources), and the copies of the shared modules (lib/) in the folders CF pushes
// alone: lib/bindings.js in node-app and the loadgen, lib/arg-table.js in the loadgen, each
// stamped with its source. `node contract/readme-tables.js --write` rewrites them;
// readme-tables.test.js and the lint suite fail when one is stale.
'use strict';

const fs = require('node:fs');
const path = require('node:path');

const SPEC_FILE = path.join(__dirname, 'settings.json');
const README_FILE = path.join(__dirname, 'README.md');
const NODE_COPY_FILE = path.join(__dirname, '..', 'node-app', 'settings.json');
const SCHEMA_FILE = path.join(__dirname, '..', 'results-schema.sql');
const ADS_COPY_FILES = [
  path.join(__dirname, '..', 'node-app', 'ads-table.sql'),
  path.join(__dirname, '..', 'java-app', 'src', 'main', 'resources', 'ads-table.sql'),
];
const ROOT = path.join(__dirname, '..');
// [the one source, its copies in the folders CF pushes], relative to the repository root.
const FILE_COPIES = [
  ['lib/bindings.js', ['node-app/bindings.js', 'loadgen/lib/bindings.js']],
  ['lib/arg-table.js', ['loadgen/lib/arg-table.js']],
];
/** A copy's text: the stamp that names its source, then the source. */
const stamped = (source, text) => `// generated from ${source} by node contract/readme-tables.js --write: edit ${source}\n${text}`;
const ADS_STATEMENT = /^CREATE TABLE IF NOT EXISTS ads \([^;]*^\);$/m;
const { CASES, answerText } = require('./framing-cases');
const { parseCommand, REQUIRED, cliExitCode } = require('../lib/arg-table');

const SETTINGS = ['<!-- settings table: generated from settings.json by readme-tables.js -->', '<!-- end of settings table -->'];
const FRAMING = ['<!-- framing table: generated from framing-cases.js by readme-tables.js -->', '<!-- end of framing table -->'];
const APPS = { both: 'both', node: 'node-app', java: 'java-app' };

function defaultCell(s) {
  if (s.type === 'text') return s.defaultText;
  if (s.type === 'choice') return `\`${s.choices[0]}\``;
  return `\`${s.default}\``;
}

function acceptedCell(s) {
  if (s.type === 'integer') {
    const range = `${s.min}–${s.max}${s.unit ? ` ${s.unit}` : ''}`;
    return s.notBelow ? `${range}, ≥ \`${s.notBelow}\`` : range;
  }
  if (s.type === 'boolean') return '`true` / `false`';
  if (s.type === 'choice') return s.choices.map((c) => `\`${c}\``).join(' / ');
  return 'text';
}

function settingsTable(spec) {
  const rows = spec.settings.map((s) => `| \`${s.name}\` | ${defaultCell(s)} | ${acceptedCell(s)} | ${APPS[s.apps]} | ${s.meaning} |`);
  return ['| variable | default | accepted | apps | meaning |', '|---|---|---|---|---|', ...rows];
}

function framingTable() {
  const cell = (t) => t.replace(/\|/g, '\\|');
  const rows = CASES.map((c) => `| ${c.family} | ${cell(c.name)} | ${answerText(c)} |`);
  return ['| family | case | answer (every variant) |', '|---|---|---|', ...rows];
}

/** README text with the block between `markers` replaced by `lines`. */
function withBlock(readme, [begin, end], lines) {
  const from = readme.indexOf(begin);
  const to = readme.indexOf(end);
  if (from < 0 || to < from) throw new Error(`contract/README.md: no "${begin}" … "${end}" block`);
  return readme.slice(0, from) + [begin, ...lines, end].join('\n') + readme.slice(to + end.length);
}

/** An app's copy of the ads statement: a line saying where it comes from, then the statement. */
function adsTableCopy(schema) {
  const m = ADS_STATEMENT.exec(schema);
  if (m === null) throw new Error('results-schema.sql: no "CREATE TABLE IF NOT EXISTS ads (" … ");" statement');
  return `-- Generated from results-schema.sql by \`node contract/readme-tables.js --write\`: edit it there.\n${m[0]}\n`;
}

const readOrEmpty = (file) => (fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : '');

/** [file, current text, wanted text] of every generated file. */
function generated() {
  const specText = fs.readFileSync(SPEC_FILE, 'utf8');
  const spec = JSON.parse(specText);
  const readme = fs.readFileSync(README_FILE, 'utf8');
  const wanted = withBlock(withBlock(readme, SETTINGS, settingsTable(spec)), FRAMING, framingTable());
  const adsTable = adsTableCopy(fs.readFileSync(SCHEMA_FILE, 'utf8'));
  return [
    [README_FILE, readme, wanted],
    [NODE_COPY_FILE, readOrEmpty(NODE_COPY_FILE), specText],
    ...ADS_COPY_FILES.map((file) => [file, readOrEmpty(file), adsTable]),
    ...FILE_COPIES.flatMap(([source, copies]) => {
      const text = stamped(source, fs.readFileSync(path.join(ROOT, source), 'utf8'));
      return copies.map((copy) => [path.join(ROOT, copy), readOrEmpty(path.join(ROOT, copy)), text]);
    }),
  ];
}

const USAGE = 'Usage: node contract/readme-tables.js --write';
const ABOUT = "Regenerate the README tables, node-app/settings.json, the apps' ads-table.sql and the module copies.";
const OPTIONS = [
  ['--write', 'write', 'bool', REQUIRED, 'write every generated file that differs'],
];

if (require.main === module) {
  try {
    parseCommand('readme-tables', process.argv.slice(2), { usage: USAGE, about: ABOUT, rows: OPTIONS });
  } catch (err) {
    process.exit(cliExitCode(err));
  }
  for (const [file, current, wanted] of generated()) {
    if (current !== wanted) { fs.writeFileSync(file, wanted); console.log(`wrote ${path.relative(process.cwd(), file)}`); }
  }
}

module.exports = { generated };
