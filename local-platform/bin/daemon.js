// daemon.js — the supervisor: one per CFSCALE_HOME, started detached by `cfl` (cli.js),
// serving the verbs over HTTP on the unix socket $CFSCALE_HOME/cfl.sock. It owns every
// process of the local platform; `cfl down` (verb "down") or SIGTERM tears everything down.
'use strict';

const fs = require('node:fs');
const http = require('node:http');
const path = require('node:path');
const { loadConfig, requirePinnedPorts } = require('../lib/config');
const { Platform, UsageError } = require('../lib/platform');
const { CcApi } = require('../lib/cc-api/server');

// verb → [method, mutating]: scripts/cfl's verbs (the rest is the cf CLI's, cc-api/).
const VERBS = {
  'front-proxies': ['frontProxies', true],
  'router-usage': ['routerUsage', false],
  cells: ['cellsVerb', false],
  status: ['status', false],
  up: ['status', false],
};

function log(msg) { process.stdout.write(`${new Date().toISOString()} cfl-daemon: ${msg}\n`); }

async function main() {
  requirePinnedPorts();
  const cfg = loadConfig();
  fs.mkdirSync(cfg.home, { recursive: true });
  try { fs.unlinkSync(cfg.socketPath); } catch { /* none */ }
  const platform = new Platform(cfg, log);
  const api = new CcApi({ platform, port: cfg.apiPort, log });
  let stopping = null;

  const shutdown = (opts) => {
    if (!stopping) {
      stopping = api.close().then(() => platform.shutdown(opts)).finally(() => {
        try { fs.unlinkSync(cfg.socketPath); } catch { /* gone */ }
        try { fs.unlinkSync(cfg.pidFile); } catch { /* gone */ }
        try { fs.unlinkSync(path.join(cfg.home, 'daemon.json')); } catch { /* gone */ }
      });
    }
    return stopping;
  };

  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (d) => { body += d; });
    req.on('end', async () => {
      const reply = (code, out, err) => {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ code, out, err }));
      };
      let msg;
      try { msg = JSON.parse(body); } catch { return reply(1, '', 'bad request'); }
      if (msg.verb === 'ping') return reply(0, String(process.pid));
      if (msg.verb === 'down') {
        const left = await shutdown({ discard: true });
        reply(left.length ? 2 : 0, 'OK', left.length ? `cgroups left behind: ${left.join(', ')}` : undefined);
        server.close();
        setTimeout(() => process.exit(0), 100);
        return;
      }
      if (stopping) return reply(1, '', 'the platform is shutting down');
      const entry = VERBS[msg.verb];
      if (!entry) return reply(1, '', `unknown verb ${msg.verb}`);
      const [method, mutating] = entry;
      try {
        const call = () => platform[method](msg.args || {});
        const out = mutating ? await platform.exclusive(call) : await call();
        reply(0, out === undefined ? '' : String(out));
      } catch (e) {
        if (!(e instanceof UsageError)) log(`${msg.verb} failed: ${e.stack || e.message}`);
        reply(e instanceof UsageError ? 1 : 2, '', e.message);
      }
    });
  });
  server.requestTimeout = 0;
  server.headersTimeout = 0;

  try {
    await platform.boot();
    platform.apiUrl = await api.listen();
  } catch (e) {
    log(`boot failed: ${e.message}`);
    await platform.shutdown().catch(() => {});
    process.exit(1);
  }
  server.listen(cfg.socketPath, () => {
    fs.chmodSync(cfg.socketPath, 0o600);
    fs.writeFileSync(cfg.pidFile, `${process.pid}\n`);
    // The settings in force, for clients started with another environment.
    fs.writeFileSync(path.join(cfg.home, 'daemon.json'), `${JSON.stringify({ pid: process.pid, routerPort: cfg.routerPort, routerTlsPort: cfg.routerTlsPort, apiPort: cfg.apiPort, pgPort: cfg.pgPort, instancePortBase: cfg.instancePortBase, cpuMode: cfg.cpuMode, cpuPeriodUs: cfg.cpuPeriodUs })}\n`);
    log(`listening on ${cfg.socketPath}`);
  });
  for (const sig of ['SIGTERM', 'SIGINT']) {
    process.on(sig, async () => { log(`${sig}: shutting down`); await shutdown(); process.exit(0); });
  }
}

main();
