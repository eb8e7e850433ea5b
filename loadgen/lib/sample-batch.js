'use strict';
// A batch of samples in preallocated typed arrays (one column each), and its
// encoding as PostgreSQL COPY text for the `requests` table (results-schema.sql)
// without a per-row object: digits, the correlation id and timestamps are written
// byte by byte into one reusable scratch buffer, then copied out compactly.

const { performance } = require('node:perf_hooks');
const { writeUuidHex } = require('./uuidv7');
const { ERROR_KINDS } = require('./stats');
const { OP_NAMES } = require('./scenario');
const { VCAP_MAX_BYTES } = require('./response-parser');

const COPY_COLUMNS = 'correlation_id, round_id, loadgen_index, op, intended_at, started_at, latency_us, ' +
  'status, error_kind, bytes, app_instance, vcap_request_id';
const MAX_ROW_BYTES = 320;
const TIME_ORIGIN_US = performance.timeOrigin * 1000;
const OP_BUFS = OP_NAMES.map((n) => Buffer.from(n));
const KIND_BUFS = ERROR_KINDS.map((k) => Buffer.from(k === null ? '\\N' : k));
const NULL = Buffer.from('\\N');

/** performance.now() milliseconds -> Unix microseconds (integer). */
function wallUs(ms) { return Math.round(TIME_ORIGIN_US + ms * 1000); }

class SampleBatch {
  constructor(capacity) {
    this.capacity = capacity;
    this.length = 0;
    this.uuid = new Uint8Array(capacity * 16);
    this.op = new Uint8Array(capacity);
    this.kind = new Uint8Array(capacity);
    this.status = new Uint16Array(capacity);
    this.intendedUs = new Float64Array(capacity);
    this.startedUs = new Float64Array(capacity);
    this.latencyUs = new Float64Array(capacity);
    this.bytes = new Int32Array(capacity);
    this.appInstance = new Int32Array(capacity);
    this.vcap = new Uint8Array(capacity * VCAP_MAX_BYTES);
    this.vcapLen = new Uint8Array(capacity);
    this.scratch = Buffer.allocUnsafe(capacity * MAX_ROW_BYTES);
    this.tsMinuteStartUs = -1;
    this.tsPrefix = Buffer.alloc(17);
  }

  get full() { return this.length >= this.capacity; }

  /** Adds a finished request from a connection; returns true when the batch is full. */
  add(conn, kind, latencyUs) {
    const i = this.length++;
    const p = conn.parser;
    this.uuid.set(conn.uuid, i * 16);
    this.op[i] = conn.op;
    this.kind[i] = kind;
    this.status[i] = p.status;
    this.intendedUs[i] = wallUs(conn.intendedMs);
    this.startedUs[i] = wallUs(conn.startedMs);
    this.latencyUs[i] = latencyUs;
    this.bytes[i] = p.bodyBytes > 2147483647 ? 2147483647 : p.bodyBytes;
    this.appInstance[i] = p.appInstance;
    const vl = p.vcapLen;
    this.vcapLen[i] = vl;
    if (vl > 0) this.vcap.set(p.vcap.subarray(0, vl), i * VCAP_MAX_BYTES);
    return this.length >= this.capacity;
  }

  /** Encodes all rows as COPY text and empties the batch; returns a compact Buffer. */
  encode(roundId, loadgenIndex) {
    const out = this.scratch;
    const fixed = Buffer.from('\t' + roundId + '\t' + loadgenIndex + '\t');
    let o = 0;
    for (let i = 0; i < this.length; i++) {
      o = writeUuidHex(this.uuid, i * 16, out, o);
      o += fixed.copy(out, o);
      o += OP_BUFS[this.op[i]].copy(out, o);
      out[o++] = 9;
      o = this.writeTimestamp(out, o, this.intendedUs[i]);
      out[o++] = 9;
      o = this.writeTimestamp(out, o, this.startedUs[i]);
      out[o++] = 9;
      o = writeInt(out, o, Math.max(0, Math.round(this.latencyUs[i])));
      out[o++] = 9;
      o = writeInt(out, o, this.status[i]);
      out[o++] = 9;
      o += KIND_BUFS[this.kind[i]].copy(out, o);
      out[o++] = 9;
      o = writeInt(out, o, this.bytes[i]);
      out[o++] = 9;
      o = this.appInstance[i] >= 0 ? writeInt(out, o, this.appInstance[i]) : o + NULL.copy(out, o);
      out[o++] = 9;
      const vl = this.vcapLen[i];
      if (vl === 0) o += NULL.copy(out, o);
      else {
        const base = i * VCAP_MAX_BYTES;
        for (let k = 0; k < vl; k++) {
          const c = this.vcap[base + k];
          out[o++] = c < 0x21 || c > 0x7e || c === 0x5c ? 0x3f : c; // COPY-safe: no escapes needed
        }
      }
      out[o++] = 10;
    }
    this.length = 0;
    return Buffer.from(out.subarray(0, o));
  }

  /** "YYYY-MM-DD HH:MM:SS.ffffff+00" with the minute prefix cached. */
  writeTimestamp(out, o, us) {
    if (us < this.tsMinuteStartUs || us >= this.tsMinuteStartUs + 60e6) {
      this.tsMinuteStartUs = Math.floor(us / 60e6) * 60e6;
      const iso = new Date(this.tsMinuteStartUs / 1000).toISOString(); // 2026-11-21T13:23:00.000Z
      this.tsPrefix.latin1Write(iso.slice(0, 10) + ' ' + iso.slice(11, 17), 0);
    }
    o += this.tsPrefix.copy(out, o);
    const inMinute = us - this.tsMinuteStartUs;
    const sec = Math.floor(inMinute / 1e6);
    const frac = inMinute - sec * 1e6;
    out[o++] = 48 + Math.floor(sec / 10);
    out[o++] = 48 + (sec % 10);
    out[o++] = 46; // .
    for (let d = 100000; d >= 1; d /= 10) out[o++] = 48 + (Math.floor(frac / d) % 10);
    out[o++] = 43; out[o++] = 48; out[o++] = 48; // +00
    return o;
  }
}

const DIGITS = new Uint8Array(20);
function writeInt(out, o, n) {
  if (n === 0) { out[o] = 48; return o + 1; }
  let len = 0;
  while (n > 0) {
    const q = Math.floor(n / 10);
    DIGITS[len++] = 48 + (n - q * 10);
    n = q;
  }
  while (len > 0) out[o++] = DIGITS[--len];
  return o;
}

module.exports = { SampleBatch, COPY_COLUMNS, wallUs };
