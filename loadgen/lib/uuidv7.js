'use strict';
// UUIDv7 (RFC 9562 §5.7) for correlation ids: 48-bit Unix milliseconds, version 7,
// a 12-bit counter in rand_a that is monotonic within one millisecond (RFC 9562
// §6.2 method 1), variant 10, 62 random bits. Random bytes are drawn in bulk, and
// ids are written straight into caller buffers (16 raw bytes or 36 hex chars), so
// generating one costs no allocation. Time-ordered ids keep the `requests` primary
// key compact and make a replayed spool batch recognisable. With an instance tag set
// (the loadgen index of a worker), the first 14 bits of rand_b carry it instead of
// random bits: in SQL, (get_byte(uuid_send(id), 8) & 63) * 256 + get_byte(uuid_send(id), 9).
// Ids of one process stay unique by their time and counter.

const crypto = require('node:crypto');

const RANDOM_POOL_BYTES = 16384;
const COUNTER_MAX = 0xfff;        // 12 bits of rand_a
const COUNTER_START_MAX = 0x3ff;  // random start leaves >= 3072 ids per millisecond

const pool = Buffer.allocUnsafe(RANDOM_POOL_BYTES);
let poolPos = RANDOM_POOL_BYTES;
let lastMs = 0;
let counter = 0;
let tag = -1;

const TAG_MAX = 0x3fff;

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

/** Writes a fresh UUIDv7 as 16 raw bytes into `out` at `offset`. */
function uuidv7Bytes(out, offset) {
  let ms = Date.now();
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
  const hi = Math.floor(ms / 0x100000000);
  const lo = ms >>> 0;
  out[offset] = (hi >>> 8) & 0xff;
  out[offset + 1] = hi & 0xff;
  out[offset + 2] = lo >>> 24;
  out[offset + 3] = (lo >>> 16) & 0xff;
  out[offset + 4] = (lo >>> 8) & 0xff;
  out[offset + 5] = lo & 0xff;
  out[offset + 6] = 0x70 | (counter >>> 8);
  out[offset + 7] = counter & 0xff;
  const r = randomBytes(8);
  if (tag < 0) {
    out[offset + 8] = 0x80 | (pool[r] & 0x3f);
    out[offset + 9] = pool[r + 1];
  } else {
    out[offset + 8] = 0x80 | (tag >>> 8);
    out[offset + 9] = tag & 0xff;
  }
  for (let i = 2; i < 8; i++) out[offset + 8 + i] = pool[r + i];
}

/** Writes 16 raw UUID bytes from `src[srcOff..]` as 36 ASCII chars into `out[outOff..]`. */
function writeUuidHex(src, srcOff, out, outOff) {
  let o = outOff;
  for (let i = 0; i < 16; i++) {
    if (i === 4 || i === 6 || i === 8 || i === 10) out[o++] = 0x2d; // '-'
    const pair = HEX_PAIRS[src[srcOff + i]];
    out[o] = pair & 0xff;
    out[o + 1] = pair >>> 8;
    o += 2;
  }
  return o;
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
