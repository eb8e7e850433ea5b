'use strict';
// What each request is. A scenario is a weighted choice of operations of the
// bulletin board (contract/README.md): read one ad by a random id in a seeded
// range (GET /ads/{id}), browse a page (GET /ads?offset=&limit=), publish an ad
// (POST /ads, form-urlencoded), `hello` (GET /hello: no database, the study's Hello World
// control, to measure the router or a TLS proxy), or, for the CLI, `get`: the URL as given with
// --method/--header/--body. Every request is laid out once as pre-built byte
// templates; per request only the variable path part and the correlation id are
// spliced into the connection's own buffer.

const { writeUuidHex, UUID_HEX_LENGTH } = require('./uuidv7');

const OP_NAMES = ['get', 'read', 'browse', 'publish', 'hello'];
const OP = { get: 0, read: 1, browse: 2, publish: 3, hello: 4 };
const SCENARIOS = ['get', 'read', 'browse', 'publish', 'hello', 'mix'];
const DEFAULT_PAGE_LIMIT = 20;      // contract default limit
const DEFAULT_MIX_WEIGHTS = { read: 8, browse: 1, publish: 1 };
const PUBLISH_FORM = 'title=cfscale+load+ad&body=posted+by+the+cfscale+load+generator&price=9.99&contact=loadgen%40cfscale.invalid';
const MAX_VARIABLE_BYTES = 64;

/** mulberry32: small, fast, seedable; reproducible id sequences per instance. */
function makeRandom(seed) {
  let a = (seed >>> 0) || 0x9e3779b9;
  return function random() {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function writeUint(buf, off, n) {
  const s = String(n);
  return off + buf.latin1Write(s, off);
}

/**
 * opts: { basePath, hostHeader, keepalive, scenario, weights, idMin, idMax,
 *         pageLimit, offsetMax, randomSeed, method, path, headers[], body }
 */
class Scenario {
  constructor(opts) {
    this.random = makeRandom(opts.randomSeed);
    this.idMin = opts.idMin || 1;
    this.idSpan = Math.max(1, (opts.idMax || this.idMin) - this.idMin + 1);
    this.pageLimit = opts.pageLimit || DEFAULT_PAGE_LIMIT;
    this.offsetMax = opts.offsetMax || 0;
    const base = (opts.basePath || '').replace(/\/+$/, '');
    const common = 'Host: ' + opts.hostHeader + '\r\n' +
      (opts.headers || []).map((h) => h + '\r\n').join('') +
      (opts.keepalive ? '' : 'Connection: close\r\n') +
      'X-Correlation-ID: ';
    this.templates = [];
    this.templates[OP.get] = template(opts.method || 'GET', opts.path || base + '/', common, opts.body || '', null);
    this.templates[OP.read] = template('GET', base + '/ads/', common, '', null);
    this.templates[OP.browse] = template('GET', base + '/ads?limit=' + this.pageLimit + '&offset=', common, '', null);
    this.templates[OP.publish] = template('POST', base + '/ads', common, PUBLISH_FORM,
      'application/x-www-form-urlencoded');
    this.templates[OP.hello] = template('GET', base + '/hello', common, '', null);
    this.maxRequestBytes = Math.max(...this.templates.map((t) => t.size)) + MAX_VARIABLE_BYTES;
    const weights = opts.scenario === 'mix' ? { ...DEFAULT_MIX_WEIGHTS, ...(opts.weights || {}) }
      : { [opts.scenario]: 1 };
    this.cumulative = [];
    let total = 0;
    for (const name of OP_NAMES) {
      const w = Number(weights[name] || 0);
      if (w > 0) { total += w; this.cumulative.push([total, OP[name]]); }
    }
    if (total <= 0) throw new Error('scenario has no operation with a positive weight');
    for (const c of this.cumulative) c[0] /= total;
    this.single = this.cumulative.length === 1 ? this.cumulative[0][1] : -1;
  }

  /** Picks the next operation code. */
  pick() {
    if (this.single >= 0) return this.single;
    const r = this.random();
    const c = this.cumulative;
    for (let i = 0; i < c.length - 1; i++) if (r < c[i][0]) return c[i][1];
    return c[c.length - 1][1];
  }

  /**
   * Whether the request of `op` is the same bytes every time but for its correlation id (no
   * random id in its path): once written, a buffer then needs only rewriteId() for the next.
   */
  fixed(op) {
    return op !== OP.read && op !== OP.browse;
  }

  /** The buffer holds a request of fixed(op) `op`: writes only the new correlation id; returns its length. */
  rewriteId(op, buf, uuid) {
    const t = this.templates[op];
    writeUuidHex(uuid, 0, buf, t.idOffset);
    return t.size;
  }

  /** Writes the request for `op` with correlation id `uuid` (16 bytes) into `buf`; returns its length. */
  write(op, buf, uuid) {
    const t = this.templates[op];
    let o = t.head.copy(buf, 0);
    if (op === OP.read) o = writeUint(buf, o, this.idMin + Math.floor(this.random() * this.idSpan));
    else if (op === OP.browse) o = writeUint(buf, o, this.offsetMax > 0 ? Math.floor(this.random() * (this.offsetMax + 1)) : 0);
    o += t.mid.copy(buf, o);
    o = writeUuidHex(uuid, 0, buf, o);
    o += t.tail.copy(buf, o);
    return o;
  }
}

function template(method, pathPrefix, common, body, contentType) {
  const head = Buffer.from(method + ' ' + pathPrefix, 'latin1');
  const mid = Buffer.from(' HTTP/1.1\r\n' + common, 'latin1');
  const bodyBuf = Buffer.from(body, 'utf8');
  let tailText = '\r\n';
  if (contentType) tailText += 'Content-Type: ' + contentType + '\r\n';
  if (bodyBuf.length > 0 || method === 'POST' || method === 'PUT') tailText += 'Content-Length: ' + bodyBuf.length + '\r\n';
  const tail = Buffer.concat([Buffer.from(tailText + '\r\n', 'latin1'), bodyBuf]);
  return { head, mid, tail, idOffset: head.length + mid.length, size: head.length + mid.length + UUID_HEX_LENGTH + tail.length };
}

module.exports = { Scenario, OP, OP_NAMES, SCENARIOS, DEFAULT_MIX_WEIGHTS, DEFAULT_PAGE_LIMIT, makeRandom };
