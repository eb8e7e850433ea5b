'use strict';
// log.js — one-line log messages with the component prefix (cluster workers add their id).

const cluster = require('node:cluster');

const PREFIX = cluster.isWorker ? `node-app[worker ${cluster.worker.id}]: ` : 'node-app: ';

function log(message) {
  process.stdout.write(PREFIX + message + '\n');
}

function logError(message) {
  process.stderr.write(PREFIX + message + '\n');
}

/** A logger that writes at most one line per intervalMs and counts what it swallowed. */
function throttledLog(intervalMs) {
  let last = 0;
  let suppressed = 0;
  return (message) => {
    const now = Date.now();
    if (now - last < intervalMs) {
      suppressed++;
      return;
    }
    logError(suppressed > 0 ? `${message} (${suppressed} similar suppressed)` : message);
    last = now;
    suppressed = 0;
  };
}

module.exports = { log, logError, throttledLog };
