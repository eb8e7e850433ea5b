'use strict';
// form-parser.test.js — strict urlencoded decoding: percent-encoding, UTF-8, duplicates, order.

const test = require('node:test');
const assert = require('node:assert/strict');
const { decodePairs, parseAdForm, parseQuery, isFormContentType } = require('./form-parser');

const b = (s) => Buffer.from(s, 'latin1');

test('decodePairs splits on & then the first =, + is a space, empty pairs skipped', async (t) => {
  const cases = [
    ['', []],
    ['a=1', ['a', '1']],
    ['a=1&&b=2&', ['a', '1', 'b', '2']],
    ['a', ['a', '']],
    ['a=', ['a', '']],
    ['=v', ['', 'v']],
    ['a=b=c', ['a', 'b=c']],
    ['t=Bike+for%20sale', ['t', 'Bike for sale']],
    ['%2B=%2b%26%3D', ['+', '+&=']],
    ['x=%C3%A9%F0%9F%9A%B2', ['x', 'é🚲']],
    ['x=%EF%BB%BFa', ['x', '\uFEFFa']], // a leading BOM is data
    ['x=%00%0A', ['x', '\u0000\n']],
  ];
  for (const [input, expected] of cases) {
    await t.test(JSON.stringify(input), () => assert.deepEqual(decodePairs(b(input)), expected));
  }
});

test('decodePairs rejects malformed percent-encoding and invalid UTF-8', async (t) => {
  const cases = [
    ['a=%', 'malformed percent-encoding'],
    ['a=%4', 'malformed percent-encoding'],
    ['a=%zz', 'malformed percent-encoding'],
    ['a=%4g', 'malformed percent-encoding'],
    ['%=1', 'malformed percent-encoding'],
    ['a=1&b=%2', 'malformed percent-encoding'],
    ['a=%ff', 'invalid UTF-8'],
    ['a=%C3', 'invalid UTF-8'],
    ['a=%ED%A0%80', 'invalid UTF-8'], // an encoded surrogate
    ['a=%C0%AF', 'invalid UTF-8'], // overlong
    ['%ff=1', 'invalid UTF-8'],
    // the order of the contract: malformed % anywhere wins over bad UTF-8 earlier
    ['a=%ff&b=%zz', 'malformed percent-encoding'],
  ];
  for (const [input, message] of cases) {
    await t.test(input, () => assert.throws(() => decodePairs(b(input)), { status: 400, reason: message }));
  }
  await t.test('raw non-UTF-8 bytes in a body', () => {
    assert.throws(() => decodePairs(Buffer.from([0x61, 0x3d, 0xff])), { status: 400, reason: 'invalid UTF-8' });
  });
});

test('parseAdForm takes the four fields and rejects one given twice', async (t) => {
  assert.deepEqual(parseAdForm(b('title=T&body=B&price=1.5&contact=C&other=x&other=y')), {
    title: 'T',
    body: 'B',
    price: '1.5',
    contact: 'C',
  });
  assert.deepEqual(parseAdForm(b('title=T')), { title: 'T', body: undefined, price: undefined, contact: undefined });
  const cases = [
    ['title=a&title=b', 'duplicate field: title'],
    ['body=&body=', 'duplicate field: body'],
    ['price=1&title=t&price=2', 'duplicate field: price'],
    ['contact=a&contact=a', 'duplicate field: contact'],
    // order: bad UTF-8 and malformed % win over a duplicate
    ['title=a&title=b&x=%ff', 'invalid UTF-8'],
    ['title=a&title=b&x=%f', 'malformed percent-encoding'],
  ];
  for (const [input, message] of cases) {
    await t.test(input, () => assert.throws(() => parseAdForm(b(input)), { status: 400, reason: message }));
  }
});

test('parseQuery: first occurrence wins, strict decoding', () => {
  const q = parseQuery('limit=5&offset=%31%30&limit=7');
  assert.equal(q.get('limit'), '5');
  assert.equal(q.get('offset'), '10');
  assert.equal(parseQuery('').size, 0);
  assert.throws(() => parseQuery('limit=%zz'), { reason: 'malformed percent-encoding' });
  assert.throws(() => parseQuery('limit=%80'), { reason: 'invalid UTF-8' });
});

test('isFormContentType: case-insensitive, parameters allowed, missing is wrong', () => {
  for (const ok of ['application/x-www-form-urlencoded', 'Application/X-WWW-Form-URLEncoded', 'application/x-www-form-urlencoded; charset=utf-8', ' application/x-www-form-urlencoded ;x=1']) {
    assert.equal(isFormContentType(ok), true, ok);
  }
  for (const bad of [undefined, '', 'text/plain', 'multipart/form-data', 'application/x-www-form-urlencodedx']) {
    assert.equal(isFormContentType(bad), false, String(bad));
  }
});
