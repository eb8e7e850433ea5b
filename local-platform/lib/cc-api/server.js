// server.js — Cloud Controller's v3 API and a UAA token endpoint on 127.0.0.1:
// CFSCALE_API_PORT, served by the daemon next to the `cfl` socket so that the real cf CLI
// is the client (`cf login -a http://127.0.0.1:PORT -u admin`, password admin). Plain HTTP on
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
// Body sizes as a foundation takes them (docs/cf-platform.md §23): nginx in front of CC cuts
// any body off at 15 MiB (cc.client_max_body_size) with its own 413; a package may have
// 1 GiB (cc.packages.max_package_size; nginx lets uploads through up to 2 GiB, CC refuses
// the package after). Uploads are read whole into memory, so no more than that is read.
const MAX_UPLOAD_BYTES = 1024 * 1024 * 1024;
const MAX_BODY_BYTES = 15 * 1024 * 1024;
// nginx reads on (and drops) what a client still sends after the 413 for up to this long
// (lingering_time), so the client reads the answer instead of a reset.
const LINGER_MS = 30000;
// nginx's own page for 413: no CC error document (CC never sees the request).
const TOO_LARGE_PAGE = '<html>\r\n<head><title>413 Request Entity Too Large</title></head>\r\n<body>\r\n'
  + '<center><h1>413 Request Entity Too Large</h1></center>\r\n<hr><center>nginx</center>\r\n</body>\r\n</html>\r\n';
const utf8 = new TextDecoder('utf-8', { fatal: true });

function parseBody(req, raw) {
  const type = String(req.headers['content-type'] || '').split(';')[0].trim().toLowerCase();
  if (!raw.length) return {};
  if (type === 'application/json' || type === '') {
    let v;
    // Rails' JSON parser refuses bytes that are no UTF-8, and so does CC's YAML check.
    try { v = JSON.parse(utf8.decode(raw)); } catch (e) { throw errors.messageParseError(e.message); }
    // Rails puts a JSON body that is not an object under `_json`, which CC's messages then
    // refuse as an unknown field.
    return v !== null && typeof v === 'object' && !Array.isArray(v) ? v : { _json: v };
  }
  if (type === 'application/x-www-form-urlencoded') return Object.fromEntries(new URLSearchParams(raw.toString('utf8')));
  // Rails parses no other body into params: a handler that reads one takes ctx.raw.
  return {};
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
      let tooLarge = null; // the linger timer once the body passed the limit
      const limit = /^\/v3\/packages\/[^/]+\/upload\/?$/.test(String(req.url).split('?')[0]) ? MAX_UPLOAD_BYTES : MAX_BODY_BYTES;
      const refuse = () => {
        clearTimeout(tooLarge);
        if (res.headersSent) return;
        res.writeHead(413, { 'content-type': 'text/html', connection: 'close' });
        res.end(TOO_LARGE_PAGE, () => req.socket.destroy());
      };
      req.on('data', (d) => {
        size += d.length;
        if (size <= limit) { chunks.push(d); return; }
        // Past the limit nothing more is kept: the rest is read and dropped, then 413.
        if (!tooLarge) { chunks.length = 0; tooLarge = setTimeout(refuse, LINGER_MS); }
      });
      req.on('end', () => (tooLarge ? refuse() : this.handle(req, res, Buffer.concat(chunks))));
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
