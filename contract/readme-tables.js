// readme-tables.js — what is generated from the contract's tables: the "Settings" table of
// contract/README.md and node-app/settings.json (a copy, because CF pushes node-app/ alone)
// from the settings spec (settings.json), and the "Framing" table from framing-cases.js.
// `node contract/readme-tables.js --write` rewrites them; readme-tables.test.js fails when
// one is stale.
'use strict';

const fs = require('node:fs');
const path = require('node:path');

const SPEC_FILE = path.join(__dirname, 'settings.json');
const README_FILE = path.join(__dirname, 'README.md');
const NODE_COPY_FILE = path.join(__dirname, '..', 'node-app', 'settings.json');
const { CASES, answerText } = require('./framing-cases');

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

/** [file, current text, wanted text] of every generated file. */
function generated() {
  const specText = fs.readFileSync(SPEC_FILE, 'utf8');
  const spec = JSON.parse(specText);
  const readme = fs.readFileSync(README_FILE, 'utf8');
  const copy = fs.existsSync(NODE_COPY_FILE) ? fs.readFileSync(NODE_COPY_FILE, 'utf8') : '';
  const wanted = withBlock(withBlock(readme, SETTINGS, settingsTable(spec)), FRAMING, framingTable());
  return [[README_FILE, readme, wanted], [NODE_COPY_FILE, copy, specText]];
}

if (require.main === module) {
  if (process.argv[2] !== '--write') {
    console.error('usage: node contract/readme-tables.js --write   (regenerate the README tables and node-app/settings.json)');
    process.exit(1);
  }
  for (const [file, current, wanted] of generated()) {
    if (current !== wanted) { fs.writeFileSync(file, wanted); console.log(`wrote ${path.relative(process.cwd(), file)}`); }
  }
}

module.exports = { generated };
