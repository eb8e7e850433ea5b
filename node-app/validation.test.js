'use strict';
// validation.test.js — every field rule and message of the contract, in its order.

const test = require('node:test');
const assert = require('node:assert/strict');
const { validateAd, validateAdId, validatePage, validateRound, validateEnabled, codePoints } = require('./validation');

const ok = { title: 'Bike', body: 'Almost new.', price: '120', contact: 'anna@example.com' };

test('validateAd accepts and fills defaults', () => {
  assert.deepEqual(validateAd(ok), ok);
  assert.deepEqual(validateAd({ title: 'T' }), { title: 'T', body: '', price: '0', contact: '' });
  for (const price of ['0', '0.5', '0.05', '10.10', '1000000', '1000000.00', '999999.99']) {
    assert.equal(validateAd({ ...ok, price }).price, price);
  }
  // lengths are code points: 200 emoji (400 UTF-16 units) is still a valid title
  assert.equal(validateAd({ ...ok, title: '🚲'.repeat(200) }).title.length, 400);
  assert.equal(validateAd({ ...ok, body: 'a\tb\r\nc\n' }).body, 'a\tb\r\nc\n');
});

test('validateAd messages', async (t) => {
  const cases = [
    [{ title: undefined }, 'title is required'],
    [{ title: '' }, 'title is required'],
    [{ title: 'x'.repeat(201) }, 'title over 200 characters'],
    [{ title: '🚲'.repeat(201) }, 'title over 200 characters'],
    [{ title: 'a\nb' }, 'title must be one line of text'],
    [{ title: 'a\tb' }, 'title must be one line of text'],
    [{ title: 'a\u007fb' }, 'title must be one line of text'],
    [{ title: '\u0000' }, 'title must be one line of text'],
    [{ body: 'x'.repeat(4001) }, 'body over 4000 characters'],
    [{ body: 'a\u0000' }, 'body contains a control character'],
    [{ body: 'a\u000b' }, 'body contains a control character'],
    [{ body: '\u007f' }, 'body contains a control character'],
    [{ price: '' }, 'price must be a non-negative decimal with at most 2 decimals'],
    [{ price: '-1' }, 'price must be a non-negative decimal with at most 2 decimals'],
    [{ price: '01' }, 'price must be a non-negative decimal with at most 2 decimals'],
    [{ price: '1.' }, 'price must be a non-negative decimal with at most 2 decimals'],
    [{ price: '.5' }, 'price must be a non-negative decimal with at most 2 decimals'],
    [{ price: '1.234' }, 'price must be a non-negative decimal with at most 2 decimals'],
    [{ price: '1e3' }, 'price must be a non-negative decimal with at most 2 decimals'],
    [{ price: ' 1' }, 'price must be a non-negative decimal with at most 2 decimals'],
    [{ price: '1000000.01' }, 'price over 1000000'],
    [{ price: '99999999999999999999999' }, 'price over 1000000'],
    [{ contact: 'x'.repeat(201) }, 'contact over 200 characters'],
    [{ contact: 'a\rb' }, 'contact must be one line of text'],
    // order: the first failing rule of the table answers
    [{ title: 'a\n', body: '\u0000' }, 'title must be one line of text'],
    [{ body: '\u0000', price: 'x' }, 'body contains a control character'],
    [{ price: '2000000', contact: '\n' }, 'price over 1000000'],
    [{ contact: 'x\n'.repeat(101) }, 'contact over 200 characters'],
  ];
  for (const [fields, message] of cases) {
    await t.test(`${JSON.stringify(fields).slice(0, 60)} → ${message}`, () => {
      assert.throws(() => validateAd({ ...ok, ...fields }), { status: 400, reason: message });
    });
  }
});

test('codePoints counts astral characters once', () => {
  assert.equal(codePoints(''), 0);
  assert.equal(codePoints('abc'), 3);
  assert.equal(codePoints('é🚲'), 2);
});

test('validateAdId', () => {
  for (const id of ['1', '42', '9223372036854775807', '1000000000000000000']) assert.equal(validateAdId(id), id);
  for (const id of ['0', '01', '-1', '1.0', 'abc', '9223372036854775808', '10000000000000000000', '%31', '']) {
    assert.throws(() => validateAdId(id), { status: 400, reason: 'id must be an integer from 1 to 9223372036854775807' }, id);
  }
});

test('validatePage', async (t) => {
  const q = (o) => new Map(Object.entries(o));
  assert.deepEqual(validatePage(q({})), { limit: 20, offset: 0 });
  assert.deepEqual(validatePage(q({ limit: '100', offset: '1000000', other: 'x' })), { limit: 100, offset: 1000000 });
  assert.deepEqual(validatePage(q({ limit: '1', offset: '0' })), { limit: 1, offset: 0 });
  const limitMsg = 'limit must be an integer from 1 to 100';
  const offsetMsg = 'offset must be an integer from 0 to 1000000';
  const cases = [
    [{ limit: '' }, limitMsg],
    [{ limit: '0' }, limitMsg],
    [{ limit: '101' }, limitMsg],
    [{ limit: '-1' }, limitMsg],
    [{ limit: '1.5' }, limitMsg],
    [{ limit: ' 1' }, limitMsg],
    [{ offset: '' }, offsetMsg],
    [{ offset: '1000001' }, offsetMsg],
    [{ offset: 'x' }, offsetMsg],
    [{ limit: 'x', offset: 'x' }, limitMsg],
  ];
  for (const [params, message] of cases) {
    await t.test(JSON.stringify(params), () => assert.throws(() => validatePage(q(params)), { status: 400, reason: message }));
  }
});

test('validateRound and validateEnabled', () => {
  const q = (o) => new Map(Object.entries(o));
  assert.equal(validateRound(q({})), null);
  assert.equal(validateRound(q({ round: '12' })), '12');
  for (const round of ['', '0', '-3', 'x', '9223372036854775808']) {
    assert.throws(() => validateRound(q({ round })), { status: 400, reason: 'round must be a positive integer' }, round);
  }
  assert.equal(validateEnabled(q({ enabled: 'on' })), true);
  assert.equal(validateEnabled(q({ enabled: 'off' })), false);
  for (const p of [{}, { enabled: '' }, { enabled: 'ON' }, { enabled: 'true' }]) {
    assert.throws(() => validateEnabled(q(p)), { status: 400, reason: 'enabled must be on or off' });
  }
});
