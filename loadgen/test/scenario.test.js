'use strict';
// The bulletin-board scenario against a small in-memory board that checks requests
// the way contract/README.md describes them: seeding, reads in the seeded range,
// pages, form-encoded publishing, weights, Host header, one id per request.
const test = require('node:test');
const assert = require('node:assert');
const { Run } = require('../lib/run');
const { seedAds } = require('../lib/seed');
const { Scenario, OP } = require('../lib/scenario');
const { startServer } = require('./helpers');

async function startBoard(initialAds) {
  const board = { ads: initialAds, seen: { read: [], browse: [], publish: 0, bad: [] }, hosts: new Set(), ids: new Set() };
  board.srv = await startServer((req, res) => {
    const corr = req.headers['x-correlation-id'];
    board.ids.add(corr);
    board.hosts.add(req.headers.host);
    res.setHeader('X-Correlation-ID', corr || 'none');
    const u = new URL(req.url, 'http://x');
    let body = '';
    req.on('data', (d) => { body += d; });
    req.on('end', () => {
      if (req.method === 'POST' && u.pathname === '/ads') {
        const form = new URLSearchParams(body);
        if (!/^application\/x-www-form-urlencoded/.test(req.headers['content-type'] || '') || !form.get('title')) {
          board.seen.bad.push(body);
          res.statusCode = 400;
          return res.end('title is required\n');
        }
        board.ads++;
        board.seen.publish++;
        res.statusCode = 201;
        return res.end(`${board.ads}\n`);
      }
      if (req.method === 'GET' && u.pathname === '/ads') {
        board.seen.browse.push([u.searchParams.get('offset'), u.searchParams.get('limit')]);
        res.setHeader('X-Total-Count', String(board.ads));
        return res.end(board.ads ? `${board.ads}\t1.00\tnewest\n` : '');
      }
      const m = /^\/ads\/(\d+)$/.exec(u.pathname);
      if (req.method === 'GET' && m) {
        const id = Number(m[1]);
        board.seen.read.push(id);
        res.statusCode = id >= 1 && id <= board.ads ? 200 : 404;
        return res.end(res.statusCode === 200 ? `id: ${id}\n` : 'ad not found\n');
      }
      res.statusCode = 404;
      res.end('not found\n');
    });
  });
  return board;
}

const plan = (url, extra) => ({ url, model: 'closed', parallel: 4, timeoutMs: 2000, keepalive: true, requests: 400, ...extra });

test('scenario: seeding posts only the missing ads and reads stay in the seeded range', async (t) => {
  const board = await startBoard(30);
  t.after(board.srv.close);
  const s = await seedAds(board.srv.url, 100);
  assert.deepStrictEqual(s, { idMin: 1, idMax: 100, total: 100, created: 70 });
  assert.deepStrictEqual(await seedAds(board.srv.url, 50), { idMin: 51, idMax: 100, total: 100, created: 0 });
  const r = await new Run(plan(board.srv.url, { scenario: 'read', idMin: 51, idMax: 100 })).start();
  assert.strictEqual(r.requests.ok, 400);
  assert.ok(board.seen.read.every((id) => id >= 51 && id <= 100));
  assert.ok(new Set(board.seen.read).size > 40, 'ids spread over the range');
});

test('scenario: mix follows the weights; publish is a valid form; every request has its own id', async (t) => {
  const board = await startBoard(10);
  t.after(board.srv.close);
  const r = await new Run(plan(board.srv.url, {
    scenario: 'mix', weights: { read: 2, browse: 1, publish: 1 }, idMin: 1, idMax: 10, offsetMax: 5, pageLimit: 7, host: 'board.local',
  })).start();
  assert.strictEqual(r.requests.ok, 400, JSON.stringify(r.errors_by_kind));
  assert.deepStrictEqual(board.seen.bad, []);
  const { read, browse, publish } = { read: board.seen.read.length, browse: board.seen.browse.length, publish: board.seen.publish };
  assert.strictEqual(read + browse + publish, 400);
  assert.ok(read > 140 && read < 260 && browse > 50 && browse < 150 && publish > 50 && publish < 150, JSON.stringify({ read, browse, publish }));
  assert.ok(board.seen.browse.every(([o, l]) => Number(o) <= 5 && l === '7'));
  assert.deepStrictEqual([...board.hosts], ['board.local']);
  assert.strictEqual(board.ids.size, 400);
});

test('scenario: the same random seed gives the same sequence', () => {
  const make = (seed) => new Scenario({ hostHeader: 'h', keepalive: true, scenario: 'mix', idMin: 1, idMax: 1000, randomSeed: seed });
  const a = make(42);
  const b = make(42);
  const c = make(43);
  const seq = (s) => Array.from({ length: 50 }, () => { const op = s.pick(); const buf = Buffer.alloc(s.maxRequestBytes); return op + ':' + buf.subarray(0, s.write(op, buf, Buffer.alloc(16))).toString().split(' ')[1]; });
  const sa = seq(a);
  assert.deepStrictEqual(sa, seq(b));
  assert.notDeepStrictEqual(sa, seq(c));
  assert.ok(sa.some((x) => x.startsWith(OP.read + ':/ads/')));
});

test('scenario: hello is GET /hello under the base path, with Connection: close when keep-alive is off', () => {
  for (const keepalive of [true, false]) {
    const s = new Scenario({ basePath: '/base/', hostHeader: 'h', keepalive, scenario: 'hello', randomSeed: 1 });
    const op = s.pick();
    assert.strictEqual(op, OP.hello);
    const buf = Buffer.alloc(s.maxRequestBytes);
    const text = buf.subarray(0, s.write(op, buf, Buffer.alloc(16))).toString();
    assert.ok(text.startsWith('GET /base/hello HTTP/1.1\r\nHost: h\r\n'), text);
    assert.strictEqual(/\r\nConnection: close\r\n/.test(text), !keepalive, text);
  }
});

test('scenario: a fixed request rewritten with a new id is the bytes written afresh', () => {
  const s = new Scenario({ basePath: '', path: '/x?y=1', hostHeader: 'h:1', keepalive: true, scenario: 'get', method: 'POST', body: 'b=1' });
  assert.ok(s.fixed(OP.get) && s.fixed(OP.hello) && s.fixed(OP.publish) && !s.fixed(OP.read) && !s.fixed(OP.browse));
  const [a, b] = [Buffer.alloc(s.maxRequestBytes), Buffer.alloc(s.maxRequestBytes)];
  s.write(OP.get, a, Buffer.alloc(16, 1));
  for (const op of [OP.get, OP.hello, OP.publish]) {
    const id = Buffer.alloc(16, 0xab + op);
    if (op !== OP.get) s.write(op, a, Buffer.alloc(16, 2));
    const n = s.rewriteId(op, a, id);
    assert.strictEqual(n, s.write(op, b, id));
    assert.strictEqual(a.subarray(0, n).toString('latin1'), b.subarray(0, n).toString('latin1'));
  }
});
