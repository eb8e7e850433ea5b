// router.js — method + path patterns (`/v3/apps/:guid`) → handlers. A path no pattern
// matches is CC's 404 CF-NotFound (code 10000); a known path with another method too,
// as CC's Rails routes answer it.
'use strict';

const { notFound, invalidRequest } = require('./errors');

class Router {
  constructor() { this.routes = []; }

  // opts.public: no token needed (root, info, UAA).
  add(method, pattern, handler, opts = {}) {
    const names = [];
    const re = new RegExp(`^${pattern.replace(/:(\w+)/g, (_, n) => { names.push(n); return '([^/]+)'; })}/?$`);
    this.routes.push({ method, pattern, re, names, handler, public: !!opts.public });
    return this;
  }

  // {handler, params, public, pattern} of METHOD PATH; throws CF-NotFound.
  match(method, pathname) {
    for (const r of this.routes) {
      if (r.method !== method) continue;
      const m = r.re.exec(pathname);
      if (!m) continue;
      const params = {};
      // A path that is not valid percent-encoding is a bad request (Rails: 400).
      try { r.names.forEach((n, i) => { params[n] = decodeURIComponent(m[i + 1]); }); } catch { throw invalidRequest(); }
      return { handler: r.handler, params, public: r.public, pattern: r.pattern };
    }
    throw notFound();
  }
}

module.exports = { Router };
