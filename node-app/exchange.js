'use strict';
// exchange.js — what one request carries through the app: its correlation id, path
// and query, route, and the times measured for server_timings (contract "Server timings").
//
// The context starts at arrival, in the node:http 'request' callback, the same point for
// node:http and express, so handler_us includes express's dispatch.

const { randomUUID } = require('node:crypto');
const { ROUTE_NONE } = require('./timing-buffer');

const MAX_CORRELATION_ID_BYTES = 64;

// Epoch microseconds of a process.hrtime.bigint() reading: base taken once at start.
const HR_BASE_NS = process.hrtime.bigint();
const EPOCH_BASE_US = Date.now() * 1000;

class Exchange {
  constructor(arrivedNs, path, query, correlationId, timings) {
    this.arrivedNs = arrivedNs;
    this.path = path;
    this.query = query;
    this.correlationId = correlationId;
    /** TimingBuffer to record into, or null for /timings* requests (not recorded). */
    this.timings = timings;
    this.route = ROUTE_NONE;
    this.poolWaitUs = 0;
    this.dbUs = 0;
  }

  /** Record this request's timing; called once the response is written. */
  finish(status) {
    if (this.timings === null || !this.timings.recording) return;
    const now = process.hrtime.bigint();
    const startedUs = EPOCH_BASE_US + Number(this.arrivedNs - HR_BASE_NS) / 1000;
    const handlerUs = Number(now - this.arrivedNs) / 1000;
    this.timings.record(this.correlationId, this.route, status, startedUs, handlerUs, this.poolWaitUs, this.dbUs);
  }
}

/** 1–64 bytes, each 0x21–0x7E (header values arrive as latin1: one char per byte). */
function isValidCorrelationId(id) {
  if (id.length > MAX_CORRELATION_ID_BYTES) return false;
  for (let i = 0; i < id.length; i++) {
    const c = id.charCodeAt(i);
    if (c < 0x21 || c > 0x7e) return false;
  }
  return true;
}

function isTimingsPath(path) {
  return path === '/timings' || path.startsWith('/timings/');
}

/**
 * A new context for req. Returns { ctx, badCorrelationId }: with a bad X-Correlation-ID the
 * context carries a freshly generated id (the bad one is never reflected).
 */
function beginRequest(req, timings) {
  const arrivedNs = process.hrtime.bigint();
  const url = req.url;
  const q = url.indexOf('?');
  const path = q === -1 ? url : url.slice(0, q);
  const query = q === -1 ? '' : url.slice(q + 1);
  const given = req.headers['x-correlation-id'];
  const valid = given !== undefined && given !== '' && isValidCorrelationId(given);
  const ctx = new Exchange(arrivedNs, path, query, valid ? given : randomUUID(), isTimingsPath(path) ? null : timings);
  return { ctx, badCorrelationId: !valid && given !== undefined && given !== '' };
}

module.exports = { beginRequest, isValidCorrelationId, Exchange };
