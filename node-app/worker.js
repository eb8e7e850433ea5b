'use strict'
// worker.js — one serving process: the app database pool, the timings buffer, the HTTP
// server (node:http or express), and graceful shutdown on SIGTERM/SIGINT.
//
// Shutdown (contract "SIGTERM"): stop accepting, close idle keep-alive connections, let
// in-flight requests finish (their responses carry Connection: close), flush timings when
// TIMINGS_FLUSH_ON_EXIT=true, end the pools, exit 0; exit 1 after SHUTDOWN_TIMEOUT_MS.

const http = require('node:http')
const cluster = require('node:cluster')
const { createAppDb } = require('./db')
const { TimingsBuffer } = require('./timings-buffer')
const { createTimingsService } = require('./timings-service')
const { clusterTimingsService } = require('./cluster-timings')
const { createAdsHandlers } = require('./ads-handlers')
const { createTimingsHandlers } = require('./timings-handlers')
const { createRawRouter } = require('./app-raw')
const { createExpressRouter } = require('./app-express')
const { beginRequest } = require('./request-context')
const { sendReason, setInstanceIndex, markClosing } = require('./http-response')
const { log, logError } = require('./log')

// Longer than the idle timeout of the router in front (HAProxy locally, Gorouter on CF),
// so the router, not the app, closes idle keep-alive connections and never reuses a
// connection the app is closing.
const KEEP_ALIVE_TIMEOUT_MS = 65000

function startWorker(config) {
  setInstanceIndex(config.instanceIndex)
  const firstWorker = !cluster.isWorker || cluster.worker.id === 1
  const db = createAppDb(config, { logDriver: firstWorker, native: config.dbDriver === 'native' })
  db.startUp()

  const buffer = new TimingsBuffer(config.timingsCapacity, config.timingsEnabled)
  const localTimings = createTimingsService({
    buffer,
    results: config.results,
    appName: config.appName,
    instanceIndex: config.instanceIndex,
    connectTimeoutMs: config.dbPoolTimeoutMs,
  })
  const timings = cluster.isWorker ? clusterTimingsService(localTimings) : localTimings
  const handlers = { ...createAdsHandlers(db), ...createTimingsHandlers(timings) }
  const route = config.framework === 'express' ? createExpressRouter(handlers) : createRawRouter(handlers)

  const server = http.createServer((req, res) => {
    const { ctx, badCorrelationId } = beginRequest(req, buffer)
    if (badCorrelationId) return sendReason(res, ctx, 400, 'invalid X-Correlation-ID')
    route(req, res, ctx)
  })
  server.keepAliveTimeout = KEEP_ALIVE_TIMEOUT_MS
  server.headersTimeout = KEEP_ALIVE_TIMEOUT_MS + 1000
  server.on('error', (err) => {
    logError(`cannot listen on port ${config.port}: ${err.message}`)
    process.exit(1)
  })
  server.listen(config.port, () => {
    log(`listening on port ${server.address().port} (${config.framework})`)
  })

  let stopping = false
  function stop(signal) {
    if (stopping) return
    stopping = true
    log(`${signal}: shutting down`)
    const force = setTimeout(() => {
      logError(`shutdown took over SHUTDOWN_TIMEOUT_MS=${config.shutdownTimeoutMs}; exiting`)
      process.exit(1)
    }, config.shutdownTimeoutMs)
    markClosing()
    server.close(async () => {
      try {
        if (config.timingsFlushOnExit) await localTimings.run('flush', null)
        await Promise.allSettled([db.end(), localTimings.end()])
      } finally {
        clearTimeout(force)
        log('stopped')
        process.exit(0)
      }
    })
    server.closeIdleConnections()
  }
  process.on('SIGTERM', () => stop('SIGTERM'))
  process.on('SIGINT', () => stop('SIGINT'))
  return server
}

module.exports = { startWorker }
