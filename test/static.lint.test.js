'use strict';
// static.lint.test.js — checks of the tracked source that ESLint does not make, run in the lint
// suite (test/run-suites.js):
// - every test, bench or fixture that gives a local platform a CFSCALE_HOME pins every port of
//   it (local-platform/lib/config.js PORT_VARIABLES, or ports.js platformPortEnv), so CI runs
//   beside a user's platform on the default ports; a file whose platform gets its ports from
//   elsewhere says so on a `platform-ports:` comment line;
// - every require names its file in a string literal, so a renamed file breaks lint, not a user;
// - requires run one way: in scripts/ by the layer map, report/ never into scripts/ (the plans it
//   reads are plans/), no module does anything when required, and only entry points exit;
// - every generated file (the shared modules' copies in the folders CF pushes, the tables
//   contract/readme-tables.js writes) matches its source.
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const { execFileSync } = require('node:child_process');
const { PORT_VARIABLES } = require('../local-platform/lib/config');

const ROOT = path.resolve(__dirname, '..');

function tracked(...patterns) {
  return execFileSync('git', ['ls-files', '-z', '--', ...patterns, ':(exclude)*/vendor/*'], { cwd: ROOT, encoding: 'utf8' })
    .split('\0').filter(Boolean);
}

const read = (f) => fs.readFileSync(path.join(ROOT, f), 'utf8');

/** Why a file that sets CFSCALE_HOME leaves a port to its default ([] when none). */
function unpinned(source) {
  const text = source.split('\n').filter((l) => !/^\s*\/\/(?! platform-ports:)/.test(l)).join('\n');
  // An env that sets CFSCALE_HOME (as `CFSCALE_HOME: …` or the shorthand `CFSCALE_HOME,`).
  if (!/(?<![.\w])CFSCALE_HOME\s*[:,}]/.test(text) || /platformPortEnv\(|^\s*\/\/ platform-ports: \S/m.test(text)) return [];
  return PORT_VARIABLES.filter((name) => !new RegExp(`\\b${name}\\b`).test(text));
}

test('every local platform a test, bench or fixture starts pins every port', () => {
  const files = tracked('*.test.js', '*.bench.js', 'bench/*.js', '*/bench/*.js', '*/test/*.js', '*/fixtures/*.js', 'test/*.js');
  assert.ok(files.length > 20, `only ${files.length} files`);
  const bad = files.filter((f) => f !== 'test/static.lint.test.js')
    .map((f) => [f, unpinned(read(f))]).filter(([, left]) => left.length).map(([f, left]) => `${f}: ${left.join(', ')}`);
  assert.deepEqual(bad, []);
});

test('the check sees a port left to its default', () => {
  assert.deepEqual(unpinned("env = { CFSCALE_HOME: h, CFSCALE_ROUTER_PORT: '1', CFSCALE_PG_PORT: '2' }"),
    ['CFSCALE_ROUTER_TLS_PORT', 'CFSCALE_API_PORT', 'CFSCALE_INSTANCE_PORT_BASE', 'CFSCALE_FRONT_PROXY_PORT_BASE']);
  assert.deepEqual(unpinned('env = { CFSCALE_HOME: h, ...platformPortEnv(\'e2e\') }'), []);
  assert.equal(unpinned('const ENV = { CFSCALE_HOME, CF_HOME: x }').length, 6, 'the shorthand too');
});

// require(x) where x is not a string literal; require.resolve(...) only finds a path, and
// require(${...}) is code a test writes for a child process.
const COMPUTED_REQUIRE = /(?<![.\w])require\((?!\s*['"`][^'"`$]*['"`]\s*\)|\$\{)/g;

test('every require names its file in a string literal', () => {
  const bad = [];
  for (const f of tracked('*.js')) {
    read(f).split('\n').forEach((line, i) => {
      if (/^\s*(\/\/|\*)/.test(line)) return; // a comment
      // Code written into a child process's -e argument is a string here.
      if (COMPUTED_REQUIRE.test(line.replace(/`[^`]*\$\{[^`]*`/g, '``'))) bad.push(`${f}:${i + 1}: ${line.trim()}`);
      COMPUTED_REQUIRE.lastIndex = 0;
    });
  }
  assert.deepEqual(bad, []);
});

// scripts/README.md "The map": each folder may require only the folders below it.
const SCRIPTS_LAYERS = ['ops', 'cf', 'parsers', 'round', 'experiment'];

test('scripts/: imports run one way, experiment → round → parsers → cf → ops', () => {
  const bad = [];
  for (const f of tracked('scripts/*/*.js')) {
    const [, folder] = f.split('/');
    const at = SCRIPTS_LAYERS.indexOf(folder);
    if (at < 0 || f.endsWith('.test.js')) continue;
    for (const m of read(f).matchAll(/require\('\.\.\/([a-z-]+)\//g)) {
      const to = SCRIPTS_LAYERS.indexOf(m[1]);
      if (to > at) bad.push(`${f} requires ${m[1]}/`);
    }
  }
  assert.deepEqual(bad, []);
});

// The parts below the runner: the report reads what the runner recorded and the plans it ran,
// never the runner itself; the plans are read by both; lib/ is shared by all.
const MAY_NOT_REQUIRE = [['report/', ['scripts/']], ['plans/', ['scripts/', 'report/']], ['lib/', ['scripts/', 'report/', 'plans/']],
  ['scripts/', ['report/']]];

/** The repository paths a file requires (relative requires only). */
function requiredPaths(f) {
  return [...read(f).matchAll(/require\(['"](\.{1,2}\/[^'"]+)['"]\)/g)].map((m) => path.posix.normalize(path.posix.join(path.posix.dirname(f), m[1])));
}

test('report/ requires nothing from scripts/, plans/ nothing from either, lib/ nothing of theirs', () => {
  const bad = [];
  for (const [part, banned] of MAY_NOT_REQUIRE) {
    for (const f of tracked(`${part}*.js`)) {
      for (const to of requiredPaths(f)) if (banned.some((b) => to.startsWith(b))) bad.push(`${f} requires ${to}`);
    }
  }
  assert.deepEqual(bad, []);
});

// Only a command's entry point (a file with a shebang, or one that runs when `require.main ===
// module`) ends the process: below it, a layer throws (lib/arg-table.js CliError) and returns.
const ENTRY_POINT = /^#!|require\.main === module/m;

test('no process.exit below the commands: in scripts/, lib/, report/ and plans/ only entry points exit', () => {
  const bad = tracked('scripts/*.js', 'lib/*.js', 'report/*.js', 'plans/*.js')
    .filter((f) => !/\.test\.js$|(^|\/)(test|test-support)\//.test(f))
    .filter((f) => /process\.exit\(/.test(read(f)) && !ENTRY_POINT.test(read(f)));
  assert.deepEqual(bad, []);
});

// Below the commands everything is asynchronous: a round runs as a function in a process that
// does other work meanwhile (its heartbeat, the collectors' pipes, the next round), so no layer
// blocks it on a child process or a sleep. A command's entry point may.
const BLOCKING = /\b(spawnSync|execFileSync|execSync|sleepSync)\b|Atomics\.wait\(/;

test('no spawnSync, execFileSync or synchronous sleep below the commands: in scripts/, lib/, report/ and plans/', () => {
  const bad = tracked('scripts/*.js', 'lib/*.js', 'report/*.js', 'plans/*.js')
    .filter((f) => !/\.test\.js$|(^|\/)(test|test-support)\//.test(f))
    .filter((f) => BLOCKING.test(read(f)) && !ENTRY_POINT.test(read(f)));
  assert.deepEqual(bad, []);
  assert.ok(BLOCKING.test("const { spawnSync } = require('node:child_process');") && BLOCKING.test('Atomics.wait(a, 0, 0, ms)'));
  assert.ok(!BLOCKING.test('await sleep(ms)'));
});

// A module does nothing when required: a statement at the top level of a file that moves the
// process, edits its environment or changes a library's global state belongs in a function
// that a command's entry point calls.
const REQUIRE_TIME_EFFECT = /^(process\.chdir\(|process\.env(\.\w+|\[[^\]]+\]) *=[^=]|\w+\.types\.setTypeParser\()/;

test('a module does nothing when required: no chdir, environment edit or global type parser at its top level', () => {
  const bad = [];
  for (const f of tracked('*.js')) {
    if (/\.test\.js$|(^|\/)test\//.test(f)) continue;
    read(f).split('\n').forEach((line, i) => { if (REQUIRE_TIME_EFFECT.test(line)) bad.push(`${f}:${i + 1}: ${line.trim()}`); });
  }
  assert.deepEqual(bad, []);
  assert.ok(REQUIRE_TIME_EFFECT.test('process.chdir(ROOT);') && REQUIRE_TIME_EFFECT.test('process.env.PATH = `${x}`;'));
  assert.ok(!REQUIRE_TIME_EFFECT.test('  process.chdir(ROOT);'), 'inside a function');
});

test('every generated file matches its source (node contract/readme-tables.js --write)', () => {
  const { generated } = require('../contract/readme-tables');
  const stale = generated().filter(([, current, wanted]) => current !== wanted).map(([file]) => path.relative(ROOT, file));
  assert.deepEqual(stale, []);
});

test('shared modules live once, in lib/: a copy elsewhere is a stamped one in a folder CF pushes', () => {
  const shared = fs.readdirSync(path.join(ROOT, 'lib')).filter((f) => f.endsWith('.js'));
  const copies = tracked(...shared.map((f) => `*/${f}`)).filter((f) => !f.startsWith('lib/'));
  for (const f of copies) {
    assert.match(f, /^(node-app|loadgen)\//, `${f}: a copy of lib/${path.basename(f)} outside the folders CF pushes: require lib/ instead`);
    assert.ok(read(f).startsWith(`// generated from lib/${path.basename(f)} `), `${f}: not stamped with its source`);
  }
  assert.deepEqual(copies.sort(), ['loadgen/lib/arg-table.js', 'loadgen/lib/bindings.js', 'node-app/bindings.js']);
});
