// raw-http.js — HTTP/1.1 over a bare TCP socket (node:net).
//
// The contract is about bytes: fetch/undici would normalise or refuse exactly what the
// suite must send (invalid UTF-8, bytes >= 0x80 in header values, a Content-Length with
// no body, chunked bodies) and would hide what it must see (raw header bytes, chunked
// responses). So every request of the suite goes through here. A transport failure is
// returned as data (`error`), never thrown: the caller turns it into a problem of a case.
'use strict';

const net = require('node:net');

const DEFAULT_TIMEOUT_MS = 5000;

/** Header list as [name, value] pairs (value: string or Buffer); accepts an object too. */
function headerPairs(headers) {
  if (!headers) return [];
  return Array.isArray(headers) ? headers : Object.entries(headers);
}

function hasHeader(pairs, name) {
  return pairs.some(([n]) => n.toLowerCase() === name.toLowerCase());
}

/**
 * The bytes of one request. `body` (string/Buffer) gets a Content-Length unless the
 * headers carry one; `chunks` (array) is sent with Transfer-Encoding: chunked.
 */
function buildRequest({ method = 'GET', path = '/', headers, body, chunks, host, close = true }) {
  const pairs = [['Host', host], ...headerPairs(headers)];
  if (close && !hasHeader(pairs, 'connection')) pairs.push(['Connection', 'close']);
  let payload = Buffer.alloc(0);
  if (chunks) {
    pairs.push(['Transfer-Encoding', 'chunked']);
    const parts = [];
    for (const c of chunks) {
      const b = Buffer.from(c);
      parts.push(Buffer.from(`${b.length.toString(16)}\r\n`), b, Buffer.from('\r\n'));
    }
    parts.push(Buffer.from('0\r\n\r\n'));
    payload = Buffer.concat(parts);
  } else if (body !== undefined && body !== null) {
    payload = Buffer.from(body);
    if (!hasHeader(pairs, 'content-length')) pairs.push(['Content-Length', String(payload.length)]);
  }
  const head = [Buffer.from(`${method} ${path} HTTP/1.1\r\n`)];
  for (const [n, v] of pairs) head.push(Buffer.from(`${n}: `), Buffer.from(v), Buffer.from('\r\n'));
  head.push(Buffer.from('\r\n'));
  return Buffer.concat([...head, payload]);
}

/** Decode a chunked body; null while incomplete. */
function parseChunked(buf) {
  const parts = [];
  let pos = 0;
  for (;;) {
    const eol = buf.indexOf('\r\n', pos);
    if (eol < 0) return null;
    const size = parseInt(buf.subarray(pos, eol).toString('latin1').split(';')[0], 16);
    if (Number.isNaN(size)) return { body: Buffer.concat(parts), used: buf.length, bad: true };
    if (size === 0) {
      const end = buf.indexOf('\r\n\r\n', eol);
      if (end < 0 && buf.indexOf('\r\n', eol + 2) !== eol + 2) return null;
      return { body: Buffer.concat(parts), used: end < 0 ? eol + 4 : end + 4 };
    }
    if (buf.length < eol + 2 + size + 2) return null;
    parts.push(buf.subarray(eol + 2, eol + 2 + size));
    pos = eol + 2 + size + 2;
  }
}

/**
 * Parse one response from the front of `buf`. Returns null when more bytes are needed,
 * else { response, used }. `ended` says the peer closed (body until close).
 */
function parseResponse(buf, { head: isHead = false, ended = false } = {}) {
  const end = buf.indexOf('\r\n\r\n');
  if (end < 0) return null;
  const rawHead = buf.subarray(0, end + 4);
  const lines = rawHead.toString('latin1').split('\r\n').slice(0, -2);
  const m = /^HTTP\/1\.[01] (\d{3})(?: (.*))?$/.exec(lines[0]);
  if (!m) return { response: { error: `bad status line: ${JSON.stringify(lines[0])}` }, used: buf.length };
  const headers = new Map();
  for (const line of lines.slice(1)) {
    const i = line.indexOf(':');
    const name = line.slice(0, i).trim().toLowerCase();
    const value = line.slice(i + 1).trim();
    headers.set(name, [...(headers.get(name) || []), value]);
  }
  const response = { status: Number(m[1]), reason: m[2] || '', headers, rawHead, chunked: false };
  const rest = buf.subarray(end + 4);
  const te = (headers.get('transfer-encoding') || []).join(',').toLowerCase();
  const cl = headers.get('content-length');
  if (isHead || response.status === 204 || response.status === 304) {
    response.body = Buffer.alloc(0);
    return { response, used: end + 4 };
  }
  if (te.includes('chunked')) {
    response.chunked = true;
    const c = parseChunked(rest);
    if (!c) return ended ? { response: { ...response, error: 'closed mid-body', body: rest }, used: buf.length } : null;
    response.body = c.body;
    return { response, used: end + 4 + c.used };
  }
  if (cl) {
    const n = Number(cl[0]);
    if (rest.length < n) {
      return ended ? { response: { ...response, error: `closed mid-body (${rest.length} of ${n} bytes)`, body: rest }, used: buf.length } : null;
    }
    response.body = rest.subarray(0, n);
    return { response, used: end + 4 + n };
  }
  if (!ended) return null;
  response.body = rest;
  return { response, used: buf.length };
}

/**
 * A client connection that may carry several requests (keep-alive), one at a time.
 * `request()` resolves with a response object, or { error, received } on failure.
 */
class RawConnection {
  constructor(url, { timeoutMs = DEFAULT_TIMEOUT_MS } = {}) {
    const u = new URL(url);
    this.host = u.host;
    this.timeoutMs = timeoutMs;
    this.buf = Buffer.alloc(0);
    this.ended = false;
    this.error = null;
    this.waiter = null;
    this.socket = net.connect({ host: u.hostname, port: Number(u.port) });
    this.socket.setNoDelay(true);
    this.connected = new Promise((resolve) => {
      this.socket.once('connect', () => resolve(null));
      this.socket.once('error', (e) => resolve(e.code || e.message));
    });
    this.socket.on('data', (d) => { this.buf = Buffer.concat([this.buf, d]); this.wake(); });
    this.socket.on('end', () => { this.ended = true; this.wake(); });
    this.socket.on('close', () => { this.ended = true; this.wake(); });
    this.socket.on('error', (e) => { this.error = this.error || e.code || e.message; this.ended = true; this.wake(); });
  }

  wake() { if (this.waiter) this.waiter(); }

  /** Send `req` (an object for buildRequest, or raw bytes) and read one response. */
  async request(req, { head = false } = {}) {
    const bytes = Buffer.isBuffer(req) ? req : buildRequest({ host: this.host, ...req });
    const connectError = await this.connected;
    if (connectError) return { error: `connect: ${connectError}`, received: Buffer.alloc(0) };
    this.buf = Buffer.alloc(0);
    this.socket.write(bytes, () => {});
    const deadline = Date.now() + this.timeoutMs;
    for (;;) {
      const parsed = parseResponse(this.buf, { head, ended: this.ended });
      if (parsed) {
        this.buf = this.buf.subarray(parsed.used);
        return parsed.response;
      }
      if (this.ended) {
        return { error: this.error ? `connection error ${this.error}` : 'closed before a response', received: this.buf };
      }
      const left = deadline - Date.now();
      if (left <= 0) return { error: `no response within ${this.timeoutMs} ms`, received: this.buf };
      await new Promise((resolve) => {
        const t = setTimeout(resolve, left);
        this.waiter = () => { clearTimeout(t); resolve(); };
      });
      this.waiter = null;
    }
  }

  close() { this.socket.destroy(); }
}

/** One request on a fresh connection (Connection: close). */
async function send(baseUrl, req, opts = {}) {
  const conn = new RawConnection(baseUrl, opts);
  try {
    return await conn.request(req, { head: (req.method || 'GET') === 'HEAD' });
  } finally {
    conn.close();
  }
}

/** Resolve with 'refused' | 'accepted' for a new TCP connection to the base URL. */
function probeConnect(baseUrl, timeoutMs = 1000) {
  const u = new URL(baseUrl);
  return new Promise((resolve) => {
    const s = net.connect({ host: u.hostname, port: Number(u.port) });
    const t = setTimeout(() => { s.destroy(); resolve('timeout'); }, timeoutMs);
    s.once('connect', () => { clearTimeout(t); s.destroy(); resolve('accepted'); });
    s.once('error', (e) => { clearTimeout(t); resolve(e.code === 'ECONNREFUSED' ? 'refused' : e.code); });
  });
}

module.exports = { buildRequest, parseResponse, RawConnection, send, probeConnect, DEFAULT_TIMEOUT_MS };
