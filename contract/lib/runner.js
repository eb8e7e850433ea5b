// runner.js — run one table case against a base URL and return its problems.
//
// The suite's settings come from the environment (read once here):
//   CONTRACT_BASE_URL          the app, e.g. http://127.0.0.1:8080 (required)
//   CONTRACT_INSTANCE_INDEX    expected X-Instance-Index (else any number is accepted)
//   CONTRACT_APP_NAME          expected app name in server_timings (else any non-empty)
//   CONTRACT_DB_URL            superuser URL of the app's database (arranges ads; optional)
//   CONTRACT_RESULTS_DB_URL    the results database (checks flushed timings; optional)
//   CONTRACT_TIMINGS_CAPACITY  expected `capacity` of GET /timings (optional)
//   CONTRACT_CONTROL_TOKEN     the app's CONTROL_TOKEN (required: /timings* need it)
'use strict';

const { send } = require('./raw-http');
const { checkResponse, show, one } = require('./check');

const CREATED_RE = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

function settings(env = process.env) {
  return {
    baseUrl: env.CONTRACT_BASE_URL,
    instanceIndex: env.CONTRACT_INSTANCE_INDEX,
    appName: env.CONTRACT_APP_NAME,
    dbUrl: env.CONTRACT_DB_URL,
    resultsDbUrl: env.CONTRACT_RESULTS_DB_URL,
    timingsCapacity: env.CONTRACT_TIMINGS_CAPACITY ? Number(env.CONTRACT_TIMINGS_CAPACITY) : undefined,
    controlToken: env.CONTRACT_CONTROL_TOKEN,
  };
}

/** The fixed correlation id of case number `i` (the same in every run and every app). */
const caseCid = (i) => `contract-case-${i}`;

/**
 * Request of a case with its X-Correlation-ID and Authorization headers added (`auth`: a
 * function of the control token, or a list of them); returns { req, cid, wantEcho }.
 */
function prepare(c, i, controlToken) {
  const cid = c.cid === undefined ? caseCid(i) : c.cid;
  const headers = Array.isArray(c.req.headers) ? [...c.req.headers] : Object.entries(c.req.headers || {});
  if (cid !== null) headers.push([c.cidHeader || 'X-Correlation-ID', cid]);
  for (const auth of c.auth === undefined ? [] : [].concat(c.auth)) headers.push(['Authorization', auth(controlToken)]);
  const wantEcho = !c.expect.newCid && cid !== null && cid !== '';
  return { req: { ...c.req, headers }, cid: cid === null ? '' : cid, wantEcho };
}

/** The exact text of GET /ads/{id} (contract README, "One ad"). */
function adText({ id, title, price, contact, created, body }) {
  return `id: ${id}\ntitle: ${title}\nprice: ${price}\ncontact: ${contact}\ncreated: ${created}\n\n${body}\n`;
}

/** Problems of reading back ad `id` and finding `stored` (created time: any valid one). */
async function checkStored(baseUrl, id, stored, ctx) {
  const res = await send(baseUrl, { path: `/ads/${id}`, headers: { 'X-Correlation-ID': `readback-${id}` } });
  const problems = checkResponse(res, { status: 200 }, { ...ctx, cid: `readback-${id}`, wantEcho: true });
  if (res.error || res.status !== 200) return problems.map((p) => `read back /ads/${id}: ${p}`);
  const text = res.body.toString('utf8');
  const created = /\ncreated: ([^\n]*)\n/.exec(text)?.[1] ?? '';
  if (!CREATED_RE.test(created)) problems.push(`created: want YYYY-MM-DDTHH:MM:SS.mmmZ, got ${show(created)}`);
  const want = adText({ id, ...stored, created });
  if (text !== want) problems.push(`stored ad: want ${show(want)}, got ${show(text)}`);
  return problems.map((p) => `read back /ads/${id}: ${p}`);
}

/** Run case `c` (number `i`) against `baseUrl`; resolves with { res, problems }. */
async function runCase(baseUrl, c, i, ctx = {}) {
  const { req, cid, wantEcho } = prepare(c, i, ctx.controlToken);
  const head = (req.method || 'GET') === 'HEAD';
  const res = await send(baseUrl, req);
  const problems = checkResponse(res, c.expect, { ...ctx, head, cid, wantEcho });
  if (!res.error && c.expect.created && res.status === 201) {
    const id = /^([1-9][0-9]*)\n$/.exec(res.body.toString('utf8'))?.[1];
    if (!id) problems.push(`201 body: want "{id}\\n", got ${show(res.body)}`);
    else if (one(res, 'location') !== `/ads/${id}`) problems.push(`Location: want "/ads/${id}", got ${show(one(res, 'location') ?? '(none)')}`);
    else if (c.expect.stored) problems.push(...await checkStored(baseUrl, id, c.expect.stored, ctx));
  }
  return { res, problems };
}

/** node:test body: fail with every problem, one per line. */
function report(problems) {
  if (problems.length) throw new Error(`${problems.length} problem(s):\n  - ${problems.join('\n  - ')}`);
}

module.exports = { settings, caseCid, prepare, adText, runCase, checkStored, report, CREATED_RE };
