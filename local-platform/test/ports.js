'use strict';
// Free ports for the platform's tests and benches: its range `local-platform` of the
// repository's port table (ports.json). The kernel's ephemeral range covers it, so a fixed
// port can be taken by some client's connection: ask before using one.
const fs = require('node:fs');
const net = require('node:net');
const path = require('node:path');

const PORTS = JSON.parse(fs.readFileSync(path.join(__dirname, '..', '..', 'ports.json'), 'utf8'));

/** [first, last] port of range `name` of ports.json. */
function portRange(name) {
  if (!PORTS.ranges[name]) throw new Error(`ports.json: no range "${name}"`);
  return PORTS.ranges[name].ports.split('-').map(Number);
}

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

module.exports = { portFree, freePortInRange, randomFreePort, portRange };
