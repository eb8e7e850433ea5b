'use strict';
// The pacer's thread (pacer.js): sleeps on Atomics.wait, whose timeout is a futex's (µs, not
// the event loop's ms), until the due time the main thread last wrote, then wakes the main
// thread with a message. Shared memory: Int32 [0] a sequence number the main thread bumps at
// every new due time (and notifies), [1] 1 = stop; Float64 [1] the due time in Unix ms.

const { workerData, parentPort } = require('node:worker_threads');
const { performance } = require('node:perf_hooks');

const ctl = new Int32Array(workerData, 0, 2);
const due = new Float64Array(workerData, 8, 1);

function nowMs() { return performance.timeOrigin + performance.now(); }

// From the sequence's first value: a due time written before this thread got here is not missed.
let seen = 0;
for (;;) {
  Atomics.wait(ctl, 0, seen);
  if (Atomics.load(ctl, 1) === 1) break;
  seen = Atomics.load(ctl, 0);
  let rest;
  while ((rest = due[0] - nowMs()) > 0) {
    if (Atomics.wait(ctl, 0, seen, rest) !== 'timed-out') seen = Atomics.load(ctl, 0);
    if (Atomics.load(ctl, 1) === 1) break;
  }
  if (Atomics.load(ctl, 1) === 1) break;
  parentPort.postMessage(seen);
}
