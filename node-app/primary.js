'use strict';
// primary.js — the cluster primary when WEB_CONCURRENCY > 1: forks the workers (they
// share the listening port), serves the /timings* fan-out, replaces a crashed worker
// (but exits 1 when one fails before it ever listened), and on SIGTERM/SIGINT forwards
// SIGTERM to every worker and exits once they are gone.

const cluster = require('node:cluster');
const { serveClusterTimings } = require('./cluster-timings');
const { log, logError } = require('./log');

const RESTART_DELAY_MS = 1000;
// Workers force their own exit at SHUTDOWN_TIMEOUT_MS; the primary waits a little longer.
const PRIMARY_GRACE_MS = 1000;

function startPrimary(config) {
  let stopping = false;
  let exitCode = 0;
  serveClusterTimings(cluster);

  // A worker that exits before it ever listened (port taken, bad setup) would fail again:
  // stop like a single process does, with exit 1, instead of restarting it forever.
  const listened = new Set();
  cluster.on('listening', (worker) => listened.add(worker.id));

  cluster.on('exit', (worker, code, signal) => {
    if (!stopping && !listened.has(worker.id)) {
      logError(`worker ${worker.id} exited (${signal || `code ${code}`}) before listening; stopping`);
      stop('worker failure', 1);
      return;
    }
    const served = listened.delete(worker.id);
    if (stopping) {
      // A worker that had to force its exit (SHUTDOWN_TIMEOUT_MS) cut a request short: exit 1 as it did.
      // One the signal caught still starting (no handler yet, never listened) served nothing.
      if (served && (code !== 0 || signal)) exitCode = 1;
      if (Object.keys(cluster.workers).length === 0) {
        log('all workers stopped');
        process.exit(exitCode);
      }
      return;
    }
    logError(`worker ${worker.id} exited (${signal || `code ${code}`}); starting a new one`);
    setTimeout(() => stopping || cluster.fork(), RESTART_DELAY_MS);
  });

  function stop(reason, code = 0) {
    if (stopping) return;
    stopping = true;
    exitCode = code;
    log(`${reason}: stopping ${Object.keys(cluster.workers).length} workers`);
    setTimeout(() => {
      logError('workers did not stop in time; exiting');
      process.exit(1);
    }, config.shutdownTimeoutMs + PRIMARY_GRACE_MS);
    for (const w of Object.values(cluster.workers)) w.process.kill('SIGTERM');
    if (Object.keys(cluster.workers).length === 0) process.exit(exitCode);
  }
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));

  for (let i = 0; i < config.webConcurrency; i++) cluster.fork();
}

module.exports = { startPrimary };
