'use strict';
// ports.js — free ports for tests and benches. Each suite has its own range in ports.json (the
// repository's one table of port ranges); the kernel's ephemeral range covers them, so a fixed
// port can be taken by some client's connection: ask before using one. Tests and benches of
// every part require this one file.
const net = require('node:net');
const PORTS = require('../ports.json');

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

/**
 * The local platform's port settings in range `name` (from its first port + offset): router,
 * PostgreSQL, API, the router's HTTPS, up to 6 TLS front proxies, then instances. Every one is
 * pinned (scripts/test.sh refuses a platform that would take a default: CFSCALE_PIN_PORTS).
 */
function platformPortEnv(name, offset = 0) {
  const first = portRange(name)[0] + offset;
  return { CFSCALE_ROUTER_PORT: String(first), CFSCALE_PG_PORT: String(first + 1), CFSCALE_API_PORT: String(first + 2),
    CFSCALE_ROUTER_TLS_PORT: String(first + 3), CFSCALE_FRONT_PROXY_PORT_BASE: String(first + 4), CFSCALE_INSTANCE_PORT_BASE: String(first + 10) };
}

module.exports = { portFree, freePortInRange, randomFreePort, portRange, platformPortEnv };
