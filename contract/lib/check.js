// check.js — compare one raw response with what the contract expects, collecting every
// problem (TechEmpower verifications style) instead of stopping at the first one.
'use strict';

const CONTENT_TYPE = 'text/plain; charset=utf-8';
const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const SHOW_CHARS = 160;

function show(value) {
  const s = Buffer.isBuffer(value) ? value.toString('utf8') : String(value);
  const j = JSON.stringify(s);
  return j.length > SHOW_CHARS ? `${j.slice(0, SHOW_CHARS)}…(${s.length} chars)` : j;
}

function one(res, name) {
  const v = res.headers.get(name);
  return v ? v[0] : undefined;
}

function isUtf8(buf) {
  try {
    new TextDecoder('utf-8', { fatal: true }).decode(buf);
    return true;
  } catch {
    return false;
  }
}

/** Headers every response carries (contract README, "Every response"). */
function checkCommon(res, { instanceIndex, head = false }, problems) {
  const ct = res.headers.get('content-type') || [];
  if (ct.length !== 1 || ct[0] !== CONTENT_TYPE) {
    problems.push(`Content-Type: want ${show(CONTENT_TYPE)}, got ${show(ct.join(' | ') || '(none)')}`);
  }
  const index = one(res, 'x-instance-index');
  if (instanceIndex !== undefined ? index !== String(instanceIndex) : !/^(0|[1-9][0-9]*)$/.test(index ?? '')) {
    problems.push(`X-Instance-Index: want ${instanceIndex ?? 'a number'}, got ${show(index ?? '(none)')}`);
  }
  if (res.chunked || res.headers.has('transfer-encoding')) problems.push('chunked response (want Content-Length)');
  if (!head) {
    const cl = res.headers.get('content-length') || [];
    if (cl.length !== 1) problems.push(`Content-Length: want exactly one, got ${cl.length}`);
    else if (Number(cl[0]) !== res.body.length) problems.push(`Content-Length ${cl[0]} but ${res.body.length} body bytes`);
    if (!isUtf8(res.body)) problems.push('body is not valid UTF-8');
  }
}

/** X-Correlation-ID: echoed when the request had a valid one, else a fresh UUID. */
function checkCorrelationId(res, sent, wantEcho, problems) {
  const got = res.headers.get('x-correlation-id') || [];
  if (got.length !== 1) {
    problems.push(`X-Correlation-ID: want exactly one, got ${got.length}`);
    return;
  }
  if (wantEcho) {
    if (got[0] !== String(sent)) problems.push(`X-Correlation-ID: want echo ${show(sent)}, got ${show(got[0])}`);
  } else if (!UUID_RE.test(got[0])) {
    problems.push(`X-Correlation-ID: want a new UUID, got ${show(got[0])}`);
  }
}

function checkValue(label, want, got, problems) {
  if (want === null) {
    if (got !== undefined) problems.push(`${label}: want none, got ${show(got)}`);
  } else if (want instanceof RegExp) {
    if (got === undefined || !want.test(got)) problems.push(`${label}: want ${want}, got ${show(got ?? '(none)')}`);
  } else if (got !== want) {
    problems.push(`${label}: want ${show(want)}, got ${show(got ?? '(none)')}`);
  }
}

/**
 * Problems of `res` against `expect` = { status, body (string, exact) | bodyMatch (RegExp),
 * headers: { name: string | RegExp | null (must be absent) } }.
 */
function checkResponse(res, expect, ctx) {
  const problems = [];
  if (res.error) {
    problems.push(`no valid response: ${res.error}${res.received?.length ? `; received ${show(res.received)}` : ''}`);
    return problems;
  }
  checkCommon(res, ctx, problems);
  if (ctx.cid !== undefined) checkCorrelationId(res, ctx.cid, ctx.wantEcho, problems);
  if (expect.status !== undefined && res.status !== expect.status) {
    problems.push(`status: want ${expect.status}, got ${res.status}`);
  }
  if (!ctx.head) {
    const body = res.body.toString('utf8');
    if (body !== '' && !body.endsWith('\n')) problems.push(`body does not end with \\n: ${show(body)}`);
    if (expect.body !== undefined && body !== expect.body) problems.push(`body: want ${show(expect.body)}, got ${show(body)}`);
    if (expect.bodyMatch && !expect.bodyMatch.test(body)) problems.push(`body: want ${expect.bodyMatch}, got ${show(body)}`);
  }
  for (const [name, want] of Object.entries(expect.headers || {})) {
    checkValue(name, want, one(res, name.toLowerCase()), problems);
  }
  return problems;
}

module.exports = { checkResponse, checkCommon, checkCorrelationId, show, one, CONTENT_TYPE, UUID_RE };
