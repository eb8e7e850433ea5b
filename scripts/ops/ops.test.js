'use strict';
// ops.test.js — the pure parts of scripts/ops: duration parsing, number checks, shell
// quoting (each quoted word, read back by bash, is the word), a command's help and flags from
// its table, and the one-line usage errors (thrown; printed by an entry point in a child process).
const test = require('node:test');
const assert = require('node:assert/strict');
const path = require('node:path');
const { spawnSync } = require('node:child_process');
const { parseDurationMs } = require('./cli');
const { parseCpuQuota, CpuQuotaError, CPU_NONE } = require('../../lib/cpu-quota');
const { shellQuote, formatCmd } = require('./exec');

const ROOT = path.resolve(__dirname, '../..');

test('parseDurationMs: units, bare seconds, rounding to ms, malformed', () => {
  const cases = [
    ['500ms', 500], ['10s', 10000], ['10', 10000], ['2m', 120000], ['1h', 3600000],
    ['1.5s', 1500], ['0.0015s', 2], ['0s', 0], ['2.4ms', 2],
    ['10x', null], ['', null], ['-1s', null], ['1e3', null], ['s', null], ['1.s', null],
  ];
  for (const [input, want] of cases) assert.equal(parseDurationMs(input), want, input);
});

test('parseCpuQuota: decimals above zero (text or number) as cores, none as CPU_NONE, nothing else', () => {
  const cases = [['1', 1], ['0.5', 0.5], ['10.0', 10], [0.25, 0.25], ['none', CPU_NONE], ['0', null], ['0.0', null], ['00', null],
    ['-3', null], ['1e3', null], ['', null], ['.5', null], ['default', null], [0, null], [-1, null], [NaN, null], [Infinity, null]];
  for (const [input, want] of cases) {
    if (want === null) assert.throws(() => parseCpuQuota(input), CpuQuotaError, String(input));
    else assert.equal(parseCpuQuota(input), want, String(input));
  }
});

test('shellQuote: bare when safe, else single-quoted so that bash reads back the word', () => {
  const cases = [
    ['node-app', 'node-app'], ['loadbalancing=least-connection', 'loadbalancing=least-connection'],
    ['', "''"], ['a b', "'a b'"], ['https://<x-route>', "'https://<x-route>'"],
    ["it's", "'it'\\''s'"], ['/v3/x?a=1&b[gt]=2', "'/v3/x?a=1&b[gt]=2'"], ['X-Cf-App-Instance: g:0', "'X-Cf-App-Instance: g:0'"],
  ];
  for (const [word, want] of cases) assert.equal(shellQuote(word), want, word);
  const words = cases.map(([w]) => w);
  const r = spawnSync('bash', ['-c', `for w in ${formatCmd(words)}; do printf '%s\\0' "$w"; done`], { encoding: 'utf8' });
  assert.deepEqual(r.stdout.split('\0').slice(0, -1), words);
});

test('--help of a wrapper: usage line, every flag of the table with its default, then the notes; exit 0', () => {
  const r = spawnSync(path.join(ROOT, 'scripts/scale.sh'), ['--help'], { encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  assert.match(r.stdout, /^Usage: scripts\/scale\.sh APP -i N /);
  assert.match(r.stdout, /^ {2}-i, --instances N +instances \[default: \(required\)\]$/m);
  assert.match(r.stdout, /^ {6}--platform P +local \| cf \[default: PLATFORM, else cf/m);
  assert.match(r.stdout, /^Exit: 0 ok, 1 usage\/configuration error\.$/m);
});

// A command's table, as the source text the child process evaluates.
const TABLE = "{ rows: [['--warmup', 'warmupMs', 'dur', '0s', ''], ['--instances', 'instances', 'int', 1, '', [1]]], aliases: { '-i': '--instances' } }";

test('usage errors and die: a CliError that the entry point prints as one line NAME: MESSAGE, exit 1', async (t) => {
  const cases = [
    ["c.usageError('bad thing')", 'x: bad thing (see --help)\n'],
    ["c.die('broken')", 'x: broken\n'],
    [`c.parse(['--warmup', '10x'], ${TABLE})`, 'x: --warmup must be a duration like 500ms, 10s, 2m or 1h, got "10x" (see --help)\n'],
    [`c.parse(['-i', '0'], ${TABLE})`, 'x: -i must be a positive integer, got "0" (see --help)\n'],
    [`c.parse(['--instances', 'x'], ${TABLE})`, 'x: --instances must be a positive integer, got "x" (see --help)\n'],
    [`c.parse(['--bogus'], ${TABLE})`, 'x: unknown option: --bogus (see --help)\n'],
    [`c.parse(['extra'], ${TABLE})`, 'x: unexpected argument: extra (see --help)\n'],
    ["c.cpuQuota('0')", 'x: --cpu must be a positive number of cores or none, got "0" (see --help)\n'],
    ["c.requireKnownApp('vars')", /^x: unknown app "vars" \(known: .*node-app.*\) \(see --help\)\n$/],
    [`c.parse(['--warmup'], ${TABLE})`, 'x: --warmup needs a value (see --help)\n'],
    [`c.parse([], { rows: [['--app', 'app', 'str', require(${JSON.stringify(path.join(__dirname, '..', '..', 'lib', 'arg-table.js'))}).REQUIRED, '']] })`, 'x: --app is required (see --help)\n'],
  ];
  for (const [call, want] of cases) {
    await t.test(call, () => {
      const entry = `const { cliExitCode } = require(${JSON.stringify(path.join(__dirname, '..', '..', 'lib', 'arg-table.js'))}); `
        + `const c = require(${JSON.stringify(path.join(__dirname, 'cli.js'))}).makeCli('x'); `
        + `try { ${call}; } catch (err) { process.exit(cliExitCode(err)); } process.exit(0)`;
      const r = spawnSync(process.execPath, ['-e', entry], { encoding: 'utf8' });
      assert.equal(r.status, 1);
      if (typeof want === 'string') assert.equal(r.stderr, want);
      else assert.match(r.stderr, want);
    });
  }
});

test('die, usageError and --help throw, in this process: nothing below a command exits', () => {
  const { CliError } = require('../../lib/arg-table');
  const c = require('./cli').makeCli('x');
  const ended = (code, message) => (e) => e instanceof CliError && e.exitCode === code && e.message === message;
  assert.throws(() => c.die('broken'), ended(1, 'x: broken'));
  assert.throws(() => c.usageError('bad thing'), ended(1, 'x: bad thing (see --help)'));
  assert.throws(() => c.parse(['--help'], { usage: 'Usage: x', rows: [] }), (e) => ended(0, '')(e) && /^Usage: x\n/.test(e.stdout));
});

test('the local Host header is the route the API gives back, not APP.localhost (hosts are manifest vars)', async () => {
  const { appHostHeader } = require('./apps');
  const route = { host: 'me-node-app', url: 'me-node-app.localhost' };
  assert.equal(await appHostHeader({ name: 'local' }, 'node-app', route), 'me-node-app.localhost');
  assert.equal(await appHostHeader({ name: 'local' }, 'node-app', null), '<node-app-route>', 'dry run, app not pushed');
  assert.equal(await appHostHeader({ name: 'cf', routesVia: () => '' }, 'node-app', route), '', 'on cf the URL carries the host');
  assert.equal(await appHostHeader({ name: 'cf', routesVia: () => 'https://127.0.0.1:4443' }, 'node-app', route), 'me-node-app.localhost',
    'on cf with the routes served at an address (the local platform as a target): the route as Host');
});

test('the base URL on cf: https://ROUTE, or the address the API names for its routes', async () => {
  const { appBaseUrl } = require('./apps');
  const route = { host: 'me-node-app', url: 'me-node-app.localhost' };
  assert.equal(await appBaseUrl({ name: 'cf', routesVia: () => '' }, 'node-app', 'g', route), 'https://me-node-app.localhost');
  assert.equal(await appBaseUrl({ name: 'cf', routesVia: () => 'https://127.0.0.1:4443' }, 'node-app', 'g', route), 'https://127.0.0.1:4443');
});
