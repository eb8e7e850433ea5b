'use strict';
// instance-crashes.test.js — the two decisions of instance-crashes.js over CC's documents and
// `cf logs --recent` text: which crash repeats (and which does not yet), and which line of an
// instance's log is its last error.
const test = require('node:test');
const assert = require('node:assert/strict');
const { repeatedCrash, lastErrorLine } = require('./instance-crashes');

const SINCE_MS = Date.parse('2026-11-28T02:28:20.500Z');
/** A crash event of index at ms (CC: created_at in whole seconds, Diego's crash_timestamp in ns). */
const crash = (index, ms, count, exit = 'APP/PROC/WEB: Exited with status 1') => ({
  type: 'audit.app.process.crash', created_at: `${new Date(ms).toISOString().slice(0, 19)}Z`,
  data: { index, crash_count: count, crash_timestamp: ms * 1e6, exit_description: exit },
});

test('repeatedCrash: the first index whose crash repeats since the wait began, else null', () => {
  const cases = [
    ['no events', [], null],
    ['one first crash', [crash(0, SINCE_MS + 100, 1)], null],
    ['first crashes of two indexes', [crash(0, SINCE_MS + 100, 1), crash(1, SINCE_MS + 200, 1)], null],
    ['the same index twice', [crash(1, SINCE_MS + 100, 1), crash(1, SINCE_MS + 900, 1, 'second')], { index: 1, crashes: 2, exitDescription: 'second' }],
    ['crash_count 2 at its first crash seen', [crash(0, SINCE_MS + 100, 2)], { index: 0, crashes: 2, exitDescription: 'APP/PROC/WEB: Exited with status 1' }],
    ['crash_count 5', [crash(2, SINCE_MS + 100, 5)], { index: 2, crashes: 5, exitDescription: 'APP/PROC/WEB: Exited with status 1' }],
    // created_at is whole seconds: the second the wait began in holds crashes from before it.
    ['a repeat before the wait began, in its second', [crash(0, SINCE_MS - 400, 3), crash(0, SINCE_MS + 100, 1)], null],
    ['listed out of order', [crash(0, SINCE_MS + 900, 1, 'later'), crash(0, SINCE_MS + 100, 1, 'earlier')], { index: 0, crashes: 2, exitDescription: 'later' }],
    ['other event types', [{ ...crash(0, SINCE_MS + 100, 4), type: 'app.crash' }], null],
    ['no crash_timestamp: the whole second counts', [{ ...crash(0, SINCE_MS + 1500, 2), data: { index: 0, crash_count: 2 } }], { index: 0, crashes: 2, exitDescription: '' }],
  ];
  for (const [name, events, want] of cases) assert.deepEqual(repeatedCrash(events, SINCE_MS), want, name);
});

test('lastErrorLine: the instance\'s last ERR line, or an OUT line at an error level; no stack frames, no other instance', () => {
  const at = '   2026-11-28T02:28:20.00+0000';
  const log = [
    `${at} [APP/PROC/WEB/0] OUT node-app: settings: port=8080`,
    `${at} [APP/PROC/WEB/0] ERR node-app: DB_POOL_SIZE must be an integer from 1 to 1000, got "abc"`,
    `${at} [APP/PROC/WEB/0] ERR     at Object.<anonymous> (/home/vcap/app/server.js:3:9)`,
    `${at} [APP/PROC/WEB/0] ERR `,
    `${at} [APP/PROC/WEB/0] ERR Node.js v22.11.0`,
    `${at} [APP/PROC/WEB/1] ERR the other instance`,
    `${at} [CELL/0] OUT Exit status 1`,
    `${at} [APP/PROC/WEB/2] OUT 2026-11-28T02:28:20.000Z ERROR java-app - start failed: java.net.BindException`,
    `${at} [APP/PROC/WEB/2] OUT 2026-11-28T02:28:21.000Z INFO java-app - stopped`,
  ].join('\n');
  assert.equal(lastErrorLine(log, 0), 'node-app: DB_POOL_SIZE must be an integer from 1 to 1000, got "abc"');
  assert.equal(lastErrorLine(log, 1), 'the other instance');
  assert.equal(lastErrorLine(log, 2), '2026-11-28T02:28:20.000Z ERROR java-app - start failed: java.net.BindException');
  assert.equal(lastErrorLine(log, 3), '');
  assert.equal(lastErrorLine('', 0), '');
});
