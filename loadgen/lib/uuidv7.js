'use strict';
// UUIDv7 (RFC 9562 §5.7) for correlation ids, made by the `uuid` package's v7 with its
// options: msecs = Unix milliseconds, seq = a 12-bit counter that is monotonic within one
// millisecond (RFC 9562 §6.2 method 1; seq's top 12 bits are rand_a), then 14 bits that
// carry the instance tag when one is set (the loadgen index of a worker) and random bits
// otherwise, then 6 random bits; the package adds version 7, variant 10 and the last 38
// random bits from `random`. Random bytes are drawn in bulk, and ids are written straight
// into caller buffers (16 raw bytes or 36 hex chars), so generating one allocates nothing.
// Time-ordered ids keep the `requests` primary key compact and make a replayed spool batch
// recognisable. The tag, in SQL: (get_byte(uuid_send(id), 8) & 63) * 256 + get_byte(uuid_send(id), 9).
// Ids of one process stay unique by their time and counter.

const crypto = require('node:crypto');
const { v7 } = require('uuid');

const RANDOM_POOL_BYTES = 16384;
const COUNTER_MAX = 0xfff;        // 12 bits of rand_a
const COUNTER_START_MAX = 0x3ff;  // random start leaves >= 3072 ids per millisecond

const pool = Buffer.allocUnsafe(RANDOM_POOL_BYTES);
let poolPos = RANDOM_POOL_BYTES;
let lastMs = 0;
let counter = 0;
let tag = -1;

const TAG_MAX = 0x3fff;
// One options object, rewritten per id: v7 reads msecs, seq and random[10..15] from it.
const v7Options = { msecs: 0, seq: 0, random: new Uint8Array(16) };

/** Puts `index` (0..16383, taken modulo 16384) into every id made from now on. */
function setInstanceTag(index) {
  tag = index & TAG_MAX;
}

// HEX[b] = two ASCII bytes of b in lower-case hex, as one 16-bit little-endian value.
const HEX_PAIRS = new Uint16Array(256);
for (let i = 0; i < 256; i++) {
  const s = i.toString(16).padStart(2, '0');
  HEX_PAIRS[i] = s.charCodeAt(0) | (s.charCodeAt(1) << 8);
}

function randomBytes(n) {
  if (poolPos + n > RANDOM_POOL_BYTES) {
    crypto.randomFillSync(pool);
    poolPos = 0;
  }
  const at = poolPos;
  poolPos += n;
  return at;
}

/** Writes a fresh UUIDv7 as 16 raw bytes into `out` at `offset`; `nowMs`: Unix milliseconds (default Date.now()). */
function uuidv7Bytes(out, offset, nowMs = Date.now()) {
  let ms = nowMs;
  if (ms > lastMs) {
    lastMs = ms;
    const r = randomBytes(2);
    counter = ((pool[r] << 8) | pool[r + 1]) & COUNTER_START_MAX;
  } else {
    // Same (or a clock that stepped back): keep order by counting on.
    counter++;
    if (counter > COUNTER_MAX) {
      lastMs++;
      counter = 0;
    }
    ms = lastMs;
  }
  const r = randomBytes(9);
  const mid = tag < 0 ? ((pool[r] << 8) | pool[r + 1]) & TAG_MAX : tag;
  v7Options.msecs = ms;
  v7Options.seq = (counter << 20) | (mid << 6) | (pool[r + 2] & 0x3f);
  const rnd = v7Options.random;
  for (let i = 0; i < 6; i++) rnd[10 + i] = pool[r + 3 + i];
  v7(v7Options, out, offset);
}

/** Writes 16 raw UUID bytes from `src[srcOff..]` as 36 ASCII chars into `out[outOff..]`. */
function writeUuidHex(src, s, out, o) {
  // Unrolled (once per request): the loop's test for where a dash goes cost as much as the digits.
  hexAt(out, o, src[s]); hexAt(out, o + 2, src[s + 1]); hexAt(out, o + 4, src[s + 2]); hexAt(out, o + 6, src[s + 3]);
  out[o + 8] = 0x2d;
  hexAt(out, o + 9, src[s + 4]); hexAt(out, o + 11, src[s + 5]);
  out[o + 13] = 0x2d;
  hexAt(out, o + 14, src[s + 6]); hexAt(out, o + 16, src[s + 7]);
  out[o + 18] = 0x2d;
  hexAt(out, o + 19, src[s + 8]); hexAt(out, o + 21, src[s + 9]);
  out[o + 23] = 0x2d;
  hexAt(out, o + 24, src[s + 10]); hexAt(out, o + 26, src[s + 11]); hexAt(out, o + 28, src[s + 12]);
  hexAt(out, o + 30, src[s + 13]); hexAt(out, o + 32, src[s + 14]); hexAt(out, o + 34, src[s + 15]);
  return o + 36;
}

function hexAt(out, o, byte) {
  const pair = HEX_PAIRS[byte];
  out[o] = pair & 0xff;
  out[o + 1] = pair >>> 8;
}

/** A UUIDv7 as a string (convenience for tests and the control plane; allocates). */
function uuidv7() {
  const b = Buffer.allocUnsafe(16);
  uuidv7Bytes(b, 0);
  const s = Buffer.allocUnsafe(36);
  writeUuidHex(b, 0, s, 0);
  return s.latin1Slice(0, 36);
}

module.exports = { uuidv7, uuidv7Bytes, setInstanceTag, writeUuidHex, UUID_BYTES: 16, UUID_HEX_LENGTH: 36 };
