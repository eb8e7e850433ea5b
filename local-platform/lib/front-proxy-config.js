// front-proxy-config.js — the configuration of one TLS-terminating front proxy: HAProxy in
// front of the router, as the study's landscape had (study §5.2.3: HAProxy VMs terminated
// TLS in front of Gorouter). It decrypts, adds X-Forwarded-Proto https and passes every
// request to the router over kept-alive connections; whether the client side is kept alive
// is the client's choice (a loadgen round with or without keep-alive), which is what the
// keep-alive finding measures: a new TLS handshake per request costs the proxy's CPU.
'use strict';

// The router's defaults and timeouts, so a kept-alive connection survives a round.
const { httpDefaults, MAX_CONN } = require('./haproxy-config');

/**
 * index: the proxy's number (names its frontend), port: its TLS port on 127.0.0.1,
 * routerPort: the router's, certFile: PEM with certificate and key, adminSocket: runtime API.
 */
function buildFrontConfig({ index, port, routerPort, certFile, adminSocket }) {
  return [
    'global',
    `  maxconn ${MAX_CONN}`,
    // One thread, like a small proxy VM's one process: its CPU quota is the cgroup's.
    '  nbthread 1',
    `  stats socket ${adminSocket} mode 600 level admin`,
    '',
    ...httpDefaults(),
    `frontend front${index}`,
    `  bind 127.0.0.1:${port} ssl crt ${certFile}`,
    `  maxconn ${MAX_CONN}`,
    '  http-request set-header X-Forwarded-Proto https',
    '  default_backend router',
    '',
    'backend router',
    `  server router 127.0.0.1:${routerPort}`,
    '',
  ].join('\n');
}

/**
 * The frontend's counters from the runtime API's `show stat` (CSV): sessions (`stot`, one
 * per client connection) and requests (`req_tot`) — keep-alive shows as fewer sessions than
 * requests, a new connection per request as as many.
 */
function parseFrontStat(csv, index) {
  const lines = csv.split('\n').filter(Boolean);
  const header = (lines.shift() || '').replace(/^# /, '').split(',');
  const col = (name) => header.indexOf(name);
  for (const line of lines) {
    const f = line.split(',');
    if (f[col('pxname')] === `front${index}` && f[col('svname')] === 'FRONTEND') {
      return { sessions: Number(f[col('stot')]), requests: Number(f[col('req_tot')]) };
    }
  }
  return null;
}

module.exports = { buildFrontConfig, parseFrontStat };
