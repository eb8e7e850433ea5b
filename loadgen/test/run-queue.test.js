'use strict';
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { runQueueWaitMs } = require('../lib/run-queue');

test('runQueueWaitMs: the second field of schedstat (ns) in ms; null when unreadable', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cfscale-schedstat-'));
  const file = path.join(dir, 'schedstat');
  fs.writeFileSync(file, '123456789 2500000 17\n');
  assert.equal(runQueueWaitMs(file), 2.5);
  assert.equal(runQueueWaitMs(path.join(dir, 'none')), null);
  fs.rmSync(dir, { recursive: true });
  // This kernel exposes it for the test process itself, and it never goes down.
  const a = runQueueWaitMs();
  const b = runQueueWaitMs();
  assert.ok(a !== null && b >= a);
});
