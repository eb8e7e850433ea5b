// settings-table.js — what is generated from the settings spec (settings.json): the
// "Settings" table of contract/README.md and node-app/settings.json (a copy, because CF
// pushes node-app/ alone). `node contract/settings-table.js --write` rewrites both;
// settings-table.test.js fails when either is stale.
'use strict';

const fs = require('node:fs');
const path = require('node:path');

const SPEC_FILE = path.join(__dirname, 'settings.json');
const README_FILE = path.join(__dirname, 'README.md');
const NODE_COPY_FILE = path.join(__dirname, '..', 'node-app', 'settings.json');
const BEGIN = '<!-- settings table: generated from settings.json by settings-table.js -->';
const END = '<!-- end of settings table -->';
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

/** The Markdown table, markers included. */
function settingsTable(spec) {
  const rows = spec.settings.map((s) => `| \`${s.name}\` | ${defaultCell(s)} | ${acceptedCell(s)} | ${APPS[s.apps]} | ${s.meaning} |`);
  return [BEGIN, '| variable | default | accepted | apps | meaning |', '|---|---|---|---|---|', ...rows, END].join('\n');
}

/** README text with its table replaced by the one generated from spec. */
function withTable(readme, spec) {
  const from = readme.indexOf(BEGIN);
  const to = readme.indexOf(END);
  if (from < 0 || to < from) throw new Error(`contract/README.md: no "${BEGIN}" … "${END}" block`);
  return readme.slice(0, from) + settingsTable(spec) + readme.slice(to + END.length);
}

/** [file, current text, wanted text] of every generated file. */
function generated() {
  const specText = fs.readFileSync(SPEC_FILE, 'utf8');
  const spec = JSON.parse(specText);
  const readme = fs.readFileSync(README_FILE, 'utf8');
  const copy = fs.existsSync(NODE_COPY_FILE) ? fs.readFileSync(NODE_COPY_FILE, 'utf8') : '';
  return [[README_FILE, readme, withTable(readme, spec)], [NODE_COPY_FILE, copy, specText]];
}

if (require.main === module) {
  if (process.argv[2] !== '--write') {
    console.error('usage: node contract/settings-table.js --write   (regenerate README table and node-app/settings.json)');
    process.exit(1);
  }
  for (const [file, current, wanted] of generated()) {
    if (current !== wanted) { fs.writeFileSync(file, wanted); console.log(`wrote ${path.relative(process.cwd(), file)}`); }
  }
}

module.exports = { settingsTable, withTable, generated, BEGIN, END };
