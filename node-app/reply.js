'use strict';
// reply.js — every response goes through send(): the contract's headers
// (Content-Type, Content-Length, X-Correlation-ID, X-Instance-Index), never chunked.

const CONTENT_TYPE = 'text/plain; charset=utf-8';

let instanceIndex = '0';
let closing = false;

/** The X-Instance-Index value (CF_INSTANCE_INDEX); set once at start. */
function setInstanceIndex(index) {
  instanceIndex = String(index);
}

/** From now on every response closes its connection (graceful shutdown). */
function markClosing() {
  closing = true;
}

/** Write the whole response and record the request's timing. body is a string. */
function send(res, ctx, status, body, extraHeaders) {
  const headers = {
    'Content-Type': CONTENT_TYPE,
    'Content-Length': Buffer.byteLength(body),
    'X-Correlation-ID': ctx.correlationId,
    'X-Instance-Index': instanceIndex,
  };
  if (extraHeaders !== undefined) Object.assign(headers, extraHeaders);
  if (closing) headers.Connection = 'close';
  res.writeHead(status, headers);
  res.end(body);
  ctx.finish(status);
}

function sendReason(res, ctx, status, reason, extraHeaders) {
  send(res, ctx, status, reason + '\n', extraHeaders);
}

module.exports = { send, sendReason, setInstanceIndex, markClosing };
