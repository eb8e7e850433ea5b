'use strict';
// log-cache-lines.test.js — walk() pages through the local platform's log-cache store
// (local-platform/lib/cc-api/envelope-store.js, the store the daemon serves) over HTTP:
// every line from --since on comes out once, in order, in the layout ingest-rtr.js parses,
// across many pages and many lines in one millisecond; lines before --since stay out; and a
// store that has pruned lines the walk asks for says so on stderr.
const test = require('node:test');
const assert = require('node:assert/strict');
const http = require('node:http');
const { Writable } = require('node:stream');
const { EnvelopeStore } = require('../../local-platform/lib/cc-api/envelope-store');
const { walk } = require('./log-cache-lines');
const { parseRtrLine } = require('../parsers/rtr-parser');

const GUID = '40f982f3-78ec-43ac-a014-21158c5a75db';
const rtr = (i) => `node-app.localhost - [2026-11-29T03:00:00.000000000Z] "GET /ads/1 HTTP/1.1" 200 0 99 "-" "lg" "127.0.0.1:5000" "127.0.0.1:61000" x_forwarded_for:"-" x_forwarded_proto:"http" vcap_request_id:"req-${i}" response_time:0.002500 gorouter_time:0.000100 app_id:"${GUID}" app_index:"0" instance_id:"i"`;

// The daemon's two log-cache routes (cc-api/log-cache.js) over the store.
async function serve(store) {
  const server = http.createServer((req, res) => {
    const url = new URL(req.url, 'http://x');
    const body = url.pathname === '/api/v1/meta'
      ? { meta: store.meta() }
      : { envelopes: { batch: store.read(decodeURIComponent(url.pathname.split('/').pop()), url.searchParams) } };
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body));
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { base: `http://127.0.0.1:${server.address().port}`, close: () => server.close() };
}

function sink() {
  const lines = [];
  let partial = '';
  const out = new Writable({
    write(chunk, _enc, cb) {
      const parts = (partial + chunk).split('\n');
      partial = parts.pop();
      lines.push(...parts);
      cb();
    },
  });
  return { out, lines };
}

test('every line from --since on, once and in order, across pages and within one millisecond', async () => {
  const store = new EnvelopeStore();
  const t0 = Date.now() - 60000;
  for (let i = 0; i < 50; i++) store.add(GUID, 'RTR/0', 'OUT', rtr(`old-${i}`), {}, t0);
  const since = t0 + 1000;
  const n = 2345;
  // 7 lines a millisecond: log-cache's timestamps stay unique (+1 ns), the walk must not skip them.
  for (let i = 0; i < n; i++) store.add(GUID, 'RTR/0', 'OUT', rtr(i), {}, since + Math.floor(i / 7));
  store.add(GUID, 'CELL/0', 'OUT', 'Cell c1 stopping instance i', {}, since + 400);
  const srv = await serve(store);
  try {
    const { out, lines } = sink();
    const count = await walk({ base: srv.base, token: 'bearer t', sourceId: GUID, sinceNs: BigInt(since) * 1000000n, insecure: false, out });
    assert.equal(count, n + 1);
    const ids = lines.map(parseRtrLine).filter(Boolean).map((r) => r.vcap_request_id);
    assert.deepEqual(ids, Array.from({ length: n }, (_, i) => `req-${i}`));
    assert.equal(lines.filter((l) => /\[CELL\/0\] OUT Cell c1 stopping/.test(l)).length, 1);
  } finally {
    srv.close();
  }
});

test('a store that no longer holds the first lines asked for says so', async () => {
  const store = new EnvelopeStore(100);
  const since = Date.now() - 10000;
  for (let i = 0; i < 300; i++) store.add(GUID, 'RTR/0', 'OUT', rtr(i), {}, since + i);
  const srv = await serve(store);
  const said = [];
  const write = process.stderr.write;
  process.stderr.write = (s) => { said.push(String(s)); return true; };
  try {
    const { out, lines } = sink();
    await walk({ base: srv.base, token: 'bearer t', sourceId: GUID, sinceNs: BigInt(since) * 1000000n, insecure: false, out });
    assert.ok(lines.length >= 100 && lines.length < 300, `${lines.length} lines`);
  } finally {
    process.stderr.write = write;
    srv.close();
  }
  assert.match(said.join(''), /log-cache holds this app's lines from .* on only: older lines are gone/);
});
