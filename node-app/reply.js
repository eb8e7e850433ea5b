'use strict'
// reply.js — every response goes through send(): the contract's headers
// (Content-Type, Content-Length, X-Correlation-ID, X-Instance-Index), never chunked; and
// the one error boundary, failRequest(), that turns any error into a one-line reason.

const { HttpError } = require('./http-error')
const { logError, throttledLog } = require('./log')

const CONTENT_TYPE = 'text/plain; charset=utf-8'

let instanceIndex = '0'
let closing = false

/** The X-Instance-Index value (CF_INSTANCE_INDEX); set once at start. */
function setInstanceIndex(index) {
  instanceIndex = String(index)
}

/** From now on every response closes its connection (graceful shutdown). */
function markClosing() {
  closing = true
}

/** Write the whole response and record the request's timing. body is a string. */
function send(res, ctx, status, body, extraHeaders) {
  const headers = {
    'Content-Type': CONTENT_TYPE,
    'Content-Length': Buffer.byteLength(body),
    'X-Correlation-ID': ctx.correlationId,
    'X-Instance-Index': instanceIndex,
  }
  if (extraHeaders !== undefined) Object.assign(headers, extraHeaders)
  if (closing) headers.Connection = 'close'
  res.writeHead(status, headers)
  res.end(body)
  ctx.finish(status)
}

function sendReason(res, ctx, status, reason, extraHeaders) {
  send(res, ctx, status, reason + '\n', extraHeaders)
}

/** The error boundary: expected HttpErrors answer their reason, anything else 500. */
function failRequest(res, ctx, err) {
  if (res.headersSent || res.destroyed) {
    // Nothing sensible can be sent any more (client gone, or a bug after writing).
    if (!res.destroyed) res.destroy()
    return
  }
  if (err instanceof HttpError) {
    if (err.status >= 500 && err.cause) logCause(ctx, err)
    sendReason(res, ctx, err.status, err.reason, err.headers)
    return
  }
  logError(`request ${ctx.correlationId} failed: ${err && err.stack ? err.stack : err}`)
  sendReason(res, ctx, 500, 'internal error')
}

// During an outage every request fails the same way: one line per second is enough.
const logOutage = throttledLog(1000)
function logCause(ctx, err) {
  logOutage(`request ${ctx.correlationId}: ${err.reason}: ${err.cause.message || err.cause}`)
}

/** Run an async handler under the error boundary. */
function dispatch(handler, req, res, ctx) {
  let pending
  try {
    pending = handler(req, res, ctx)
  } catch (err) {
    failRequest(res, ctx, err)
    return
  }
  if (pending !== undefined) pending.catch((err) => failRequest(res, ctx, err))
}

module.exports = { send, sendReason, failRequest, dispatch, setInstanceIndex, markClosing }
