// routing.js — contract cases about routes, methods, correlation ids and the timing
// endpoints' parameters. Each case: { name, req, cid?, expect }. `cid` undefined means
// "send this case's own fixed id and expect it echoed"; null = send none; any other value
// is sent as is (string or raw Buffer) and `expect.newCid` says a fresh UUID must come back.
// Stateless: these cases do not depend on or change the ads table.
'use strict';

const FORM = 'application/x-www-form-urlencoded';
const MAX_ID = '9223372036854775807';

const err = (status, message, headers) => ({ status, body: `${message}\n`, headers });
const notFound = () => err(404, 'not found');
const notAllowed = (allow) => err(405, 'method not allowed', { Allow: allow });
const badCid = () => ({ ...err(400, 'invalid X-Correlation-ID'), newCid: true });

const visibleAscii = (from, to) => Array.from({ length: to - from + 1 }, (_, i) => String.fromCharCode(from + i)).join('');

const health = [
  { name: 'GET /health', req: { path: '/health' }, expect: { status: 200, body: 'ok\n' } },
  { name: 'GET /health ignores its query string, even a malformed one', req: { path: '/health?x=%zz&y=%FF' }, expect: { status: 200, body: 'ok\n' } },
  { name: 'GET /health with extra request headers', req: { path: '/health', headers: { Accept: '*/*' } }, expect: { status: 200, body: 'ok\n' } },
];

// The study's Hello World control: no database, fixed body.
const hello = [
  { name: 'GET /hello', req: { path: '/hello' }, expect: { status: 200, body: 'Hello World\n' } },
  { name: 'GET /hello ignores its query string', req: { path: '/hello?x=%zz' }, expect: { status: 200, body: 'Hello World\n' } },
];

const notFoundPaths = [
  '/', '/nope', '/health/', '/HEALTH', '/he%61lth', '//health', '/health/x', '/hello/', '/HELLO', '/ads/', '/ads//',
  '/ads/1/', '/ads/1/x', '/adsx', '/ads%2F1', '/timings/', '/timings/flush/', '/timings/foo',
  '/timingsx',
].map((path) => ({ name: `GET ${path} → 404`, req: { path }, expect: notFound() }));

const notFoundOther = [
  { name: 'POST /nope (no content type) → 404', req: { method: 'POST', path: '/nope', body: 'x' }, expect: notFound() },
  { name: 'POST /timings/foo → 404', req: { method: 'POST', path: '/timings/foo' }, expect: notFound() },
  { name: 'DELETE /nope → 404', req: { method: 'DELETE', path: '/nope' }, expect: notFound() },
  { name: 'POST /ads/ → 404', req: { method: 'POST', path: '/ads/', headers: { 'Content-Type': FORM }, body: 'title=x' }, expect: notFound() },
];

const methods = [
  ['POST', '/health', 'GET'], ['PUT', '/health', 'GET'], ['DELETE', '/health', 'GET'], ['OPTIONS', '/health', 'GET'],
  ['POST', '/hello', 'GET'], ['DELETE', '/hello', 'GET'],
  ['DELETE', '/ads', 'GET, POST'], ['PUT', '/ads', 'GET, POST'], ['PATCH', '/ads', 'GET, POST'],
  ['POST', '/ads/1', 'GET'], ['PUT', '/ads/1', 'GET'], ['DELETE', '/ads/1', 'GET'], ['POST', '/ads/abc', 'GET'],
  ['POST', '/timings', 'GET'], ['DELETE', '/timings', 'GET'],
  ['GET', '/timings/flush', 'POST'], ['GET', '/timings/clear', 'POST'], ['GET', '/timings/recording', 'POST'],
  ['PUT', '/timings/flush?round=1', 'POST'], ['DELETE', '/timings/clear', 'POST'],
].map(([method, path, allow]) => ({ name: `${method} ${path} → 405`, req: { method, path }, expect: notAllowed(allow) }));

const heads = [['/health', 'GET'], ['/hello', 'GET'], ['/ads', 'GET, POST'], ['/ads/1', 'GET'], ['/timings', 'GET'], ['/timings/clear', 'POST']]
  .map(([path, allow]) => ({ name: `HEAD ${path} → 405`, req: { method: 'HEAD', path }, expect: { status: 405, headers: { Allow: allow } } }));

const routingOrder = [
  { name: '405 comes before 413: POST /health with a huge Content-Length', req: { method: 'POST', path: '/health', headers: { 'Content-Type': FORM, 'Content-Length': '1000000000' } }, expect: notAllowed('GET') },
  { name: '405 comes before 415: POST /ads/1 text/plain', req: { method: 'POST', path: '/ads/1', headers: { 'Content-Type': 'text/plain' }, body: 'title=x' }, expect: notAllowed('GET') },
  { name: 'the query string does not route: GET /ads/9223372036854775807?x=%zz', req: { path: `/ads/${MAX_ID}?x=%zz` }, expect: err(404, 'ad not found') },
];

const correlation = [
  { name: 'no X-Correlation-ID → a new UUID', cid: null, req: { path: '/health' }, expect: { status: 200, body: 'ok\n', newCid: true } },
  { name: 'empty X-Correlation-ID → a new UUID', cid: '', req: { path: '/health' }, expect: { status: 200, body: 'ok\n', newCid: true } },
  { name: 'X-Correlation-ID of 1 byte is echoed', cid: 'a', req: { path: '/health' }, expect: { status: 200, body: 'ok\n' } },
  { name: 'X-Correlation-ID of 64 bytes is echoed', cid: 'x'.repeat(64), req: { path: '/health' }, expect: { status: 200, body: 'ok\n' } },
  { name: 'X-Correlation-ID of visible ASCII 0x21-0x5F is echoed', cid: visibleAscii(0x21, 0x5f), req: { path: '/health' }, expect: { status: 200, body: 'ok\n' } },
  { name: 'X-Correlation-ID of visible ASCII 0x60-0x7E is echoed', cid: visibleAscii(0x60, 0x7e), req: { path: '/health' }, expect: { status: 200, body: 'ok\n' } },
  { name: 'X-Correlation-ID UUIDv7 is echoed', cid: '019a8f3c-7b2e-7c41-9d3a-2f1e0c9b8a7d', req: { path: '/health' }, expect: { status: 200, body: 'ok\n' } },
  { name: 'x-correlation-id (header name in lower case) is echoed', cidHeader: 'x-correlation-id', cid: 'lower-case-name', req: { path: '/health' }, expect: { status: 200, body: 'ok\n' } },
  { name: 'X-Correlation-ID of 65 bytes → 400, not reflected', cid: 'y'.repeat(65), req: { path: '/health' }, expect: badCid() },
  { name: 'X-Correlation-ID with a space → 400', cid: 'a b', req: { path: '/health' }, expect: badCid() },
  { name: 'X-Correlation-ID with a tab → 400', cid: 'a\tb', req: { path: '/health' }, expect: badCid() },
  { name: 'X-Correlation-ID with UTF-8 bytes → 400', cid: Buffer.from('caf\u00e9', 'utf8'), req: { path: '/health' }, expect: badCid() },
  { name: 'X-Correlation-ID with a byte 0x80 → 400', cid: Buffer.from([0x61, 0x80, 0x62]), req: { path: '/health' }, expect: badCid() },
  { name: 'X-Correlation-ID with a byte 0xFF → 400', cid: Buffer.from([0xff]), req: { path: '/health' }, expect: badCid() },
  { name: 'two X-Correlation-ID headers → 400 (joined with ", " they are one invalid id)', cid: null, req: { path: '/health', headers: [['X-Correlation-ID', 'a'], ['X-Correlation-ID', 'b']] }, expect: badCid() },
  { name: 'bad X-Correlation-ID comes before 404', cid: 'z'.repeat(65), req: { path: '/nope' }, expect: badCid() },
  { name: 'bad X-Correlation-ID comes before 405', cid: 'a b', req: { method: 'DELETE', path: '/ads' }, expect: badCid() },
  { name: 'bad X-Correlation-ID comes before 415', cid: 'a b', req: { method: 'POST', path: '/ads', body: 'title=x' }, expect: badCid() },
  { name: 'bad X-Correlation-ID comes before 413', cid: 'a b', req: { method: 'POST', path: '/ads', headers: { 'Content-Type': FORM, 'Content-Length': '1000000000' } }, expect: badCid() },
  { name: 'bad X-Correlation-ID on GET /ads/{id}', cid: 'q'.repeat(100), req: { path: '/ads/1' }, expect: badCid() },
];

const recording = (q) => ({ method: 'POST', path: `/timings/recording${q}` });
const flush = (q) => ({ method: 'POST', path: `/timings/flush${q}` });
const badEnabled = () => err(400, 'enabled must be on or off');
const badRound = () => err(400, 'round must be a positive integer');
// The control credential (cases/control.js): these cases hold it and test what comes after it.
const bearer = (token) => `Bearer ${token}`;

const timings = [
  { name: 'GET /timings', req: { path: '/timings' }, appState: true, expect: { status: 200, bodyMatch: /^recording (on|off)\ncount \d+\ndropped \d+\ncapacity \d+\n$/ } },
  { name: 'GET /timings ignores its query string', req: { path: '/timings?x=%zz' }, appState: true, expect: { status: 200, bodyMatch: /^recording (on|off)\ncount \d+\ndropped \d+\ncapacity \d+\n$/ } },
  ...['', '?enabled=', '?enabled=ON', '?enabled=1', '?enabled=true', '?enabled=on%20', '?enabled=of', '?x=on']
    .map((q) => ({ name: `POST /timings/recording${q} → 400`, req: recording(q), expect: badEnabled() })),
  { name: 'POST /timings/recording?enabled=on&enabled=off: the first value counts', req: recording('?enabled=on&enabled=off'), expect: { status: 200, body: 'recording on\n' } },
  { name: 'POST /timings/recording?enabled=%zz → malformed percent-encoding', req: recording('?enabled=%zz'), expect: err(400, 'malformed percent-encoding') },
  { name: 'POST /timings/recording?enabled=%FF → invalid UTF-8', req: recording('?enabled=%FF'), expect: err(400, 'invalid UTF-8') },
  ...['?round=', '?round=0', '?round=00', '?round=01', '?round=-1', '?round=abc', '?round=1.0', '?round=1e3', '?round=+1',
    '?round=9223372036854775808', '?round=99999999999999999999999']
    .map((q) => ({ name: `POST /timings/flush${q} → 400`, req: flush(q), expect: badRound() })),
  { name: 'POST /timings/flush?round=%zz → malformed percent-encoding', req: flush('?round=%zz'), expect: err(400, 'malformed percent-encoding') },
  { name: 'POST /timings/flush?round=%E2%82 → invalid UTF-8', req: flush('?round=%E2%82'), expect: err(400, 'invalid UTF-8') },
].map((c) => ({ ...c, auth: bearer }));

module.exports = {
  FORM,
  MAX_ID,
  err,
  cases: [...health, ...hello, ...notFoundPaths, ...notFoundOther, ...methods, ...heads, ...routingOrder, ...correlation, ...timings],
};
