// health-check.js — Diego's three health checks (docs/cf-platform.md §8): `http`
// wants 200 from the endpoint within the invocation timeout, `port` a TCP connect,
// `process` only a running process. Each resolves with null when healthy, else a reason.
'use strict';

const http = require('node:http');
const net = require('node:net');

function checkHttp(port, endpoint, timeoutMs) {
  return new Promise((resolve) => {
    const req = http.get({ host: '127.0.0.1', port, path: endpoint, agent: false, timeout: timeoutMs }, (res) => {
      res.resume();
      resolve(res.statusCode === 200 ? null : `Failed to make HTTP request to '${endpoint}' on port ${port}: received status code ${res.statusCode}`);
    });
    req.on('timeout', () => req.destroy(new Error(`timed out after ${(timeoutMs / 1000).toFixed(2)} seconds`)));
    req.on('error', (e) => resolve(`Failed to make HTTP request to '${endpoint}' on port ${port}: ${e.message}`));
  });
}

function checkPort(port, timeoutMs) {
  return new Promise((resolve) => {
    const s = net.connect({ host: '127.0.0.1', port });
    const t = setTimeout(() => { s.destroy(); resolve(`Failed to make TCP connection to port ${port}: timed out after ${(timeoutMs / 1000).toFixed(2)} seconds`); }, timeoutMs);
    s.on('connect', () => { clearTimeout(t); s.destroy(); resolve(null); });
    s.on('error', (e) => { clearTimeout(t); resolve(`Failed to make TCP connection to port ${port}: ${e.code || e.message}`); });
  });
}

function check(healthCheck, port) {
  const timeoutMs = healthCheck.invocationTimeoutSec * 1000;
  if (healthCheck.type === 'http') return checkHttp(port, healthCheck.endpoint, timeoutMs);
  if (healthCheck.type === 'port') return checkPort(port, timeoutMs);
  return Promise.resolve(null);
}

function isPortFree(port) {
  return new Promise((resolve) => {
    const srv = net.createServer();
    srv.once('error', () => resolve(false));
    srv.listen(port, '127.0.0.1', () => srv.close(() => resolve(true)));
  });
}

module.exports = { check, isPortFree };
