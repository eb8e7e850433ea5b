'use strict';
// control-auth.js — the control credential of the /timings endpoints (contract "Control
// credential"): a request must carry exactly one `Authorization: Bearer CONTROL_TOKEN` (the
// scheme in any case, RFC 9110 §11.1), else `401` with `WWW-Authenticate: Bearer` and the
// handler does not run. The routes are public on CF: anyone could switch recording off, clear
// or misfile a round's measurements. The credential is compared as SHA-256 digests with
// timingSafeEqual, so the time taken tells nothing about the token, not even its length.
// Without a token (a plain `cf push`) the endpoints answer 401 to every request, so the app
// still serves its public routes; only LOCAL_DEV_NO_CONTROL_TOKEN opens them.

const { createHash, timingSafeEqual } = require('node:crypto');
const { sendReason } = require('./reply');

const REASON = 'control credential missing or wrong';
const CLOSED_REASON = 'control endpoints closed: CONTROL_TOKEN not set';
// The line logged at start while the endpoints are closed: the settings spec's, shared with java-app.
const CLOSED_LINE = require('./settings.json').settings.find((s) => s.name === 'CONTROL_TOKEN').unsetLine;
const CHALLENGE = Object.freeze({ 'WWW-Authenticate': 'Bearer' });
const SCHEME = 'bearer ';
const HEADER = 'authorization';

const digest = (s) => createHash('sha256').update(s, 'latin1').digest();

/** The value of the request's one Authorization header; null when absent or given twice. */
function authorization(req) {
  let value = null;
  const raw = req.rawHeaders;
  for (let i = 0; i < raw.length; i += 2) {
    if (raw[i].length === HEADER.length && raw[i].toLowerCase() === HEADER) {
      if (value !== null) return null;
      value = raw[i + 1];
    }
  }
  return value;
}

/**
 * A wrapper that closes a handler to requests without the credential `token`. With token
 * null: handlers stay open when `open` (LOCAL_DEV_NO_CONTROL_TOKEN), else every request gets 401.
 */
function controlAuth(token, { open = false } = {}) {
  if (token === null && open) return (handler) => handler;
  if (token === null) return () => function closed(req, res, ctx) { return sendReason(res, ctx, 401, CLOSED_REASON, CHALLENGE); };
  const want = digest(token);
  function allowed(req) {
    const v = authorization(req);
    if (v === null || v.length <= SCHEME.length || v.slice(0, SCHEME.length).toLowerCase() !== SCHEME) return false;
    return timingSafeEqual(digest(v.slice(SCHEME.length)), want);
  }
  return (handler) => function controlled(req, res, ctx) {
    if (!allowed(req)) return sendReason(res, ctx, 401, REASON, CHALLENGE);
    return handler(req, res, ctx);
  };
}

module.exports = { controlAuth, CLOSED_LINE };
