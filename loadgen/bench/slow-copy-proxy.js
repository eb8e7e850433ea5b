#!/usr/bin/env node
// slow-copy-proxy.js — a TCP proxy in front of a real PostgreSQL that makes every COPY slow:
// the server's CommandComplete of a COPY ("COPY n"), and all it sends after it, reach the
// client DELAY_MS later, a delay drawn anew per COPY between MIN_MS and MAX_MS. The client
// sees a COPY that takes seconds, as on an overloaded results database. Only the server's
// messages are parsed (type byte + int32 length); connections are plain (no SSLRequest).
// Used by bench/kill-loss.sh --slow-db and test/kill.test.js.
// Usage: node loadgen/bench/slow-copy-proxy.js PG_HOST PG_PORT MIN_MS MAX_MS (prints its port)
'use strict';

const net = require('node:net');

/** Starts the proxy on 127.0.0.1:0 → { port, copies(), close() }. */
async function startSlowCopyProxy({ host, port, minMs, maxMs }) {
  let copies = 0;
  const sockets = new Set();
  const server = net.createServer((client) => {
    const upstream = net.connect(port, host);
    sockets.add(client).add(upstream);
    const end = () => { client.destroy(); upstream.destroy(); if (timer !== null) clearTimeout(timer); };
    client.on('error', end).on('close', end);
    upstream.on('error', end).on('close', end);
    client.on('data', (d) => upstream.write(d));
    let pending = Buffer.alloc(0);
    let releaseAt = 0; // server bytes from a COPY's completion on wait until then
    const out = []; // [bytes, at], in the server's order
    let timer = null;
    const drain = () => {
      timer = null;
      while (out.length > 0 && out[0][1] <= Date.now()) client.write(out.shift()[0]);
      if (out.length > 0) timer = setTimeout(drain, out[0][1] - Date.now());
    };
    const forward = (bytes, at) => {
      if (bytes.length === 0) return;
      out.push([bytes, at]);
      if (timer === null) drain();
    };
    upstream.on('data', (d) => {
      pending = pending.length ? Buffer.concat([pending, d]) : d;
      let at = 0;
      let from = 0;
      while (pending.length - at >= 5) {
        const len = pending.readInt32BE(at + 1);
        if (pending.length - at < 1 + len) break;
        if (pending[at] === 0x43 && pending.toString('latin1', at + 5, at + 9) === 'COPY') {
          forward(pending.subarray(from, at), releaseAt);
          from = at;
          copies++;
          releaseAt = Math.max(releaseAt, Date.now() + minMs + Math.random() * (maxMs - minMs));
        }
        at += 1 + len;
      }
      forward(pending.subarray(from, at), releaseAt);
      pending = pending.subarray(at);
    });
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: server.address().port,
    copies: () => copies,
    close: () => new Promise((resolve) => {
      for (const s of sockets) s.destroy();
      server.close(resolve);
    }),
  };
}

if (require.main === module) {
  const [host, port, minMs, maxMs] = process.argv.slice(2);
  if (!host || !(Number(port) > 0) || !(Number(maxMs) >= Number(minMs))) {
    process.stderr.write('usage: slow-copy-proxy.js PG_HOST PG_PORT MIN_MS MAX_MS\n');
    process.exit(1);
  }
  startSlowCopyProxy({ host, port: Number(port), minMs: Number(minMs), maxMs: Number(maxMs) }).then((p) => {
    process.stdout.write(`${p.port}\n`);
    process.on('SIGTERM', () => p.close().then(() => process.exit(0)));
  });
}

module.exports = { startSlowCopyProxy };
