'use strict';
// raw-tcp.js against real sockets: connect, a write queued before the connect, reads into
// the caller's buffer, the peer's close, refused connections, resets, a write too large
// to go out at once (libuv completes it later), and silence after destroy().
const test = require('node:test');
const assert = require('node:assert');
const net = require('node:net');
const { RawTcp, available } = require('../lib/raw-tcp');

/** A TCP server on a free port; `onSocket(sock)` decides what it does. */
async function server(onSocket) {
  const srv = net.createServer(onSocket);
  await new Promise((r) => srv.listen(0, '127.0.0.1', r));
  return { port: srv.address().port, close: () => new Promise((r) => srv.close(r)) };
}

/** An owner that records what the socket tells it. */
function recorder() {
  const o = { connects: 0, data: [], closes: [] };
  o.onConnect = () => { o.connects++; };
  o.onData = (buf, n) => { o.data.push(Buffer.from(buf.subarray(0, n))); };
  o.onClose = (err) => { o.closes.push(err); };
  o.text = () => Buffer.concat(o.data).toString();
  return o;
}

async function until(fn, what) {
  const end = Date.now() + 5000;
  while (!fn()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

test('raw-tcp: the bindings are there on this node (else the engine silently uses net)', () => {
  if (process.env.CFSCALE_LOADGEN_SOCKETS === 'net') return;
  assert.strictEqual(available, true, `node ${process.version}: tcp_wrap/stream_wrap bindings changed`);
});

test('raw-tcp: a write before the connect goes out on connect; reads land in our buffer; the peer closes', async (t) => {
  const srv = await server((sock) => sock.on('data', (d) => sock.end(`echo:${d}`)));
  t.after(srv.close);
  const o = recorder();
  const buf = Buffer.alloc(4);
  const s = new RawTcp('127.0.0.1', srv.port, buf, o);
  t.after(() => s.destroy());
  s.write(Buffer.from('hello'));
  await until(() => o.closes.length === 1, 'close');
  assert.strictEqual(o.connects, 1);
  assert.strictEqual(o.text(), 'echo:hello'); // in 4-byte reads into `buf`
  assert.ok(o.data.length >= 3);
  assert.strictEqual(o.closes[0], null);
});

test('raw-tcp: a refused connect reports ECONNREFUSED, never connected', async () => {
  const srv = await server(() => {});
  const port = srv.port;
  await srv.close();
  const o = recorder();
  const s = new RawTcp('127.0.0.1', port, Buffer.alloc(64), o);
  s.write(Buffer.from('x'));
  await until(() => o.closes.length === 1, 'close');
  assert.strictEqual(o.connects, 0);
  assert.strictEqual(o.closes[0].code, 'ECONNREFUSED');
  assert.strictEqual(o.closes[0].syscall, 'connect');
});

test('raw-tcp: a reset by the peer reports ECONNRESET', async (t) => {
  const srv = await server((sock) => sock.once('data', () => sock.resetAndDestroy()));
  t.after(srv.close);
  const o = recorder();
  const s = new RawTcp('127.0.0.1', srv.port, Buffer.alloc(64), o);
  t.after(() => s.destroy());
  s.write(Buffer.from('x'));
  await until(() => o.closes.length === 1, 'close');
  assert.strictEqual(o.closes[0] && o.closes[0].code, 'ECONNRESET');
});

test('raw-tcp: a write larger than the socket buffers completes later, all bytes arrive, in order', async (t) => {
  let got = 0;
  let sum = 0;
  const size = 32 * 1024 * 1024;
  const srv = await server((sock) => {
    sock.pause();
    setTimeout(() => sock.resume(), 100); // the client's write cannot finish at once
    sock.on('data', (d) => {
      for (let i = (4096 - (got % 4096)) % 4096; i < d.length; i += 4096) sum += d[i]; // bytes at offsets k*4096
      got += d.length;
    });
  });
  t.after(srv.close);
  const o = recorder();
  const s = new RawTcp('127.0.0.1', srv.port, Buffer.alloc(64), o);
  t.after(() => s.destroy());
  await until(() => o.connects === 1, 'connect');
  const big = Buffer.alloc(size);
  for (let i = 0; i < size; i += 4096) big[i] = (i / 4096) & 0xff;
  s.write(big);
  assert.strictEqual(s.writeReq, null, 'the write should still be in flight');
  await until(() => got === size, 'all bytes');
  await until(() => s.writeReq !== null, 'the write request back for reuse');
  let expect = 0;
  for (let i = 0; i < size; i += 4096) expect += (i / 4096) & 0xff;
  assert.strictEqual(sum, expect);
  s.write(Buffer.from('more')); // the request object is reused
  await until(() => got === size + 4, 'the next write');
  s.destroy();
  assert.deepStrictEqual(o.closes, []);
});

test('raw-tcp: after destroy() the owner hears nothing, even from a peer that answers', async (t) => {
  const srv = await server((sock) => sock.on('data', () => setTimeout(() => sock.end('late answer'), 50)));
  t.after(srv.close);
  const o = recorder();
  const s = new RawTcp('127.0.0.1', srv.port, Buffer.alloc(64), o);
  t.after(() => s.destroy());
  s.write(Buffer.from('x'));
  await until(() => o.connects === 1, 'connect');
  s.destroy();
  s.write(Buffer.from('ignored'));
  await new Promise((r) => setTimeout(r, 100));
  assert.deepStrictEqual(o.data, []);
  assert.deepStrictEqual(o.closes, []);
});
