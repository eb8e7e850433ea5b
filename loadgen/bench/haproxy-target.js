#!/usr/bin/env node
// haproxy-target.js — the benchmarks' fastest target: HAProxy answering every request itself
// (no backend) on one thread (it is pinned to one core), keep-alive, on a kernel-picked free
// port that it prints first, as target.js and gotarget do. HAProxy cannot report a port it
// bound to 0, hence the port is picked here (node binds :0 and lets it go) and written into
// its configuration. Answers like the others: 200, "ok\n", the request's X-Correlation-ID
// echoed, X-Instance-Index 0. Stops HAProxy on SIGTERM/SIGINT.
// Usage: node loadgen/bench/haproxy-target.js
'use strict';

const fs = require('node:fs');
const net = require('node:net');
const os = require('node:os');
const path = require('node:path');
const { spawn } = require('node:child_process');

function config(port) {
  return `global
  nbthread 1
  maxconn 4000
defaults
  mode http
  option http-keep-alive
  timeout client 60s
  timeout connect 5s
  timeout server 60s
frontend target
  bind 127.0.0.1:${port}
  http-request return status 200 content-type "text/plain; charset=utf-8" string "ok\\n" hdr X-Correlation-ID "%[req.hdr(x-correlation-id)]" hdr X-Instance-Index 0
`;
}

const probe = net.createServer().listen(0, '127.0.0.1', () => {
  const { port } = probe.address();
  probe.close(() => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cfscale-loadgen-bench-haproxy-'));
    const cfg = path.join(dir, 'haproxy.cfg');
    fs.writeFileSync(cfg, config(port));
    const child = spawn('haproxy', ['-db', '-f', cfg], { stdio: ['ignore', 'ignore', 'inherit'] });
    const done = () => fs.rmSync(dir, { recursive: true, force: true });
    child.once('error', (e) => { done(); process.stderr.write(`haproxy-target: ${e.message}\n`); process.exit(1); });
    child.once('exit', (code) => { done(); process.exit(code ?? 0); });
    for (const sig of ['SIGTERM', 'SIGINT']) process.on(sig, () => child.kill(sig));
    process.stdout.write(`${port}\n`);
  });
});
