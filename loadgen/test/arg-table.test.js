'use strict';
// arg-table.test.js — the flag-table engine every cfscale command uses: values by type,
// defaults, ranges, aliases, positionals, "--", and the one-line messages that name the flag as
// typed; the help's columns and defaults; parseCommand's CliError and the exit codes an entry
// point gives it (in a child process).
const test = require('node:test');
const assert = require('node:assert');
const path = require('node:path');
const { spawnSync } = require('node:child_process');
const { parse, help, note, REQUIRED } = require('../lib/arg-table');

const ROWS = [
  ['--app APP', 'app', 'str', REQUIRED, 'the app'],
  ['--instances N', 'instances', 'int', 1, 'instances', [1]],
  ['--seed N', 'seed', 'int', 0, 'seed', [0]],
  ['--port N', 'port', 'int', undefined, 'port', [1, 65535]],
  ['--requests', 'requests', 'count', undefined, 'requests'],
  ['--rate', 'rate', 'num', undefined, 'rate'],
  ['--timeout', 'timeoutMs', 'dur', '10s', 'timeout'],
  ['--warmup', 'warmupMs', 'dur', note('the gate decides'), 'warm-up'],
  ['--source S', 'source', 'str', 'auto', 'source', ['plugin', 'v3', 'auto']],
  ['--header', 'headers', 'list', undefined, 'headers'],
  ['--dry-run', 'dryRun', 'bool', false, 'dry run'],
  ['--help', 'help', 'bool', '', 'this help'],
];
const ALIASES = { '-i': '--instances', '-h': '--help' };
const base = ['--app', 'a'];

test('values by type, defaults applied, notes and undefined leave no value', () => {
  const o = parse([...base, '-i', '3', '--requests=2.5k', '--rate', '0.5', '--warmup', '2m', '--header', 'A: 1', '--header', 'B: 2',
    '--dry-run', '--port', '8080'], ROWS, { aliases: ALIASES });
  assert.deepStrictEqual(o, {
    _: [], app: 'a', instances: 3, requests: 2500, rate: 0.5, warmupMs: 120000, headers: ['A: 1', 'B: 2'], dryRun: true, port: 8080,
    seed: 0, timeoutMs: 10000, source: 'auto',
  });
  const d = parse(base, ROWS, { aliases: ALIASES });
  assert.strictEqual(d.warmupMs, undefined);
  assert.strictEqual(d.port, undefined);
  assert.strictEqual(d.dryRun, false);
  assert.deepStrictEqual(d.headers, []);
});

test('--help short-cuts the checks; positionals up to the allowed count; "--" hands the rest over', () => {
  assert.deepStrictEqual(parse(['-h'], ROWS, { aliases: ALIASES }), { help: true, _: [] });
  assert.deepStrictEqual(parse([...base, 'x', 'y'], ROWS, { positionals: 2 })._, ['x', 'y']);
  assert.deepStrictEqual(parse([...base, '--', '--steady-window', '5s'], ROWS, { rest: 'extra' }).extra, ['--steady-window', '5s']);
});

const BAD = [
  [[], '--app is required'],
  [[...base, '--bogus'], 'unknown option: --bogus'],
  [[...base, 'extra'], 'unexpected argument: extra'],
  [[...base, '--'], 'unknown option: --'],
  [[...base, '-i'], '-i needs a value'],
  [[...base, '-i', '0'], '-i must be a positive integer, got "0"'],
  [[...base, '--instances', '1.5'], '--instances must be a positive integer, got "1.5"'],
  [[...base, '--seed', '-1'], '--seed must be a non-negative integer, got "-1"'],
  [[...base, '--port', '70000'], '--port must be an integer from 1 to 65535, got "70000"'],
  [[...base, '--requests', 'lots'], '--requests must be a count like 100 or 10k, got "lots"'],
  [[...base, '--rate', ''], '--rate must be a number, got ""'],
  [[...base, '--timeout=soon'], '--timeout must be a duration like 500ms, 10s, 2m or 1h, got "soon"'],
  [[...base, '--source', 'guess'], '--source must be plugin, v3 or auto, got "guess"'],
];
for (const [argv, message] of BAD) {
  test(`rejects ${argv.join(' ') || 'no arguments'}: ${message}`, () => {
    assert.throws(() => parse(argv, ROWS, { aliases: ALIASES }), (err) => err.message === message);
  });
}

test('help: usage, about, aligned rows with alias, value name and default, notes; wrapped to the width', () => {
  const text = help('Usage: x --app APP', 'What x does.', ROWS, { aliases: ALIASES, notes: 'Exit: 0 ok.' });
  const lines = text.split('\n');
  assert.deepStrictEqual(lines.slice(0, 4), ['Usage: x --app APP', '', 'What x does.', '']);
  assert.deepStrictEqual(lines.slice(4, 8), [
    '      --app APP           the app [default: (required)]',
    '  -i, --instances N       instances [default: 1]',
    '      --seed N            seed [default: 0]',
    '      --port N            port [default: -]',
  ]);
  assert.ok(lines.includes('      --warmup DURATION   warm-up [default: the gate decides]'), text);
  assert.ok(lines.includes('      --source S          source [default: auto]'), text);
  assert.ok(lines.includes('      --header TEXT       headers [default: -]'), text);
  assert.ok(lines.includes('      --dry-run           dry run [default: off]'), text);
  assert.ok(lines.includes('  -h, --help              this help'), text);
  assert.ok(text.endsWith('\n\nExit: 0 ok.\n'));
  const narrow = help('Usage: x', '', [['--long', 'long', 'bool', '', 'one two three four five six seven eight nine ten eleven twelve']], { width: 40 });
  assert.deepStrictEqual(narrow.split('\n').slice(2), ['  --long  one two three four five six', '          seven eight nine ten eleven', '          twelve', '']);
});

test('parseCommand at an entry point: --help on stdout, exit 0; a bad flag one line NAME: MESSAGE (see --help), exit 1', () => {
  const code = (argv) => `const t = require(${JSON.stringify(path.join(__dirname, '../lib/arg-table'))}); `
    + `try { t.parseCommand('x', ${JSON.stringify(argv)}, { usage: 'Usage: x', rows: [['--n N', 'n', 'int', 1, 'n', [1]]] }); } `
    + "catch (err) { process.exit(t.cliExitCode(err)); } console.log('ran')";
  const run = (argv) => spawnSync(process.execPath, ['-e', code(argv)], { encoding: 'utf8' });
  const h = run(['-h']);
  assert.strictEqual(h.status, 0);
  assert.match(h.stdout, /^Usage: x\n\n {6}--n N +n \[default: 1\]\n {2}-h, --help +this help\n$/);
  const bad = run(['--n', '0']);
  assert.strictEqual(bad.status, 1);
  assert.strictEqual(bad.stdout, '');
  assert.strictEqual(bad.stderr, 'x: --n must be a positive integer, got "0" (see --help)\n');
  assert.strictEqual(run(['--n', '2']).stdout, 'ran\n');
});

// A value a command line must not carry (a URL with its password) comes from the environment:
// its row names the variable, argv cannot set it, and --help lists it under "Environment:".
const ENV_ROWS = [
  ['--round ID', 'round', 'int', REQUIRED, 'the round', [1]],
  ['RESULTS_DATABASE_URL URL', 'db', 'str', REQUIRED, 'results database'],
  ['CFSCALE_WAIT_MS MS', 'waitMs', 'int', 5, 'wait', [0]],
];

test('an environment row is read from env, never from argv; typed and checked like a flag', () => {
  const env = { RESULTS_DATABASE_URL: 'postgres://u:p@h/d', CFSCALE_WAIT_MS: '7' };
  assert.deepStrictEqual(parse(['--round', '1'], ENV_ROWS, { env }), { _: [], round: 1, db: 'postgres://u:p@h/d', waitMs: 7 });
  assert.strictEqual(parse(['--round', '1'], ENV_ROWS, { env: { RESULTS_DATABASE_URL: 'x', CFSCALE_WAIT_MS: '' } }).waitMs, 5);
  assert.throws(() => parse(['--round', '1', '--db', 'postgres://u:p@h/d'], ENV_ROWS, { env }), (e) => e.message === 'unknown option: --db');
  assert.throws(() => parse(['--round', '1', 'RESULTS_DATABASE_URL'], ENV_ROWS, { env }), /unexpected argument: RESULTS_DATABASE_URL/);
  assert.throws(() => parse(['--round', '1'], ENV_ROWS, { env: {} }), (e) => e.message === 'RESULTS_DATABASE_URL is not set');
  assert.throws(() => parse(['--round', '1'], ENV_ROWS, { env: { ...env, CFSCALE_WAIT_MS: 'soon' } }),
    (e) => e.message === 'CFSCALE_WAIT_MS must be a non-negative integer, got "soon"');
});

test('help: the environment rows after the flags, as NAME=VALUE with their defaults', () => {
  const text = help('Usage: x --round ID', '', ENV_ROWS, { notes: 'Exit: 0 ok.' });
  assert.strictEqual(text, ['Usage: x --round ID', '',
    '  --round ID                the round [default: (required)]', '',
    'Environment:',
    '  RESULTS_DATABASE_URL=URL  results database [default: (required)]',
    '  CFSCALE_WAIT_MS=MS        wait [default: 5]', '', 'Exit: 0 ok.', ''].join('\n'));
});
