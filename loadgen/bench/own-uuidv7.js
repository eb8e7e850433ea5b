'use strict';
// own-uuidv7.js — preloaded by efficiency.sh --uuid (node -r) into the "loadgen-own-uuid"
// runs: lib/uuidv7.js's uuidv7Bytes and setInstanceTag replaced by a hand-written writer of
// the same layout (48-bit ms, version 7, 12-bit counter, variant 10, 14 tag-or-random bits,
// 48 random bits) and the same monotonic counter, so that the uuid package's cost per
// request shows beside it in one run.

const crypto = require('node:crypto');
const uuidv7 = require('../lib/uuidv7');

const POOL_BYTES = 16384;
const pool = Buffer.allocUnsafe(POOL_BYTES);
let poolPos = POOL_BYTES;
let lastMs = 0;
let counter = 0;
let tag = -1;

function take(n) {
  if (poolPos + n > POOL_BYTES) {
    crypto.randomFillSync(pool);
    poolPos = 0;
  }
  poolPos += n;
  return poolPos - n;
}

uuidv7.setInstanceTag = (index) => { tag = index & 0x3fff; };

uuidv7.uuidv7Bytes = (out, offset, nowMs = Date.now()) => {
  let ms = nowMs;
  if (ms > lastMs) {
    lastMs = ms;
    const r = take(2);
    counter = ((pool[r] << 8) | pool[r + 1]) & 0x3ff;
  } else {
    counter++;
    if (counter > 0xfff) { lastMs++; counter = 0; }
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
  const r = take(8);
  out[offset + 8] = 0x80 | (tag < 0 ? pool[r] & 0x3f : tag >>> 8);
  out[offset + 9] = tag < 0 ? pool[r + 1] : tag & 0xff;
  for (let i = 2; i < 8; i++) out[offset + 8 + i] = pool[r + i];
};
