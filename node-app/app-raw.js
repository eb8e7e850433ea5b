'use strict';
// app-raw.js — APP_FRAMEWORK=raw: plain node:http dispatch over the shared route table.

const { findRoute, notFound, methodNotAllowed, dispatch } = require('./router');

/** (req, res, ctx) => void routing every request to handlers (name → handler). */
function createRawRouter(handlers) {
  return function route(req, res, ctx) {
    const r = findRoute(ctx.path);
    if (r === undefined) return notFound(res, ctx);
    const name = r.methods[req.method];
    if (name === undefined) return methodNotAllowed(res, ctx, r);
    dispatch(handlers[name], req, res, ctx);
  };
}

module.exports = { createRawRouter };
