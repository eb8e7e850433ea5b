'use strict';
const test = require('node:test');
const assert = require('node:assert');
const { parseDuration, parseCount } = require('../lib/arg-table');
const { buildPlan, help, OPTIONS } = require('../lib/args');
const { defaultText } = require('../lib/arg-table');

test('units: durations and counts', () => {
  const durations = [['500ms', 500], ['10s', 10000], ['2m', 120000], ['1h', 3600000], ['3', 3000], ['1.5s', 1500], ['x', NaN], ['-1s', NaN]];
  for (const [text, ms] of durations) assert.deepStrictEqual(parseDuration(text), ms, text);
  const counts = [['1k', 1000], ['2.5k', 2500], ['1m', 1e6], ['7', 7], ['k', NaN], ['1x', NaN]];
  for (const [text, n] of counts) assert.deepStrictEqual(parseCount(text), n, text);
});

test('args: a valid command line becomes a plan', () => {
  const p = buildPlan(['--url', 'http://h:1/x', '-c', '32', '--duration=2s', '--rate', '100', '-H', 'A: b', '--header', 'C: d', '--no-keepalive']);
  assert.strictEqual(p.model, 'open');
  assert.strictEqual(p.parallel, 32);
  assert.strictEqual(p.durationMs, 2000);
  assert.strictEqual(p.keepalive, false);
  assert.deepStrictEqual(p.headers, ['A: b', 'C: d']);
  assert.strictEqual(buildPlan(['--url', 'http://h/', '-n', '1k']).durationMs, undefined);
  assert.strictEqual(buildPlan(['--url', 'http://h/']).durationMs, 10000);
});

const BAD = [
  [[], /--url is required/],
  [['--url', 'ftp://x'], /--url must start with http/],
  [['--url', 'http://x', '--parallel', '0'], /--parallel/],
  [['--url', 'http://x', '--parallel', 'many'], /--parallel/],
  [['--url', 'http://x', '--duration', '10 parsecs'], /--duration/],
  [['--url', 'http://x', '--rate', '0'], /--rate/],
  [['--url', 'http://x', '--scenario', 'dance'], /--scenario/],
  [['--url', 'http://x', '--ids', '5-1'], /--ids/],
  [['--url', 'http://x', '--max-error-rate', '2'], /--max-error-rate/],
  [['--url', 'http://x', '--header', 'nocolon'], /--header/],
  [['--url', 'http://x', '--round', '3'], /--results-db and --round/],
  [['--url', 'http://x', '--timeout'], /--timeout needs a value/],
  [['--url', 'http://x', '--frobnicate'], /unknown option: --frobnicate/],
];
for (const [argv, re] of BAD) {
  test(`args: rejects ${argv.slice(2).join(' ') || 'no arguments'}`, () => {
    assert.throws(() => buildPlan(argv), re);
  });
}

test('args: --help lists every option with its default', () => {
  const text = help();
  for (const [flag, , , def] of OPTIONS) {
    assert.ok(text.includes(flag), flag);
    if (def !== '') assert.ok(text.includes(`[default: ${defaultText(def)}]`), `${flag} default`);
  }
});
