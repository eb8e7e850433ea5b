'use strict';
// app-server.js — one serving process: the ad store (app database pool), the timing buffer, the HTTP
// server (node:http or express), and graceful shutdown on SIGTERM/SIGINT.
//
// Shutdown (contract "SIGTERM"): stop accepting, close idle keep-alive connections, let
// in-flight requests finish (their responses carry Connection: close), flush timings when
// TIMINGS_FLUSH_ON_EXIT=true, end the pools, exit 0; exit 1 after SHUTDOWN_TIMEOUT_MS.

const http = require('node:http');
const { randomUUID } = require('node:crypto');
const cluster = require('node:cluster');
const { openAdStore } = require('./ad-store');
const { TimingBuffer } = require('./timing-buffer');
const { createTimingsService } = require('./timings-flusher');
const { clusterTimingsService } = require('./cluster-timings');
const { healthHandler } = require('./health-handler');
const { helloHandler } = require('./hello-handler');
const { createAdHandler } = require('./create-ad-handler');
const { getAdHandler } = require('./get-ad-handler');
const { listAdsHandler } = require('./list-ads-handler');
const { timingsHandler } = require('./timings-handler');
const { timingsFlushHandler } = require('./timings-flush-handler');
const { timingsClearHandler } = require('./timings-clear-handler');
const { timingsRecordingHandler } = require('./timings-recording-handler');
const { controlAuth } = require('./control-auth');
const { createRawRouter } = require('./app-raw');
const { createExpressRouter } = require('./app-express');
const { beginRequest } = require('./exchange');
const { sendReason, setInstanceIndex, markClosing } = require('./reply');
const { createClientErrorHandler, createIdleTimeoutHandler, rememberCorrelationId, rejectHead, reasonOf } = require('./plain-error-handler');
const { log, logError } = require('./log');

// How often node:http looks for connections past HTTP_HEADER_TIMEOUT_MS (its default, 30 s,
// would let a slow client hold a connection up to 30 s longer than the setting says).
const MAX_CHECK_INTERVAL_MS = 250;
const CONNECTION_CLOSE = Object.freeze({ Connection: 'close' });
// node:http closes an idle keep-alive connection this long after its keepAliveTimeout
// (HTTP_SERVER_KEEP_ALIVE_TIMEOUT_BUFFER in lib/_http_server.js); hence the spec's 2 s minimum.
const KEEP_ALIVE_BUFFER_MS = 1000;

/**
 * node:http's server-level limits, each from the settings spec (contract/settings.json), none
 * left to node's defaults: the request head is bounded in size (HTTP_MAX_HEADER_BYTES) and
 * time (HTTP_HEADER_TIMEOUT_MS: 408 and close); a connection with no byte for
 * HTTP_IDLE_TIMEOUT_MS is closed, between requests (keepAliveTimeout) and while a body is
 * awaited (the socket timeout: 408, plain-error-handler.js). The whole request is not bounded (requestTimeout 0): Jetty has
 * no such limit, and the head and idle bounds already end every slow client.
 */
function serverOptions(config) {
  return {
    maxHeaderSize: config.httpMaxHeaderBytes,
    headersTimeout: config.httpHeaderTimeoutMs,
    requestTimeout: 0,
    keepAliveTimeout: config.httpIdleTimeoutMs - KEEP_ALIVE_BUFFER_MS,
    connectionsCheckingInterval: Math.min(MAX_CHECK_INTERVAL_MS, config.httpHeaderTimeoutMs),
    // Checked in rejectHead, so the answer is the contract's plain-text one, not node's own.
    requireHostHeader: false,
  };
}

function startWorker(config) {
  setInstanceIndex(config.instanceIndex);
  const firstWorker = !cluster.isWorker || cluster.worker.id === 1;
  const store = openAdStore(config, { logDriver: firstWorker, native: config.dbDriver === 'native' });
  store.startUp();

  const buffer = new TimingBuffer(config.timingsCapacity, config.timingsEnabled);
  const localTimings = createTimingsService({
    buffer,
    results: config.results,
    appName: config.appName,
    instanceIndex: config.instanceIndex,
    connectTimeoutMs: config.dbPoolTimeoutMs,
  });
  const timings = cluster.isWorker ? clusterTimingsService(localTimings) : localTimings;
  const control = controlAuth(config.controlToken, { open: config.controlOpen });
  // By the names of router.js's route table.
  const handlers = {
    health: healthHandler(),
    hello: helloHandler(),
    createAd: createAdHandler(store),
    getAd: getAdHandler(store),
    listAds: listAdsHandler(store),
    timingsState: control(timingsHandler(timings)),
    timingsFlush: control(timingsFlushHandler(timings)),
    timingsClear: control(timingsClearHandler(timings)),
    timingsRecording: control(timingsRecordingHandler(timings)),
  };
  const route = config.framework === 'express' ? createExpressRouter(handlers) : createRawRouter(handlers);

  const server = http.createServer(serverOptions(config), (req, res) => {
    const { ctx, badCorrelationId } = beginRequest(req, buffer);
    const refused = rejectHead(req, config.httpMaxHeaderBytes);
    if (refused !== 0) {
      // As when the parser refuses a head: not recorded, a fresh id, the connection closed.
      ctx.timings = null;
      if (!badCorrelationId) ctx.correlationId = randomUUID();
      return sendReason(res, ctx, refused, reasonOf(refused), CONNECTION_CLOSE);
    }
    if (badCorrelationId) return sendReason(res, ctx, 400, 'invalid X-Correlation-ID');
    rememberCorrelationId(req, ctx.correlationId);
    route(req, res, ctx);
  });
  server.on('clientError', createClientErrorHandler(config.instanceIndex));
  server.on('timeout', createIdleTimeoutHandler(config.instanceIndex));
  server.timeout = config.httpIdleTimeoutMs;
  server.on('error', (err) => {
    logError(`cannot listen on port ${config.port}: ${err.message}`);
    process.exit(1);
  });
  server.listen(config.port, () => {
    log(`listening on port ${server.address().port} (${config.framework})`);
  });

  let stopping = false;
  function stop(signal) {
    if (stopping) return;
    stopping = true;
    log(`${signal}: shutting down`);
    const force = setTimeout(() => {
      logError(`shutdown took over SHUTDOWN_TIMEOUT_MS=${config.shutdownTimeoutMs}; exiting`);
      process.exit(1);
    }, config.shutdownTimeoutMs);
    markClosing();
    server.close(async () => {
      try {
        if (config.timingsFlushOnExit) await localTimings.run('flush', null);
        await Promise.allSettled([store.end(), localTimings.end()]);
      } finally {
        clearTimeout(force);
        log('stopped');
        process.exit(0);
      }
    });
    server.closeIdleConnections();
  }
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
  return server;
}

module.exports = { startWorker };
