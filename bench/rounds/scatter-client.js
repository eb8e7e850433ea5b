#!/usr/bin/env node
'use strict';
// scatter-client.js — the keep-alive client of quota-scatter.js: CONNS connections, each
// sending its next GET as soon as the answer is in (a closed loop, as the loadgens run), for
// WARMUP + SECONDS seconds; prints one JSON line: the ok answers of each measured second.
// Usage: scatter-client.js URL CONNS WARMUP SECONDS (PATH may hold N: 1..1000, in turn).
const http = require('node:http');

const [url, conns, warmupS, seconds] = [new URL(process.argv[2]), Number(process.argv[3]), Number(process.argv[4]), Number(process.argv[5])];
const agent = new http.Agent({ keepAlive: true, maxSockets: conns });
const perSecond = [];
let count = 0;
let failed = 0;
let next = 0;
let stopped = false;

function send() {
  if (stopped) return;
  const path = url.pathname.replace('N', String(1 + (next++ % 1000)));
  http.get({ host: url.hostname, port: url.port, path, agent }, (res) => {
    res.resume();
    res.on('end', () => {
      if (res.statusCode < 400) count++;
      else failed++;
      send();
    });
  }).on('error', () => {
    failed++;
    setTimeout(send, 10);
  });
}

for (let i = 0; i < conns; i++) send();
let tick = 0;
const timer = setInterval(() => {
  if (++tick > warmupS) perSecond.push(count);
  count = 0;
  if (perSecond.length >= seconds) {
    stopped = true;
    clearInterval(timer);
    process.stdout.write(`${JSON.stringify({ perSecond, failed })}\n`);
    process.exit(0);
  }
}, 1000);
