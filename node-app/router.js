'use strict'
// router.js — the route table shared by node:http and express (contract/README.md "Routes").
// Paths match exactly: no trailing slash, no percent-decoding, query ignored. The methods
// of a route are listed in the contract's order: they make the Allow header of a 405.

const { sendReason } = require('./reply')

const ITEM_PREFIX = '/ads/'

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
].map((r) => Object.freeze({ ...r, allow: Object.keys(r.methods).join(', ') }))

const BY_PATH = new Map(ROUTES.filter((r) => !r.pattern).map((r) => [r.path, r]))
const ITEM_ROUTE = ROUTES.find((r) => r.path === '/ads/{id}')

/** The route of a raw path, or undefined. */
function findRoute(path) {
  const route = BY_PATH.get(path)
  if (route !== undefined) return route
  if (path.length > ITEM_PREFIX.length && path.startsWith(ITEM_PREFIX) && path.indexOf('/', ITEM_PREFIX.length) === -1) {
    return ITEM_ROUTE
  }
  return undefined
}

function notFound(res, ctx) {
  sendReason(res, ctx, 404, 'not found')
}

function methodNotAllowed(res, ctx, route) {
  sendReason(res, ctx, 405, 'method not allowed', { Allow: route.allow })
}

module.exports = { ROUTES, findRoute, notFound, methodNotAllowed }
