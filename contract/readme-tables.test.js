// readme-tables.test.js — the settings spec is sound, and what is generated from the
// contract's tables (the README's Settings and Framing tables, node-app/settings.json) and
// from results-schema.sql (each app's ads-table.sql) is
// current. No app, no database.
//   node --test contract/readme-tables.test.js
'use strict';

const test = require('node:test');
const assert = require('node:assert/strict');
const path = require('node:path');
const spec = require('./settings.json');
const { generated } = require('./readme-tables');
const { appFilesProblems, nodeNameOf } = require('./app-files');

const TYPES = ['integer', 'boolean', 'choice', 'text'];
const APPS = ['both', 'node', 'java'];
const NAME_RE = /^[A-Z][A-Z0-9_]*$/;
const UNIT_SUFFIX = { _MS: 'ms', _BYTES: 'bytes' };

test('every setting is complete: name, apps, type, default inside its range, unit named by its suffix, meaning', () => {
  const problems = [];
  const byName = new Map(spec.settings.map((s) => [s.name, s]));
  if (byName.size !== spec.settings.length) problems.push('a name appears twice');
  for (const s of spec.settings) {
    const p = (m) => problems.push(`${s.name}: ${m}`);
    if (!NAME_RE.test(s.name)) p('name is not UPPER_SNAKE');
    if (!APPS.includes(s.apps)) p(`apps ${s.apps}`);
    if (!TYPES.includes(s.type)) p(`type ${s.type}`);
    if (typeof s.meaning !== 'string' || s.meaning === '') p('no meaning');
    if (typeof s.unit !== 'string') p('no unit field');
    for (const [suffix, unit] of Object.entries(UNIT_SUFFIX)) if (s.name.endsWith(suffix) && s.unit !== unit) p(`unit must be ${unit}`);
    if (s.type === 'integer') {
      if (![s.min, s.max, s.default].every(Number.isSafeInteger)) p('min, max, default must be integers');
      if (!(s.min <= s.default && s.default <= s.max)) p(`default ${s.default} outside ${s.min}..${s.max}`);
      if (s.max > 2147483647) p('max beyond a Java int');
      if (s.notBelow !== undefined) {
        const o = byName.get(s.notBelow);
        if (!o || o.type !== 'integer' || o.apps !== s.apps) p(`notBelow ${s.notBelow} is not an integer setting of the same apps`);
        else if (s.default < o.default || s.max < o.max) p(`default and max must be >= those of ${s.notBelow}`);
      }
    } else if (s.type === 'boolean') {
      if (typeof s.default !== 'boolean') p('default must be true or false');
    } else if (s.type === 'choice') {
      if (!Array.isArray(s.choices) || s.choices.length < 2) p('choices: at least two');
    } else if (s.type === 'text' && typeof s.defaultText !== 'string') {
      p('defaultText missing');
    }
  }
  assert.deepEqual(problems, []);
});

test('contract/README.md tables, node-app/settings.json, the apps\' ads-table.sql and the copies of lib/ in the pushed folders (bindings.js, arg-table.js) are generated (node contract/readme-tables.js --write)', () => {
  for (const [file, current, wanted] of generated()) {
    assert.ok(current === wanted, `${path.relative(path.join(__dirname, '..'), file)} is stale: run node contract/readme-tables.js --write`);
  }
});

test('the two apps pair file for file as the README table says (app-files.js)', () => {
  assert.equal(nodeNameOf('AdStore.java'), 'ad-store.js');
  assert.equal(nodeNameOf('ConfigException.java'), 'config-error.js');
  assert.deepEqual(appFilesProblems(), []);
});

test('app-files.js finds a file missing from the table, a row without a file, and names that differ without a reason', () => {
  const readme = require('node:fs').readFileSync(path.join(__dirname, 'README.md'), 'utf8');
  const broken = readme
    .replace('| `router.js` | `Router.java` | |\n', '')
    .replace('| `reply.js` | `Reply.java` | |', '| `reply.js` | `HttpError.java` | |')
    .replace('| `log.js` | — |', '| `logger.js` | — |');
  assert.deepEqual(appFilesProblems(broken).sort(), [
    'java-app/HttpError.java: in 2 rows of the table, not 1',
    'java-app/Reply.java: in 0 rows of the table, not 1',
    'java-app/Router.java: in 0 rows of the table, not 1',
    'node-app/log.js: in 0 rows of the table, not 1',
    'node-app/logger.js: in the table, not on disk',
    'node-app/router.js: in 0 rows of the table, not 1',
    'reply.js ↔ HttpError.java: the names differ (http-error.js expected) without a reason',
  ]);
});
