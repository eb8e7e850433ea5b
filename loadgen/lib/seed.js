'use strict';
// The seeding step: makes sure at least N ads exist so reads by random id hit
// rows. It asks the app (GET /ads?limit=1: X-Total-Count and the newest id), POSTs
// only the missing ones, and returns the id range the reads should use: the newest
// N ids. Ids come from one bigserial, so the range has no holes unless ads were
// deleted (reads of a hole count as status errors, visible in the result).

const http = require('node:http');
const https = require('node:https');

const SEED_PARALLEL = 16;
const SEED_TIMEOUT_MS = 10000;
const SEED_FORM = 'title=cfscale+seed+ad&body=seeded+by+the+cfscale+load+generator&price=1.00&contact=seed%40cfscale.invalid';

function request(url, { method = 'GET', host, body, agent }) {
  const u = new URL(url);
  const mod = u.protocol === 'https:' ? https : http;
  const headers = { 'X-Correlation-ID': 'cfscale-seed' };
  if (host) headers.Host = host;
  if (body !== undefined) {
    headers['Content-Type'] = 'application/x-www-form-urlencoded';
    headers['Content-Length'] = Buffer.byteLength(body);
  }
  return new Promise((resolve, reject) => {
    const req = mod.request(u, { method, headers, agent, timeout: SEED_TIMEOUT_MS }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (d) => { text += d; });
      res.on('end', () => resolve({ status: res.statusCode, headers: res.headers, body: text }));
    });
    req.on('timeout', () => req.destroy(new Error(`${method} ${u.pathname} timed out`)));
    req.on('error', reject);
    req.end(body);
  });
}

async function newest(base, host, agent) {
  const r = await request(base + '/ads?offset=0&limit=1', { host, agent });
  if (r.status !== 200) throw new Error(`seed: GET /ads answered ${r.status}: ${r.body.trim()}`);
  const total = Number(r.headers['x-total-count']);
  if (!Number.isSafeInteger(total)) throw new Error('seed: GET /ads has no X-Total-Count');
  const top = total > 0 ? Number(r.body.split('\t')[0]) : 0;
  return { total, top };
}

/**
 * Ensures `count` ads exist at `url` (only looks when `post` is false); resolves
 * with { idMin, idMax, total, created }. `insecure`: https without verifying the certificate.
 */
async function seedAds(url, count, { host, post = true, insecure = false } = {}) {
  const base = url.replace(/\/+$/, '');
  const agent = url.startsWith('https:')
    ? new https.Agent({ keepAlive: true, maxSockets: SEED_PARALLEL, rejectUnauthorized: !insecure })
    : new http.Agent({ keepAlive: true, maxSockets: SEED_PARALLEL });
  try {
    let { total } = await newest(base, host, agent);
    const missing = post ? Math.max(0, count - total) : 0;
    let next = 0;
    const worker = async () => {
      while (next < missing) {
        next++;
        const r = await request(base + '/ads', { method: 'POST', host, body: SEED_FORM, agent });
        if (r.status !== 201) throw new Error(`seed: POST /ads answered ${r.status}: ${r.body.trim()}`);
      }
    };
    await Promise.all(Array.from({ length: Math.min(SEED_PARALLEL, missing) }, worker));
    const after = await newest(base, host, agent);
    total = after.total;
    return { idMin: Math.max(1, after.top - count + 1), idMax: after.top, total, created: missing };
  } finally {
    agent.destroy();
  }
}

module.exports = { seedAds };
