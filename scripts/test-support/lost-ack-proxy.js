'use strict';
// lost-ack-proxy.js — a TCP proxy in front of a real PostgreSQL that loses one
// acknowledgement: when the server reports a command whose tag matches (e.g. /^COMMIT/ or
// /^INSERT/), the proxy holds that CommandComplete back, waits for the ReadyForQuery that
// follows (the server sends it after the transaction committed) and then closes both
// sockets without forwarding either. The client sees "connection terminated" for a write
// that is in the database: the case a retry must not write twice.
// Fires once; fire() arms it again. Only the server's messages are parsed (type byte +
// int32 length), after the one-byte answer to an SSLRequest when the client sent one.

const net = require('node:net');

const SSL_REQUEST_CODE = 80877103;

/** Starts the proxy on 127.0.0.1:0 → { port, losses(), arm(), close() }. */
async function startLostAckProxy({ host, port, tag }) {
  let armed = true;
  let losses = 0;
  const sockets = new Set();

  const server = net.createServer((client) => {
    const upstream = net.connect(port, host);
    sockets.add(client).add(upstream);
    const end = () => { client.destroy(); upstream.destroy(); };
    client.on('error', end).on('close', end);
    upstream.on('error', end).on('close', end);

    let sslAnswerPending = null; // true after an SSLRequest: the next server byte is its answer
    let pending = Buffer.alloc(0);
    let holding = false; // a matching CommandComplete was seen: forward nothing more

    client.on('data', (d) => {
      if (sslAnswerPending === null) {
        sslAnswerPending = d.length >= 8 && d.readInt32BE(0) === 8 && d.readInt32BE(4) === SSL_REQUEST_CODE;
      }
      upstream.write(d);
    });
    upstream.on('data', (d) => {
      if (sslAnswerPending) {
        sslAnswerPending = false;
        client.write(d.subarray(0, 1));
        d = d.subarray(1);
      }
      pending = Buffer.concat([pending, d]);
      let out = 0;
      let at = 0;
      while (pending.length - at >= 5) {
        const len = pending.readInt32BE(at + 1);
        if (pending.length - at < 1 + len) break;
        const type = String.fromCharCode(pending[at]);
        if (!holding && armed && type === 'C' && tag.test(pending.toString('utf8', at + 5, at + len))) {
          holding = true;
          armed = false;
        } else if (holding && type === 'Z') {
          losses++;
          client.write(pending.subarray(0, out));
          end();
          return;
        }
        at += 1 + len;
        if (!holding) out = at;
      }
      client.write(pending.subarray(0, out));
      pending = pending.subarray(out);
    });
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: server.address().port,
    losses: () => losses,
    arm: () => { armed = true; },
    close: () => new Promise((resolve) => {
      for (const s of sockets) s.destroy();
      server.close(resolve);
    }),
  };
}

module.exports = { startLostAckProxy };
