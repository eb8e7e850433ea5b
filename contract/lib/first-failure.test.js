'use strict';
const test = require('node:test');
const assert = require('node:assert/strict');
const { firstFailure } = require('./first-failure');

const SPEC = `✔ outage (12ms)
✖ failing tests:

test at contract/lifecycle.test.js:183:5
✖ a frozen database gets 503 in time (2112.5ms)
  AssertionError [ERR_ASSERTION]: 503 after 2104 ms, goal 2000 ms
      at TestContext.<anonymous> (contract/lifecycle.test.js:183:12)

test at contract/lifecycle.test.js:292:5
✖ exits in time (1ms)
`;

test('the first failing test and its message, one line', () => {
  assert.equal(firstFailure(SPEC), 'a frozen database gets 503 in time: AssertionError [ERR_ASSERTION]: 503 after 2104 ms, goal 2000 ms');
});

test('none when nothing failed or the summary is missing', () => {
  assert.equal(firstFailure('✔ all (3ms)\nℹ pass 1\n'), null);
  assert.equal(firstFailure('✖ failing tests:\n'), null);
});

test('a long line is cut to 120 characters', () => {
  const long = firstFailure(`✖ failing tests:\n\n✖ t (1ms)\n  Error: ${'x'.repeat(300)}\n`);
  assert.equal(long.length, 120);
  assert.ok(long.endsWith('…'));
});
