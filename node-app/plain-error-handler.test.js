'use strict';
// plain-error-handler.test.js — the framing answers of node:http in the contract's format: a
// real server on a free port, raw bytes on a socket (the contract suite runs the full table).

const test = require('node:test');
const assert = require('node:assert/strict');
const http = require('node:http');
const net = require('node:net');
const { createClientErrorHandler, rememberCorrelationId, rejectHead, headBytes } = require('./plain-error-handler');

function fakeReq(method, url, rawHeaders, major = 1, minor = 1) {
  return { method, url, rawHeaders, httpVersionMajor: major, httpVersionMinor: minor };
}

test('headBytes counts the head in canonical form, request line to the empty line', () => {
  const req = fakeReq('GET', '/health', ['Host', 'x', 'X-A', 'bc']);
  assert.equal(headBytes(req), Buffer.byteLength('GET /health HTTP/1.1\r\nHost: x\r\nX-A: bc\r\n\r\n'));
});

test('rejectHead: 505 for a version other than 1.x, 431 over the limit, 400 for Host missing in 1.1 or twice', () => {
  const host = ['Host', 'x'];
  assert.equal(rejectHead(fakeReq('GET', '/', host), 1024), 0);
  assert.equal(rejectHead(fakeReq('GET', '/', host, 2, 0), 1024), 505);
  assert.equal(rejectHead(fakeReq('GET', '/', ['Host', 'x', 'X-Fill', 'a'.repeat(1024)]), 1024), 431);
  assert.equal(rejectHead(fakeReq('GET', '/', []), 1024), 400);
  assert.equal(rejectHead(fakeReq('GET', '/', [], 1, 0), 1024), 0);
  assert.equal(rejectHead(fakeReq('GET', '/', ['Host', 'x', 'host', 'y']), 1024), 400);
});

/** Raw bytes to a server with the handler; resolves with everything it sent before closing. */
async function exchange(bytes) {
  const server = http.createServer((req, res) => {
    rememberCorrelationId(req, req.headers['x-correlation-id']);
    req.on('data', () => {});
    req.on('end', () => res.end('ok'));
  });
  server.on('clientError', createClientErrorHandler(7));
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  try {
    return await new Promise((resolve, reject) => {
      let got = '';
      const s = net.connect(server.address().port, '127.0.0.1', () => s.write(bytes));
      s.on('data', (d) => { got += d; });
      s.on('close', () => resolve(got));
      s.on('error', reject);
    });
  } finally {
    server.close();
  }
}

test('a refused head: the plain-text line, a fresh id, the instance index, Connection: close', async () => {
  const got = await exchange('GET / HTTP/1.1\r\nHost: x\r\nX-Correlation-ID: mine\r\nX-A: a\x01b\r\n\r\n');
  assert.match(got, /^HTTP\/1\.1 400 Bad Request\r\n/);
  assert.match(got, /\r\nX-Correlation-ID: [0-9a-f-]{36}\r\n/);
  assert.match(got, /\r\nX-Instance-Index: 7\r\n/);
  assert.match(got, /\r\nConnection: close\r\n\r\nbad request\n$/);
});

test('a bad chunk after a valid head: 400 with the request id echoed', async () => {
  const got = await exchange('POST / HTTP/1.1\r\nHost: x\r\nX-Correlation-ID: mine\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n');
  assert.match(got, /^HTTP\/1\.1 400 Bad Request\r\n/);
  assert.match(got, /\r\nX-Correlation-ID: mine\r\n/);
});

test('an unknown HTTP version: 505 http version not supported', async () => {
  const got = await exchange('GET / HTTP/1.2\r\nHost: x\r\n\r\n');
  assert.match(got, /^HTTP\/1\.1 505 HTTP Version Not Supported\r\n[^]*\r\n\r\nhttp version not supported\n$/);
});
