'use strict';
// Free ports for the scripts' tests. Each suite has its own range (local platform
// 45000-45999, parsers/CF side 47000-47999); the kernel's ephemeral range covers them, so
// a fixed port can be taken by some client's connection: ask before using one.
const net = require('node:net');

/** Whether a TCP port on 127.0.0.1 can be bound right now. */
function portFree(port) {
  return new Promise((resolve) => {
    const srv = net.createServer();
    srv.once('error', () => resolve(false));
    srv.listen(port, '127.0.0.1', () => srv.close(() => resolve(true)));
  });
}

/** The first free port from `from` to `to`. */
async function freePortInRange(from, to) {
  for (let p = from; p <= to; p++) if (await portFree(p)) return p;
  throw new Error(`no free port in ${from}-${to}`);
}

/** A free port drawn at random from `from` to `to` (suites that run side by side spread out). */
async function randomFreePort(from, to, attempts = 50) {
  for (let i = 0; i < attempts; i++) {
    const port = from + Math.floor(Math.random() * (to - from));
    if (await portFree(port)) return port;
  }
  throw new Error(`no free port in ${from}-${to}`);
}

module.exports = { portFree, freePortInRange, randomFreePort };
