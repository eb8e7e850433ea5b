#!/usr/bin/env node
'use strict';
// log-cache-lines.js — the lines of an app's log that log-cache holds from --since on,
// printed as `cf logs APP` prints them, then exit: collect-logs.js --since's producer.
//
// `cf logs --recent` reads the newest 1000 lines only (docs/cf-platform.md §10); this walks
// log-cache's read API in pages instead (cloudfoundry/log-cache-release src/README.md:
// GET /api/v1/read/<source-id>?start_time&end_time&envelope_types=LOG&limit, ascending, at
// most 1000 a page; the next page starts 1 ns after the last envelope, as go-log-cache's
// Walk does). The source id is the app's guid; the URL is the API root's links.log_cache;
// the token is `cf oauth-token`'s, sent in a header (never in argv). Lines older than the
// oldest envelope log-cache still holds are gone (it keeps 100,000 a source): said on
// stderr, and the count of router records against requests shows the gap.
const http = require('node:http');
const https = require('node:https');
const { makeCli, ROWS } = require('./cli');
const { note, cliExitCode } = require('../../lib/arg-table');
const { enterRepository, selectPlatform } = require('./target');
const { cfSslDisabled } = require('./tls');

const cli = makeCli('log-cache-lines');
const PAGE = 1000; // log-cache's largest limit
const REQUEST_TIMEOUT_MS = 30000;

const COMMAND = {
  usage: 'Usage: node scripts/ops/log-cache-lines.js --app APP --since TIME [--platform local|cf]',
  about: "The lines of an app's log that log-cache holds from TIME on, as `cf logs APP` prints them.",
  rows: [
    ['--app APP', 'app', 'str', note('(required)'), 'the app whose log to read'],
    ['--since TIME', 'since', 'str', note('(required)'), 'ISO 8601 time of the first line to read'],
    ROWS.platform,
    ROWS.help,
  ],
};

/** --since as ms since the epoch; a usage error unless it is an ISO 8601 time (also collect-logs.js's check). */
function sinceTime(cli, text) {
  const ms = Date.parse(text || '');
  if (!Number.isFinite(ms)) cli.usageError(`--since must be an ISO 8601 time, got "${text || ''}"`);
  return ms;
}

// The cf CLI's line layout (app-log.js formatLine on the local platform; what ingest-rtr.js parses).
function cfLine(e) {
  const t = new Date(Number(BigInt(e.timestamp) / 1000000n)).toISOString();
  const source = e.tags && e.tags.source_type ? e.tags.source_type : '';
  const payload = Buffer.from(e.log.payload || '', 'base64').toString('utf8');
  return `   ${t.slice(0, 22)}+0000 [${source}/${e.instance_id || ''}] ${e.log.type === 'ERR' ? 'ERR' : 'OUT'} ${payload}`;
}

function getJson(url, token, insecure) {
  const lib = url.startsWith('https:') ? https : http;
  return new Promise((resolve, reject) => {
    const req = lib.get(url, { headers: { Authorization: token }, rejectUnauthorized: !insecure, timeout: REQUEST_TIMEOUT_MS }, (res) => {
      const chunks = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        if (res.statusCode !== 200) return reject(new Error(`log-cache answered ${res.statusCode}: ${text.slice(0, 200)}`));
        try { resolve(JSON.parse(text)); } catch { reject(new Error(`log-cache answered no JSON: ${text.slice(0, 200)}`)); }
      });
    });
    req.on('timeout', () => req.destroy(new Error(`log-cache did not answer in ${REQUEST_TIMEOUT_MS / 1000} s`)));
    req.on('error', reject);
  });
}

/** Prints every LOG envelope of sourceId in [sinceNs, now) in cf's layout; → the count. */
async function walk({ base, token, sourceId, sinceNs, insecure, out }) {
  const endNs = BigInt(Date.now()) * 1000000n;
  const meta = await getJson(`${base}/api/v1/meta`, token, insecure).catch(() => null);
  const held = meta && meta.meta && meta.meta[sourceId];
  if (held && BigInt(held.oldestTimestamp) > sinceNs) {
    cli.log(`log-cache holds this app's lines from ${new Date(Number(BigInt(held.oldestTimestamp) / 1000000n)).toISOString()} on only: older lines are gone`);
  }
  let start = sinceNs;
  let count = 0;
  for (;;) {
    const q = `start_time=${start}&end_time=${endNs}&envelope_types=LOG&limit=${PAGE}`;
    const doc = await getJson(`${base}/api/v1/read/${encodeURIComponent(sourceId)}?${q}`, token, insecure);
    const batch = (doc.envelopes && doc.envelopes.batch) || [];
    if (!batch.length) return count;
    const text = `${batch.filter((e) => e.log).map(cfLine).join('\n')}\n`;
    if (!out.write(text)) await new Promise((resolve) => out.once('drain', resolve));
    count += batch.length;
    start = BigInt(batch[batch.length - 1].timestamp) + 1n;
    if (start >= endNs) return count;
  }
}

async function main() {
  enterRepository();
  const o = cli.parse(process.argv.slice(2), COMMAND);
  if (!o.app) cli.usageError('--app is required');
  const sinceMs = sinceTime(cli, o.since);
  const p = await selectPlatform(cli, { platformOpt: o.platform, dryRun: false });
  const guid = await p.appGuid(o.app);
  if (!guid) cli.die(`no app ${o.app}`);
  const root = await p.cfCurlJson('/');
  const base = root.links && root.links.log_cache && root.links.log_cache.href;
  if (!base) cli.die('the API names no log-cache (links.log_cache)');
  const tok = await p.cfQuery('oauth-token', { stderr: 'pipe' });
  if (tok.code !== 0) cli.die('cf oauth-token failed: not logged in?');
  let count;
  try {
    count = await walk({
      base: base.replace(/\/$/, ''), token: tok.stdout.trim(), sourceId: guid, sinceNs: BigInt(sinceMs) * 1000000n,
      insecure: cfSslDisabled(), out: process.stdout,
    });
  } catch (err) {
    cli.die(err.message);
  }
  cli.log(`${count} log lines of ${o.app} since ${new Date(sinceMs).toISOString()}`);
}

if (require.main === module) main().catch((err) => process.exit(cliExitCode(err)));

module.exports = { cfLine, walk, sinceTime };
