'use strict';
// platform-ports.js — the local platform's ports for a bench, from its range in ports.json
// (the repository's one table of port ranges), so that benches and tests never share one.
const PORTS = require('../../ports.json');

/** CFSCALE_* port settings in range `name`: router, PostgreSQL, API, then the instances. */
function platformPortEnv(name) {
  const [first] = PORTS.ranges[name].ports.split('-').map(Number);
  return { CFSCALE_ROUTER_PORT: String(first), CFSCALE_PG_PORT: String(first + 1),
    CFSCALE_API_PORT: String(first + 2), CFSCALE_INSTANCE_PORT_BASE: String(first + 10) };
}

module.exports = { platformPortEnv };
