'use strict';
// app-express.js — APP_FRAMEWORK=express: the same routes and handlers dispatched by
// express 5. Express only routes: the shared handlers write every response, and the
// settings below keep express from adding anything (X-Powered-By, ETag) or matching
// more loosely than node:http (case, trailing slash, HEAD answered by GET routes).

const express = require('express');
const { ROUTES, notFound, methodNotAllowed, dispatch, failRequest } = require('./router');

const CTX = Symbol('cfscale.ctx');

/** (req, res, ctx) => void routing every request through an express app. */
function createExpressRouter(handlers) {
  const app = express();
  app.disable('x-powered-by');
  app.disable('etag');
  app.set('query parser', false);
  app.set('case sensitive routing', true);
  app.set('strict routing', true);

  for (const r of ROUTES) {
    // A RegExp path has no named parameters, so express never percent-decodes the id.
    const path = r.pattern ?? r.path;
    const refuse = (req, res) => methodNotAllowed(res, req[CTX], r);
    app.head(path, refuse); // express would otherwise answer HEAD with the GET route
    for (const [method, name] of Object.entries(r.methods)) {
      const handler = handlers[name];
      app[method.toLowerCase()](path, (req, res) => dispatch(handler, req, res, req[CTX]));
    }
    app.all(path, refuse);
  }
  app.use((req, res) => notFound(res, req[CTX]));
  app.use((err, req, res, next) => failRequest(res, req[CTX], err)); // eslint-disable-line no-unused-vars

  return function route(req, res, ctx) {
    req[CTX] = ctx;
    app(req, res);
  };
}

module.exports = { createExpressRouter };
