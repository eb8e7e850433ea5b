'use strict';
// router.js — the route table shared by node:http and express (contract/README.md "Routes"),
// and the app's one error boundary, failRequest(), that turns any error into a one-line
// reason. Paths match exactly: no trailing slash, no percent-decoding, query ignored. The
// methods of a route are listed in the contract's order: they make the Allow header of a 405.

const { HttpError } = require('./http-error');
const { sendReason } = require('./reply');
const { logError, throttledLog } = require('./log');

const ITEM_PREFIX = '/ads/';

const ROUTES = [
  { path: '/health', methods: { GET: 'health' } },
  { path: '/hello', methods: { GET: 'hello' } },
  { path: '/ads', methods: { GET: 'listAds', POST: 'createAd' } },
  // /ads/ followed by one non-empty segment without '/'.
  { path: '/ads/{id}', pattern: /^\/ads\/[^/]+$/, methods: { GET: 'getAd' } },
  { path: '/timings', methods: { GET: 'timingsState' } },
  { path: '/timings/flush', methods: { POST: 'timingsFlush' } },
  { path: '/timings/clear', methods: { POST: 'timingsClear' } },
  { path: '/timings/recording', methods: { POST: 'timingsRecording' } },
].map((r) => Object.freeze({ ...r, allow: Object.keys(r.methods).join(', ') }));

const BY_PATH = new Map(ROUTES.filter((r) => !r.pattern).map((r) => [r.path, r]));
const ITEM_ROUTE = ROUTES.find((r) => r.path === '/ads/{id}');

/** The route of a raw path, or undefined. */
function findRoute(path) {
  const route = BY_PATH.get(path);
  if (route !== undefined) return route;
  if (path.length > ITEM_PREFIX.length && path.startsWith(ITEM_PREFIX) && path.indexOf('/', ITEM_PREFIX.length) === -1) {
    return ITEM_ROUTE;
  }
  return undefined;
}

function notFound(res, ctx) {
  sendReason(res, ctx, 404, 'not found');
}

function methodNotAllowed(res, ctx, route) {
  sendReason(res, ctx, 405, 'method not allowed', { Allow: route.allow });
}

/** The error boundary: expected HttpErrors answer their reason, anything else 500. */
function failRequest(res, ctx, err) {
  if (res.headersSent || res.destroyed) {
    // Nothing sensible can be sent any more (client gone, or a bug after writing).
    if (!res.destroyed) res.destroy();
    return;
  }
  if (err instanceof HttpError) {
    if (err.status >= 500 && err.cause) logCause(ctx, err);
    sendReason(res, ctx, err.status, err.reason, err.headers);
    return;
  }
  logError(`request ${ctx.correlationId} failed: ${err && err.stack ? err.stack : err}`);
  sendReason(res, ctx, 500, 'internal error');
}

// During an outage every request fails the same way: one line per second is enough.
const logOutage = throttledLog(1000);
function logCause(ctx, err) {
  logOutage(`request ${ctx.correlationId}: ${err.reason}: ${err.cause.message || err.cause}`);
}

/** Run an async handler under the error boundary. */
function dispatch(handler, req, res, ctx) {
  let pending;
  try {
    pending = handler(req, res, ctx);
  } catch (err) {
    failRequest(res, ctx, err);
    return;
  }
  if (pending !== undefined) pending.catch((err) => failRequest(res, ctx, err));
}

module.exports = { ROUTES, findRoute, notFound, methodNotAllowed, failRequest, dispatch };
