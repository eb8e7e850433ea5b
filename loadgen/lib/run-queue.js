'use strict';
// How long this process has waited for a CPU while ready to run: the second field of
// /proc/self/schedstat (run_delay, ns; the main thread, where the event loop runs). A late
// start that is all run-queue wait is the machine's, not the generator's. null when the
// kernel does not expose it.

const fs = require('node:fs');

function runQueueWaitMs(file = '/proc/self/schedstat') {
  try {
    const ns = Number(fs.readFileSync(file, 'utf8').split(' ')[1]);
    return Number.isFinite(ns) ? ns / 1e6 : null;
  } catch {
    return null;
  }
}

module.exports = { runQueueWaitMs };
