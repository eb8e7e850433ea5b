// server.js — Cloud Controller's v3 API and a UAA token endpoint on 127.0.0.1:
// CFSCALE_API_PORT, served by the daemon next to the `cfl` socket so that the real cf CLI
// is the client (`cf login -a http://127.0.0.1:PORT -u admin -p admin`). Plain HTTP on
// loopback; the CLI accepts it. Reads the body, checks the bearer token, dispatches
// (router.js) and renders CC's error document for every failure.
'use strict';

const http = require('node:http');
const path = require('node:path');
const { Router } = require('./router');
const { Uaa } = require('./uaa');
const { Jobs } = require('./jobs');
const { EnvelopeStore } = require('./envelope-store');
const logCacheApi = require('./log-cache');
const errors = require('./errors');
const { paginate } = require('./pagination');
const { listMessage, checkListQuery, applyListQuery } = require('./list-params');
const { RawBody } = require('./presenters');

const MODULES = [require('./root'), require('./orgs'), require('./apps'), require('./processes'), require('./routes'),
  require('./service-instances'), require('./push'), require('./deployments'), require('./log-cache'), require('./foundation'),
  require('./spaces'), require('./app-manifest-out'), require('./tasks')];
// Bits uploads (an app with its node_modules) are read whole into memory, up to 1 GiB;
// any other body is JSON or a manifest, cut off far sooner so that no request can fill
// the daemon's heap.
const MAX_UPLOAD_BYTES = 1024 * 1024 * 1024;
const MAX_BODY_BYTES = 16 * 1024 * 1024;

function parseBody(req, raw) {
  const type = String(req.headers['content-type'] || '').split(';')[0].trim();
  if (!raw.length) return {};
  if (type === 'application/json' || type === '') {
    let v;
    try { v = JSON.parse(raw.toString('utf8')); } catch (e) { throw errors.messageParseError(e.message); }
    // Rails puts a JSON body that is not an object under `_json`, which CC's messages then
    // refuse as an unknown field.
    return v !== null && typeof v === 'object' && !Array.isArray(v) ? v : { _json: v };
  }
  if (type === 'application/x-www-form-urlencoded') return Object.fromEntries(new URLSearchParams(raw.toString('utf8')));
  return raw;
}

function bearer(req) {
  const m = /^bearer\s+(.+)$/i.exec(String(req.headers.authorization || ''));
  return m ? m[1].trim() : null;
}

function basicUser(req) {
  const m = /^basic\s+(.+)$/i.exec(String(req.headers.authorization || ''));
  if (!m) return null;
  return Buffer.from(m[1], 'base64').toString('utf8').split(':')[0];
}

class CcApi {
  constructor({ platform, port, log }) {
    this.platform = platform;
    this.port = port;
    this.log = log;
    this.base = `http://127.0.0.1:${port}`;
    this.uaa = new Uaa(this.base, path.join(platform.cfg.home, 'uaa.key'));
    this.jobs = new Jobs(this.base, log);
    this.logCache = new EnvelopeStore();
    this.router = new Router();
    const deps = { platform, uaa: this.uaa, jobs: this.jobs, logCache: this.logCache, base: this.base, log, basicUser };
    for (const m of MODULES) m.register(this.router, deps);
  }

  async handle(req, res, raw) {
    const send = (status, body, headers = {}) => {
      if (body instanceof RawBody) {
        res.writeHead(status, { 'content-type': body.contentType, ...headers });
        res.end(body.text);
        return;
      }
      const text = body === null || body === undefined ? '' : JSON.stringify(body);
      res.writeHead(status, { ...(text ? { 'content-type': 'application/json; charset=utf-8' } : {}), ...headers });
      res.end(text);
    };
    try {
      const url = new URL(req.url, this.base);
      const route = this.router.match(req.method, url.pathname);
      if (!route.public) {
        const token = bearer(req);
        if (!token) throw errors.notAuthenticated();
        if (!this.uaa.verify(token)) throw errors.invalidAuthToken();
      }
      const list = req.method === 'GET' ? listMessage(route.pattern) : null;
      if (list) checkListQuery(list, url.searchParams);
      const ctx = { req, params: route.params, query: url.searchParams, body: parseBody(req, raw), raw };
      const out = await route.handler(ctx);
      const [status, body, headers] = Array.isArray(out) ? out : [200, out];
      const shown = list ? applyListQuery(body, list, url.searchParams) : body;
      send(status, req.method === 'GET' && !(shown instanceof RawBody) ? paginate(shown, url, this.base) : shown, headers);
    } catch (e) {
      if (e instanceof errors.CcError) return send(e.status, e.toJSON());
      this.log(`cc-api: ${req.method} ${req.url} failed: ${e.stack || e.message}`);
      send(500, errors.serverError().toJSON());
    }
  }

  // After platform.boot(): the app logs exist from then on (lines of apps a daemon restart
  // brought back before this are in the log files only).
  listen() {
    logCacheApi.feed(this.logCache, this.platform);
    this.server = http.createServer((req, res) => {
      const chunks = [];
      let size = 0;
      const limit = /^\/v3\/packages\/[^/]+\/upload\/?$/.test(String(req.url).split('?')[0]) ? MAX_UPLOAD_BYTES : MAX_BODY_BYTES;
      req.on('data', (d) => {
        size += d.length;
        if (size > limit) { req.destroy(); return; }
        chunks.push(d);
      });
      req.on('end', () => this.handle(req, res, Buffer.concat(chunks)));
    });
    this.server.requestTimeout = 0;
    this.server.keepAliveTimeout = 5000;
    return new Promise((resolve, reject) => {
      this.server.once('error', (e) => reject(new Error(`cannot serve the CC API on 127.0.0.1:${this.port}: ${e.message}`)));
      this.server.listen(this.port, '127.0.0.1', () => resolve(this.base));
    });
  }

  close() {
    if (!this.server) return Promise.resolve();
    this.server.closeAllConnections();
    return new Promise((r) => this.server.close(() => r()));
  }
}

module.exports = { CcApi };
