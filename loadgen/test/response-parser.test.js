'use strict';
const test = require('node:test');
const assert = require('node:assert');
const { ResponseParser } = require('../lib/response-parser');

// Feeds `raw` split at every position (and whole); every split must give the same result.
function parseAllSplits(raw, { close = false } = {}) {
  const buf = Buffer.from(raw, 'latin1');
  const results = [];
  for (let cut = 0; cut <= buf.length; cut++) {
    const p = new ResponseParser();
    let done = p.execute(buf.subarray(0, cut));
    if (!done && p.error === null) done = p.execute(buf.subarray(cut));
    if (!done && close) done = p.finishOnClose();
    results.push({ done, error: p.error, status: p.status, bytes: p.bodyBytes, keepAlive: p.keepAlive,
      app: p.appInstance, vcap: p.vcap.latin1Slice(0, p.vcapLen) });
  }
  for (const r of results) assert.deepStrictEqual(r, results[results.length - 1]);
  return results[0];
}

const CASES = [
  { name: 'content-length', raw: 'HTTP/1.1 200 OK\r\nContent-Length: 5\r\nX-Instance-Index: 2\r\n\r\nhello',
    want: { done: true, status: 200, bytes: 5, keepAlive: true, app: 2, vcap: '' } },
  { name: 'header names case-insensitive, vcap id', raw: 'HTTP/1.1 404 Not Found\r\ncontent-LENGTH: 3\r\nx-vcap-request-id: 1f2e-aa\r\nCONNECTION: close\r\n\r\nno\n',
    want: { done: true, status: 404, bytes: 3, keepAlive: false, app: -1, vcap: '1f2e-aa' } },
  { name: 'chunked with extension and trailer', raw: 'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5;x=y\r\nhello\r\nA\r\n0123456789\r\n0\r\nTrailer: t\r\n\r\n',
    want: { done: true, status: 200, bytes: 15, keepAlive: true, app: -1, vcap: '' } },
  { name: 'empty chunked', raw: 'HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n0\r\n\r\n',
    want: { done: true, status: 200, bytes: 0, keepAlive: true, app: -1, vcap: '' } },
  { name: 'body until close', raw: 'HTTP/1.1 200 OK\r\n\r\nabcdef', close: true,
    want: { done: true, status: 200, bytes: 6, keepAlive: false, app: -1, vcap: '' } },
  { name: '204 has no body', raw: 'HTTP/1.1 204 No Content\r\n\r\n',
    want: { done: true, status: 204, bytes: 0, keepAlive: true, app: -1, vcap: '' } },
  { name: 'HAProxy\'s answer: names of the same first letter or length as the ones read',
    raw: 'HTTP/1.1 200 OK\r\nx-correlation-id: 0190c6b2-8d8e-7000-8000-000000000000\r\nx-instance-index: 0\r\ncontent-length: 3\r\ncontent-type: text/plain; charset=utf-8\r\n\r\nok\n',
    want: { done: true, status: 200, bytes: 3, keepAlive: true, app: 0, vcap: '' } },
  { name: 'HTTP/1.0 keep-alive, bare LF line ends, a colon in a value, the last of repeated headers',
    raw: 'HTTP/1.0 200 OK\nX-Vcap-Request-Id: a:b\r\nConnection:\tKeep-Alive \nx-vcap-request-id:  cd \r\nX-Instance-Index: 7\r\ncontent-length:2\r\n\r\nhi',
    want: { done: true, status: 200, bytes: 2, keepAlive: true, app: 7, vcap: 'cd' } },
  { name: 'HTTP/1.0 closes', raw: 'HTTP/1.0 200 OK\r\nContent-Length: 0\r\n\r\n',
    want: { done: true, status: 200, bytes: 0, keepAlive: false, app: -1, vcap: '' } },
];

for (const c of CASES) {
  test(`response parser: ${c.name}, split at every byte`, () => {
    const r = parseAllSplits(c.raw, { close: c.close });
    assert.strictEqual(r.error, null);
    const { error, ...rest } = r;
    assert.deepStrictEqual(rest, c.want);
  });
}

for (const [name, raw] of [
  ['garbage status line', 'SMTP ready\r\n\r\n'],
  ['bad chunk size', 'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n'],
]) {
  test(`response parser: ${name} is an error, not an exception`, () => {
    const p = new ResponseParser();
    assert.strictEqual(p.execute(Buffer.from(raw)), false);
    assert.ok(p.error);
  });
}

test('response parser: bytes past len in a reused read buffer are ignored (regression guard for onread)', () => {
  const raw = Buffer.from('HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok');
  const reused = Buffer.alloc(256, 0x41);
  Buffer.from('\r\n\r\n').copy(reused, 30); // stale end-of-head right after the first 20 bytes
  const p = new ResponseParser();
  raw.copy(reused, 0, 0, 20);
  assert.strictEqual(p.execute(reused, 20), false);
  assert.strictEqual(p.error, null);
  reused.fill(0x41);
  raw.copy(reused, 0, 20);
  assert.strictEqual(p.execute(reused, raw.length - 20), true);
  assert.deepStrictEqual([p.status, p.bodyBytes, p.error], [200, 2, null]);
});

test('response parser: bad Content-Length and X-Instance-Index values', () => {
  const p = new ResponseParser();
  p.execute(Buffer.from('HTTP/1.1 200 OK\r\nContent-Length: 1x\r\n\r\n'));
  assert.ok(p.error);
  const q = new ResponseParser();
  assert.strictEqual(q.execute(Buffer.from('HTTP/1.1 200 OK\r\nX-Instance-Index: -1\r\nContent-Length: 0\r\n\r\n')), true);
  assert.strictEqual(q.appInstance, -1);
});
