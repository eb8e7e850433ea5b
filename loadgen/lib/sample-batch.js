'use strict';
// A batch of samples in preallocated typed arrays (one column each), and its
// encoding for COPY into the `requests` table (results-schema.sql) without a
// per-row object: fields are written byte by byte into one reusable scratch buffer,
// then copied out compactly. Runs use the binary COPY format (fixed-width fields,
// nothing for PostgreSQL to parse); the text format is kept for comparison
// (bench/ingest.sh) and as a readable cross-check in the tests. The rows of an encoded batch
// are counted back from its bytes (per round: what a spool holds that never reached the database).

const { performance } = require('node:perf_hooks');
const { writeUuidHex } = require('./uuidv7');
const { ERROR_KINDS } = require('./stats');
const { OP_NAMES } = require('./scenario');
const { VCAP_MAX_BYTES } = require('./response-parser');

const COPY_COLUMNS = 'correlation_id, round_id, loadgen_index, op, intended_at, started_at, latency_us, ' +
  'status, error_kind, bytes, app_instance, vcap_request_id';
const MAX_ROW_BYTES = 320;
const MAX_SPARE_BUFFERS = 4;
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
    this.okRows = 0;
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
    this.scratchBytes = capacity * MAX_ROW_BYTES;
    this.scratch = Buffer.allocUnsafe(this.scratchBytes);
    this.spare = [];
    this.tsMinuteStartUs = -1;
    this.tsPrefix = Buffer.alloc(17);
  }

  get full() { return this.length >= this.capacity; }

  /** Adds a finished request from a connection; returns true when the batch is full. */
  add(conn, kind, latencyUs) {
    const i = this.length++;
    if (kind === 0) this.okRows++;
    const p = conn.parser;
    const u = conn.uuid;
    const uo = i * 16;
    for (let k = 0; k < 16; k++) this.uuid[uo + k] = u[k];
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
    const base = i * VCAP_MAX_BYTES;
    for (let k = 0; k < vl; k++) this.vcap[base + k] = p.vcap[k];
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
    this.okRows = 0;
    return Buffer.from(out.subarray(0, o));
  }

  /**
   * Encodes all rows as binary COPY and empties the batch. Returns a view of the
   * encode buffer itself (no copy); give it back with release() once it is loaded or
   * spooled, so that the buffers are reused instead of left to the garbage collector
   * (a few MB per second at full speed would otherwise inflate the RSS).
   */
  encodeBinary(roundId, loadgenIndex) {
    this.lastRows = this.length;
    this.lastOk = this.okRows;
    const out = this.scratch;
    const dv = new DataView(out.buffer, out.byteOffset, out.byteLength);
    let o = BINARY_HEADER.copy(out, 0);
    const roundHi = Math.floor(roundId / 4294967296);
    const roundLo = roundId - roundHi * 4294967296;
    for (let i = 0; i < this.length; i++) {
      dv.setInt16(o, 12);
      dv.setInt32(o + 2, 16);
      o += 6;
      const u = i * 16;
      for (let k = 0; k < 16; k++) out[o + k] = this.uuid[u + k];
      dv.setInt32(o + 16, 8);
      dv.setInt32(o + 20, roundHi);
      dv.setUint32(o + 24, roundLo);
      dv.setInt32(o + 28, 4);
      dv.setInt32(o + 32, loadgenIndex);
      o += 36;
      const opName = OP_BUFS[this.op[i]];
      dv.setInt32(o, opName.length);
      o += 4;
      for (let k = 0; k < opName.length; k++) out[o++] = opName[k];
      o = int64(dv, o, this.intendedUs[i] - PG_EPOCH_US);
      o = int64(dv, o, this.startedUs[i] - PG_EPOCH_US);
      o = int64(dv, o, Math.max(0, Math.round(this.latencyUs[i])));
      dv.setInt32(o, 2);
      dv.setInt16(o + 4, this.status[i] > 32767 ? 32767 : this.status[i]);
      o += 6;
      const kind = this.kind[i];
      if (kind === 0) { dv.setInt32(o, -1); o += 4; } else {
        const k = KIND_BUFS[kind];
        dv.setInt32(o, k.length);
        o += 4;
        for (let c = 0; c < k.length; c++) out[o++] = k[c];
      }
      dv.setInt32(o, 4);
      dv.setInt32(o + 4, this.bytes[i]);
      o += 8;
      if (this.appInstance[i] < 0) { dv.setInt32(o, -1); o += 4; } else {
        dv.setInt32(o, 4);
        dv.setInt32(o + 4, this.appInstance[i]);
        o += 8;
      }
      const vl = this.vcapLen[i];
      if (vl === 0) { dv.setInt32(o, -1); o += 4; } else {
        dv.setInt32(o, vl);
        o = copyVcap(this.vcap, i * VCAP_MAX_BYTES, vl, out, o + 4);
      }
    }
    dv.setInt16(o, -1);
    o += 2;
    this.length = 0;
    this.okRows = 0;
    this.scratch = this.spare.pop() || Buffer.allocUnsafe(this.scratchBytes);
    return out.subarray(0, o);
  }

  /** Takes back a buffer returned by encodeBinary() for reuse. */
  release(view) {
    if (this.spare.length < MAX_SPARE_BUFFERS) this.spare.push(Buffer.from(view.buffer, view.byteOffset, this.scratchBytes));
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

// A binary int64 field (length 8, value) as two 32-bit halves: exact for |n| < 2^53,
// no BigInt per value.
function int64(dv, o, n) {
  const hi = Math.floor(n / 4294967296);
  dv.setInt32(o, 8);
  dv.setInt32(o + 4, hi);
  dv.setUint32(o + 8, n - hi * 4294967296);
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

/** Rows of a binary COPY batch per round id (its second field): walks the tuples by their field lengths. */
function binaryRowsByRound(buf) {
  const byRound = new Map();
  let o = BINARY_HEADER.length;
  while (o + 2 <= buf.length) {
    const fields = buf.readInt16BE(o);
    o += 2;
    if (fields < 0) break;
    let round = 0;
    for (let f = 0; f < fields; f++) {
      const len = buf.readInt32BE(o);
      if (f === 1 && len === 8) round = buf.readInt32BE(o + 4) * 4294967296 + buf.readUInt32BE(o + 8);
      o += 4 + (len > 0 ? len : 0);
    }
    byRound.set(round, (byRound.get(round) || 0) + 1);
  }
  return byRound;
}

function countBinaryRows(buf) {
  let n = 0;
  for (const v of binaryRowsByRound(buf).values()) n += v;
  return n;
}

function countTextRows(buf) {
  let n = 0;
  let i = -1;
  while ((i = buf.indexOf(10, i + 1)) !== -1) n++;
  return n;
}

module.exports = { SampleBatch, COPY_COLUMNS, BINARY_HEADER, wallUs, binaryRowsByRound, countBinaryRows, countTextRows };
