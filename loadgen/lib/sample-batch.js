'use strict';
// A batch of samples in preallocated typed arrays (one column each), and its
// encoding for COPY into the `requests` table (results-schema.sql) without a
// per-row object: fields are written byte by byte into one reusable scratch buffer,
// then copied out compactly. Runs use the binary COPY format (fixed-width fields,
// nothing for PostgreSQL to parse); the text format is kept for comparison
// (bench/ingest.sh) and as a readable cross-check in the tests.

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
// Binary COPY: signature, flags, header extension length (PostgreSQL docs, "COPY", Binary Format).
const BINARY_HEADER = Buffer.from('PGCOPY\n\xff\r\n\0\0\0\0\0\0\0\0\0', 'latin1');
const PG_EPOCH_US = Date.UTC(2000, 0, 1) * 1000;

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
      else o = copyVcap(this.vcap, i * VCAP_MAX_BYTES, vl, out, o);
      out[o++] = 10;
    }
    this.length = 0;
    return Buffer.from(out.subarray(0, o));
  }

  /** Encodes all rows as binary COPY and empties the batch; returns a compact Buffer. */
  encodeBinary(roundId, loadgenIndex) {
    const out = this.scratch;
    let o = BINARY_HEADER.copy(out, 0);
    const round = BigInt(roundId);
    for (let i = 0; i < this.length; i++) {
      out.writeInt16BE(12, o); o += 2;
      out.writeInt32BE(16, o); o += 4;
      out.set(this.uuid.subarray(i * 16, i * 16 + 16), o); o += 16;
      out.writeInt32BE(8, o); o += 4;
      out.writeBigInt64BE(round, o); o += 8;
      out.writeInt32BE(4, o); o += 4;
      out.writeInt32BE(loadgenIndex, o); o += 4;
      const opName = OP_BUFS[this.op[i]];
      out.writeInt32BE(opName.length, o); o += 4;
      o += opName.copy(out, o);
      o = writeInt64Field(out, o, this.intendedUs[i] - PG_EPOCH_US);
      o = writeInt64Field(out, o, this.startedUs[i] - PG_EPOCH_US);
      o = writeInt64Field(out, o, Math.max(0, Math.round(this.latencyUs[i])));
      out.writeInt32BE(2, o); o += 4;
      out.writeInt16BE(this.status[i] > 32767 ? 32767 : this.status[i], o); o += 2;
      const kind = this.kind[i];
      if (kind === 0) { out.writeInt32BE(-1, o); o += 4; } else {
        const k = KIND_BUFS[kind];
        out.writeInt32BE(k.length, o); o += 4;
        o += k.copy(out, o);
      }
      out.writeInt32BE(4, o); o += 4;
      out.writeInt32BE(this.bytes[i], o); o += 4;
      if (this.appInstance[i] < 0) { out.writeInt32BE(-1, o); o += 4; } else {
        out.writeInt32BE(4, o); o += 4;
        out.writeInt32BE(this.appInstance[i], o); o += 4;
      }
      const vl = this.vcapLen[i];
      if (vl === 0) { out.writeInt32BE(-1, o); o += 4; } else {
        out.writeInt32BE(vl, o); o += 4;
        o = copyVcap(this.vcap, i * VCAP_MAX_BYTES, vl, out, o);
      }
    }
    out.writeInt16BE(-1, o); o += 2;
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

/** The router's request id, visible ASCII only ('?' otherwise): COPY-safe in both formats. */
function copyVcap(src, base, len, out, o) {
  for (let k = 0; k < len; k++) {
    const c = src[base + k];
    out[o++] = c < 0x21 || c > 0x7e || c === 0x5c ? 0x3f : c;
  }
  return o;
}

// int64 as two 32-bit halves: exact for |n| < 2^53, no BigInt per value.
function writeInt64Field(out, o, n) {
  out.writeInt32BE(8, o);
  const hi = Math.floor(n / 4294967296);
  out.writeInt32BE(hi, o + 4);
  out.writeUInt32BE(n - hi * 4294967296, o + 8);
  return o + 12;
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
