'use strict';
const test = require('node:test');
const assert = require('node:assert');
const { uuidv7, uuidv7Bytes, writeUuidHex, setInstanceTag } = require('../lib/uuidv7');

test('uuidv7: 200k ids are unique and strictly increasing in generation order', () => {
  const ids = Array.from({ length: 200000 }, () => uuidv7());
  assert.strictEqual(new Set(ids).size, ids.length);
  for (let i = 1; i < ids.length; i++) assert.ok(ids[i - 1] < ids[i], `${ids[i - 1]} !< ${ids[i]} at ${i}`);
});

test('uuidv7: version 7, variant 10, time prefix is now', () => {
  const before = Date.now();
  const id = uuidv7();
  assert.match(id, /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  const ms = parseInt(id.slice(0, 8) + id.slice(9, 13), 16);
  assert.ok(ms >= before && ms <= Date.now() + 1, `time ${ms} not around ${before}`);
});

test('uuidv7: bytes and hex writer agree', () => {
  const b = Buffer.alloc(16);
  uuidv7Bytes(b, 0);
  const out = Buffer.alloc(36);
  writeUuidHex(b, 0, out, 0);
  assert.strictEqual(out.toString().replace(/-/g, ''), b.toString('hex'));
});

test('uuidv7: an instance tag is in the first 14 bits of rand_b; ids stay unique, increasing, version 7, variant 10', () => {
  setInstanceTag(12345);
  const ids = Array.from({ length: 50000 }, () => uuidv7());
  for (const id of [ids[0], ids[ids.length - 1]]) {
    const b = Buffer.from(id.replace(/-/g, ''), 'hex');
    assert.strictEqual((b[8] & 63) * 256 + b[9], 12345, id);
    assert.strictEqual(b[6] >> 4, 7);
    assert.strictEqual(b[8] >> 6, 2);
  }
  assert.strictEqual(new Set(ids).size, ids.length);
  assert.ok(ids.every((id, i) => i === 0 || id > ids[i - 1]));
});

test('uuidv7: the uuid package validates the ids as version 7', () => {
  const { validate, version } = require('uuid');
  for (const id of Array.from({ length: 1000 }, () => uuidv7())) {
    assert.ok(validate(id), id);
    assert.strictEqual(version(id), 7);
  }
});

test('uuidv7: an id made for a given millisecond carries it', () => {
  const b = Buffer.alloc(16);
  const ms = Date.now() + 60000; // later than any id made so far (the counter starts afresh); the last test here
  uuidv7Bytes(b, 0, ms);
  assert.strictEqual(b.readUIntBE(0, 6), ms);
  assert.strictEqual(b[6] >> 4, 7);
});
