'use strict';
// plain-error-handler.js — the HTTP framing layer's answers (contract "Framing"), in the
// apps' own plain-text format, as java-app's PlainErrorHandler gives them for Jetty:
// - clientError: what node:http's parser refuses (bad request line, header, chunk, version,
//   a head over HTTP_MAX_HEADER_BYTES, a head not complete within HTTP_HEADER_TIMEOUT_MS);
// - rejectHead: what the parser lets through but the contract refuses before routing (a
//   version other than 1.x, Host missing in HTTP/1.1 or given twice, a head over
//   HTTP_MAX_HEADER_BYTES counted in full — the parser counts only the header bytes).
// - the idle timeout (HTTP_IDLE_TIMEOUT_MS) while a body is awaited: 408.
// Every such answer closes the connection. A request whose head was refused has no
// correlation id to echo (a fresh one is sent); a body refused after a valid head echoes it.

const { randomUUID } = require('node:crypto');
const { STATUS_CODES } = require('node:http');

const CORRELATION_ID = Symbol('cfscale.correlationId');

// node:http parser error codes → status; any other parser error is 400.
const STATUS_BY_CODE = {
  HPE_HEADER_OVERFLOW: 431,
  ERR_HTTP_REQUEST_TIMEOUT: 408,
  HPE_HEADER_TIMEOUT: 408,
  HPE_INVALID_VERSION: 505,
  HPE_PAUSED_H2_UPGRADE: 505,
};
// Errors in a body after a valid head (a bad chunk): the request's id is echoed. Every other
// parser error refuses the head (Jetty refuses a bad Transfer-Encoding there too).
const BODY_ERRORS = new Set(['HPE_INVALID_CHUNK_SIZE', 'HPE_STRICT', 'HPE_CR_EXPECTED', 'HPE_LF_EXPECTED']);
// The peer is gone: nothing to answer.
const GONE = new Set(['ECONNRESET', 'EPIPE', 'ETIMEDOUT']);

/** The one-line reason of a framing status: the lower-case HTTP reason phrase. */
function reasonOf(status) {
  return STATUS_CODES[status].toLowerCase();
}

/** The whole response, written raw to the socket (the parser has given up on it). */
function rawResponse(status, correlationId, instanceIndex) {
  const body = `${reasonOf(status)}\n`;
  return `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\n` +
    'Content-Type: text/plain; charset=utf-8\r\n' +
    `X-Correlation-ID: ${correlationId}\r\n` +
    `X-Instance-Index: ${instanceIndex}\r\n` +
    `Content-Length: ${Buffer.byteLength(body)}\r\n` +
    'Connection: close\r\n\r\n' + body;
}

/** The server's 'clientError' listener. */
function createClientErrorHandler(instanceIndex) {
  return function onClientError(err, socket) {
    const res = socket._httpMessage;
    if (GONE.has(err.code) || !socket.writable || (res && res.headersSent)) {
      socket.destroy();
      return;
    }
    const status = STATUS_BY_CODE[err.code] ?? 400;
    const echo = res && BODY_ERRORS.has(err.code) && socket[CORRELATION_ID] !== undefined;
    const id = echo ? socket[CORRELATION_ID] : randomUUID();
    socket.end(rawResponse(status, id, instanceIndex));
    socket.destroySoon();
  };
}

/**
 * The server's 'timeout' listener (no byte for HTTP_IDLE_TIMEOUT_MS): a body still awaited
 * gets 408; an idle keep-alive connection is closed without a word; a request whose body is
 * in and whose answer is still being made (a slow database) is left to finish.
 */
function createIdleTimeoutHandler(instanceIndex) {
  return function onIdleTimeout(socket) {
    const res = socket._httpMessage;
    if (res && res.req && res.req.complete) return;
    if (res && !res.headersSent && socket.writable) {
      socket.end(rawResponse(408, socket[CORRELATION_ID] ?? randomUUID(), instanceIndex));
      socket.destroySoon();
      return;
    }
    socket.destroy();
  };
}

/** Remember the request's valid correlation id on its socket (for a body refused later). */
function rememberCorrelationId(req, id) {
  req.socket[CORRELATION_ID] = id;
}

/** Head bytes in canonical form (`Name: value`): what the parser's own count leaves out. */
function headBytes(req) {
  let n = req.method.length + req.url.length + 12; // SP, SP, "HTTP/1.1", CRLF
  const raw = req.rawHeaders;
  for (let i = 0; i < raw.length; i += 2) n += raw[i].length + raw[i + 1].length + 4;
  return n + 2;
}

function hostCount(req) {
  let n = 0;
  for (let i = 0; i < req.rawHeaders.length; i += 2) if (req.rawHeaders[i].toLowerCase() === 'host') n++;
  return n;
}

/** The framing status refusing req's head, or 0 when it is fine. */
function rejectHead(req, maxHeaderBytes) {
  if (req.httpVersionMajor !== 1) return 505;
  if (headBytes(req) > maxHeaderBytes) return 431;
  const hosts = hostCount(req);
  if (hosts > 1 || (hosts === 0 && req.httpVersionMinor === 1)) return 400;
  return 0;
}

module.exports = { createClientErrorHandler, createIdleTimeoutHandler, rememberCorrelationId, rejectHead, reasonOf, headBytes };
