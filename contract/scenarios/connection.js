// connection.js — several requests on one keep-alive connection: every answer complete
// and correct, error answers included (an app must not leave a connection half-read or
// answer the next request with the previous one's state).
'use strict';

const { test } = require('node:test');
const { RawConnection } = require('../lib/raw-http');
const { checkResponse } = require('../lib/check');
const { report } = require('../lib/runner');

const FORM = 'application/x-www-form-urlencoded';

module.exports = function connection(cfg) {
  test('one keep-alive connection carries requests and error answers in turn', async () => {
    const steps = [
      [{ path: '/health' }, { status: 200, body: 'ok\n' }],
      [{ method: 'POST', path: '/ads', headers: { 'Content-Type': FORM }, body: 'title=%zz' }, { status: 400, body: 'malformed percent-encoding\n' }],
      [{ path: '/ads/0' }, { status: 400, body: 'id must be an integer from 1 to 9223372036854775807\n' }],
      [{ method: 'POST', path: '/ads', headers: { 'Content-Type': 'text/plain' }, body: 'title=x' }, { status: 415, body: 'content type must be application/x-www-form-urlencoded\n' }],
      [{ path: '/nope' }, { status: 404, body: 'not found\n' }],
      [{ method: 'DELETE', path: '/ads' }, { status: 405, body: 'method not allowed\n' }],
      [{ method: 'POST', path: '/ads', headers: { 'Content-Type': FORM }, body: 'title=kept+alive' }, { status: 201, bodyMatch: /^[1-9][0-9]*\n$/ }],
      [{ path: '/ads?limit=1' }, { status: 200, bodyMatch: /^[1-9][0-9]*\t0\.00\tkept alive\n$/ }],
    ];
    const conn = new RawConnection(cfg.baseUrl);
    const problems = [];
    try {
      for (const [i, [req, want]] of steps.entries()) {
        const cid = `contract-keepalive-${i}`;
        const res = await conn.request({ ...req, close: false, headers: { ...req.headers, 'X-Correlation-ID': cid } });
        problems.push(...checkResponse(res, want, { instanceIndex: cfg.instanceIndex, cid, wantEcho: true }).map((p) => `request ${i} (${req.method || 'GET'} ${req.path}): ${p}`));
        if (res.error) break;
      }
    } finally {
      conn.close();
    }
    report(problems);
  });
};
