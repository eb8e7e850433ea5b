'use strict';
// control-auth.js — the control credential of the /timings endpoints (contract "Control
// credential"): a request must carry exactly one `Authorization: Bearer CONTROL_TOKEN` (the
// scheme in any case, RFC 9110 §11.1), else `401` with `WWW-Authenticate: Bearer` and the
// handler does not run. The routes are public on CF: anyone could switch recording off, clear
// or misfile a round's measurements. The credential is compared as SHA-256 digests with
// timingSafeEqual, so the time taken tells nothing about the token, not even its length.

const { createHash, timingSafeEqual } = require('node:crypto');
const { sendReason } = require('./reply');

const REASON = 'control credential missing or wrong';
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
 * A wrapper that closes a handler to requests without the credential `token`; with token
 * null (LOCAL_DEV_NO_CONTROL_TOKEN) handlers stay open.
 */
function controlAuth(token) {
  if (token === null) return (handler) => handler;
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

module.exports = { controlAuth };
