'use strict'
// primary.js — the cluster primary when WEB_CONCURRENCY > 1: forks the workers (they
// share the listening port), serves the /timings* fan-out, replaces a crashed worker,
// and on SIGTERM/SIGINT forwards SIGTERM to every worker and exits once they are gone.

const cluster = require('node:cluster')
const { serveClusterTimings } = require('./cluster-timings')
const { log, logError } = require('./log')

const RESTART_DELAY_MS = 1000
// Workers force their own exit at SHUTDOWN_TIMEOUT_MS; the primary waits a little longer.
const PRIMARY_GRACE_MS = 1000

function startPrimary(config) {
  let stopping = false
  serveClusterTimings(cluster)

  cluster.on('exit', (worker, code, signal) => {
    if (stopping) {
      if (Object.keys(cluster.workers).length === 0) {
        log('all workers stopped')
        process.exit(0)
      }
      return
    }
    logError(`worker ${worker.id} exited (${signal || `code ${code}`}); starting a new one`)
    setTimeout(() => stopping || cluster.fork(), RESTART_DELAY_MS)
  })

  function stop(signal) {
    if (stopping) return
    stopping = true
    log(`${signal}: stopping ${Object.keys(cluster.workers).length} workers`)
    setTimeout(() => {
      logError('workers did not stop in time; exiting')
      process.exit(1)
    }, config.shutdownTimeoutMs + PRIMARY_GRACE_MS)
    for (const w of Object.values(cluster.workers)) w.process.kill('SIGTERM')
    if (Object.keys(cluster.workers).length === 0) process.exit(0)
  }
  process.on('SIGTERM', () => stop('SIGTERM'))
  process.on('SIGINT', () => stop('SIGINT'))

  for (let i = 0; i < config.webConcurrency; i++) cluster.fork()
}

module.exports = { startPrimary }
