#!/usr/bin/env node
'use strict';
// A minimal node:http target for the benchmarks: answers like the apps' /health
// (echoes X-Correlation-ID, sends X-Instance-Index, "ok\n"). Usage: target.js PORT
const http = require('node:http');

const port = Number(process.argv[2] || 0);
const server = http.createServer((req, res) => {
  res.writeHead(200, {
    'Content-Type': 'text/plain; charset=utf-8',
    'Content-Length': 3,
    'X-Correlation-ID': req.headers['x-correlation-id'] || '-',
    'X-Instance-Index': '0',
  });
  res.end('ok\n');
});
server.keepAliveTimeout = 60000;
server.listen(port, '127.0.0.1', () => process.stdout.write(`${server.address().port}\n`));
process.on('SIGTERM', () => server.close(() => process.exit(0)));
