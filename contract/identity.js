#!/usr/bin/env node
// identity.js — the cross-app check: for the same database state and the same requests,
// two apps must answer byte-identically (status, the headers the contract defines, body).
//
// Usage: CONTRACT_CONTROL_TOKEN=TOKEN CONTRACT_DB_URL_A=URL CONTRACT_DB_URL_B=URL node contract/identity.js URL_A URL_B
//   CONTRACT_DB_URL_*: superuser URL of each app's database, in the environment (a URL with
//   its password is never an argument: ps shows those to every user); both are reset to the same fixture
//   rows (fixed ids and created_at), then every table case and a few reads of the fixture
//   are sent to A and then B with the same bytes. Exit 0 when identical, 2 with a diff
//   per request otherwise, 1 on usage errors. Both apps must run with the same
//   CF_INSTANCE_INDEX and the same CONTROL_TOKEN (CONTRACT_CONTROL_TOKEN).
'use strict';

const { send } = require('./lib/raw-http');
const { show } = require('./lib/check');
const { TABLE } = require('./cases');
const { prepare } = require('./lib/runner');
const { fixtureAds, arrangeAds } = require('./lib/app-db');
const { controlToken } = require('./lib/control');

const COMPARED_HEADERS = ['content-type', 'content-length', 'x-correlation-id', 'x-instance-index', 'location', 'x-total-count', 'allow',
  'retry-after', 'www-authenticate'];
const MAX_DIFFS_SHOWN = 40;

const FIXTURE_READS = ['/ads/1', '/ads/2', '/ads/3', '/ads/4', '/ads/25', '/ads/26', '/ads', '/ads?limit=3&offset=21', '/ads?offset=25']
  .map((path, i) => ({ name: `fixture GET ${path}`, req: { path, headers: [['X-Correlation-ID', `identity-${i}`]] }, cidFixed: true }));

/**
 * The parts of a response that must be identical, as printable lines. GET /timings and a
 * clear show the app's own history (and a cluster's capacity is per worker times workers),
 * not the database state: of a case marked appState only the status and headers other than
 * Content-Length are compared.
 */
function signature(res, { cidFixed, head, appState }) {
  if (res.error) return [`error: ${res.error}`];
  const lines = [`status ${res.status}`];
  for (const name of COMPARED_HEADERS) {
    if (name === 'x-correlation-id' && !cidFixed) continue;
    if (name === 'content-length' && (head || appState)) continue;
    for (const v of res.headers.get(name) || []) lines.push(`${name}: ${v}`);
  }
  lines.push(`body ${head ? '(HEAD)' : appState ? '(app state)' : res.body.toString('base64')}`);
  return lines;
}

function diff(a, b) {
  const out = [];
  for (let i = 0; i < Math.max(a.length, b.length); i += 1) {
    if (a[i] !== b[i]) out.push(`    A ${show(decodeBody(a[i] ?? '(none)'))}\n    B ${show(decodeBody(b[i] ?? '(none)'))}`);
  }
  return out.join('\n');
}

function decodeBody(line) {
  return line.startsWith('body ') && line !== 'body (HEAD)' ? `body ${Buffer.from(line.slice(5), 'base64').toString('utf8')}` : line;
}

async function main(argv) {
  const { CONTRACT_DB_URL_A: dbA, CONTRACT_DB_URL_B: dbB } = process.env;
  if (argv.length !== 2 || !dbA || !dbB) {
    console.error('identity: usage: CONTRACT_DB_URL_A=URL CONTRACT_DB_URL_B=URL node contract/identity.js URL_A URL_B');
    return 1;
  }
  const [urlA, urlB] = argv;
  const ads = fixtureAds(25);
  await arrangeAds(dbA, ads);
  await arrangeAds(dbB, ads);
  const requests = [
    ...FIXTURE_READS,
    ...TABLE.map((c, i) => {
      const { req, wantEcho } = prepare(c, i, controlToken());
      return { name: `#${i} ${c.name}`, req, cidFixed: wantEcho, appState: c.appState === true };
    }),
    ...FIXTURE_READS.map((r) => ({ ...r, name: `${r.name} (after the table)` })).filter((r) => r.req.path.startsWith('/ads?')),
  ];
  const diffs = [];
  for (const r of requests) {
    const head = r.req.method === 'HEAD';
    const a = signature(await send(urlA, r.req), { ...r, head });
    const b = signature(await send(urlB, r.req), { ...r, head });
    if (a.join('\n') !== b.join('\n')) diffs.push(`  ${r.name}\n${diff(a, b)}`);
  }
  if (diffs.length === 0) {
    console.log(`identity: ${requests.length} requests, byte-identical answers`);
    return 0;
  }
  console.error(`identity: ${diffs.length} of ${requests.length} requests answered differently (A=${urlA}, B=${urlB}):`);
  console.error(diffs.slice(0, MAX_DIFFS_SHOWN).join('\n'));
  if (diffs.length > MAX_DIFFS_SHOWN) console.error(`  … and ${diffs.length - MAX_DIFFS_SHOWN} more`);
  return 2;
}

if (require.main === module) {
  main(process.argv.slice(2)).then((code) => { process.exitCode = code; }, (e) => {
    console.error(`identity: ${e.message}`);
    process.exitCode = 1;
  });
}
