'use strict';
// timing-buffer.js — the bounded in-memory buffer of per-request server timings.
//
// Preallocated typed arrays plus one string array (the correlation ids), so recording a
// request is a handful of stores and no allocation. When full, new records are not kept
// and only counted in `dropped` (contract "Server timings"): memory never grows.

/** Routes as recorded in server_timings.route; the index is what the buffer stores. */
const ROUTE_LABELS = Object.freeze(['-', 'GET /health', 'POST /ads', 'GET /ads/{id}', 'GET /ads', 'GET /hello']);
const ROUTE_NONE = 0;
const ROUTE_HEALTH = 1;
const ROUTE_CREATE_AD = 2;
const ROUTE_GET_AD = 3;
const ROUTE_LIST_ADS = 4;
const ROUTE_HELLO = 5;

class TimingBuffer {
  /**
   * @param {number} capacity records kept (TIMINGS_CAPACITY)
   * @param {boolean} recording whether recording is on at start (TIMINGS_ENABLED)
   */
  constructor(capacity, recording) {
    this.capacity = capacity;
    this.recording = recording;
    this.count = 0;
    this.dropped = 0;
    this.correlationIds = new Array(capacity).fill('');
    this.routes = new Uint8Array(capacity);
    this.statuses = new Uint16Array(capacity);
    this.startedUs = new Float64Array(capacity); // epoch microseconds
    this.handlerUs = new Float64Array(capacity);
    this.poolWaitUs = new Float64Array(capacity);
    this.dbUs = new Float64Array(capacity);
  }

  record(correlationId, route, status, startedUs, handlerUs, poolWaitUs, dbUs) {
    if (!this.recording) return;
    const i = this.count;
    if (i === this.capacity) {
      this.dropped++;
      return;
    }
    this.correlationIds[i] = correlationId;
    this.routes[i] = route;
    this.statuses[i] = status;
    this.startedUs[i] = startedUs;
    this.handlerUs[i] = handlerUs;
    this.poolWaitUs[i] = poolWaitUs;
    this.dbUs[i] = dbUs;
    this.count = i + 1;
  }

  /** One record as a plain object (tests, COPY formatting). */
  get(i) {
    return {
      correlationId: this.correlationIds[i],
      route: ROUTE_LABELS[this.routes[i]],
      status: this.statuses[i],
      startedUs: this.startedUs[i],
      handlerUs: this.handlerUs[i],
      poolWaitUs: this.poolWaitUs[i],
      dbUs: this.dbUs[i],
    };
  }

  /** Drop the n oldest records (flushed), keep the rest in order. */
  removeFirst(n) {
    const rest = this.count - n;
    for (const a of [this.routes, this.statuses, this.startedUs, this.handlerUs, this.poolWaitUs, this.dbUs]) {
      a.copyWithin(0, n, this.count);
    }
    for (let i = 0; i < rest; i++) this.correlationIds[i] = this.correlationIds[i + n];
    this.correlationIds.fill('', rest, this.count);
    this.count = rest;
  }

  /** Empty the buffer and the dropped counter; returns how many records were removed. */
  clear() {
    const n = this.count;
    this.correlationIds.fill('', 0, n);
    this.count = 0;
    this.dropped = 0;
    return n;
  }
}

module.exports = {
  TimingBuffer,
  ROUTE_LABELS,
  ROUTE_NONE,
  ROUTE_HEALTH,
  ROUTE_CREATE_AD,
  ROUTE_GET_AD,
  ROUTE_LIST_ADS,
  ROUTE_HELLO,
};
