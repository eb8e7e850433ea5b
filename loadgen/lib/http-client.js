'use strict';
// A lean HTTP/1.1 client connection on raw `net`/`tls` sockets: one request in
// flight at a time (no pipelining), keep-alive reuse, or a fresh socket per request
// when keep-alive is off. The request bytes are built in the connection's own
// buffer (only the variable path part and the correlation id change), the answer
// is parsed incrementally and counted, never kept. Failures become an error kind
// handed to the engine — never an exception. Timeouts are enforced by the engine's
// single shared timer, not a setTimeout per request. Plain TCP goes straight on
// libuv's handle (raw-tcp.js) where node allows it, else through net.Socket.

const net = require('node:net');
const { performance } = require('node:perf_hooks');
const { ResponseParser } = require('./response-parser');
const { uuidv7Bytes } = require('./uuidv7');
const { KIND } = require('./stats');
const rawTcp = require('./raw-tcp');

const READ_BUFFER_BYTES = 16384;
const TIME_ORIGIN_MS = performance.timeOrigin;

class Connection {
  /** target: { host, port, tls, servername, rejectUnauthorized }; engine: complete(conn, kind) */
  constructor(engine, target, scenario, keepalive) {
    this.engine = engine;
    this.target = target;
    this.scenario = scenario;
    this.keepalive = keepalive;
    this.socket = null;
    this.connected = false;
    this.busy = false;
    this.parser = new ResponseParser();
    this.reqBuf = Buffer.alloc(scenario.maxRequestBytes);
    this.uuid = Buffer.alloc(16);
    this.readBuf = Buffer.allocUnsafe(READ_BUFFER_BYTES);
    this.views = [];
    this.op = 0;
    this.filledOp = -1; // the op whose fixed request is in reqBuf: only its id changes
    this.intendedMs = 0;
    this.startedMs = 0;
    this.deadlineMs = 0;
  }

  /** Sends one request of operation `op`; `intendedMs` is its scheduled time (open model) or now. */
  send(op, intendedMs, timeoutMs) {
    this.op = op;
    this.parser.reset();
    this.busy = true;
    if (this.socket === null) this.open();
    const now = performance.now();
    // The id's millisecond is the send's, on started_at's clock (sample-batch.js wallUs): one
    // clock read serves both. Composing the request (~0.1 µs) counts in its latency, as the write does.
    uuidv7Bytes(this.uuid, 0, Math.floor(TIME_ORIGIN_MS + now));
    let len;
    if (op === this.filledOp) len = this.scenario.rewriteId(op, this.reqBuf, this.uuid);
    else {
      len = this.scenario.write(op, this.reqBuf, this.uuid);
      this.filledOp = this.scenario.fixed(op) ? op : -1;
    }
    this.intendedMs = intendedMs || now;
    this.startedMs = now;
    this.deadlineMs = now + timeoutMs;
    // One view per request length, made once: the bytes live in reqBuf.
    let view = this.views[len];
    if (view === undefined) view = this.views[len] = this.reqBuf.subarray(0, len);
    this.socket.write(view);
  }

  open() {
    const t = this.target;
    if (!t.tls && rawTcp.available) {
      // Callbacks come only from the current socket: a dropped one is silent.
      this.socket = new rawTcp.RawTcp(t.host, t.port, this.readBuf, this);
      this.connected = false;
      return;
    }
    let socket;
    if (t.tls) {
      // node:tls loads for TLS targets only (~5 ms of CPU at start).
      socket = require('node:tls').connect({ host: t.host, port: t.port, servername: t.servername, rejectUnauthorized: t.rejectUnauthorized !== false });
      socket.on('data', (chunk) => {
        if (socket === this.socket) this.onData(chunk);
      });
    } else {
      // onread: reads land in this connection's own buffer and reach us without the
      // stream machinery or a Buffer per read (the parser copies what it keeps).
      socket = net.connect({
        host: t.host, port: t.port,
        onread: {
          buffer: this.readBuf,
          callback: (n, buf) => {
            if (socket === this.socket) this.onData(buf, n);
          },
        },
      });
    }
    this.socket = socket;
    this.connected = false;
    socket.setNoDelay(true);
    let lastError = null;
    socket.on(t.tls ? 'secureConnect' : 'connect', () => {
      if (socket === this.socket) this.connected = true;
    });
    socket.on('error', (err) => { lastError = err; });
    socket.on('close', () => {
      if (socket === this.socket) this.onClose(lastError);
    });
  }

  onConnect() {
    this.connected = true;
  }

  onData(chunk, len) {
    if (!this.busy) return; // nothing asked: ignore stray bytes
    const parser = this.parser;
    const complete = parser.execute(chunk, len === undefined ? chunk.length : len);
    if (parser.error !== null) {
      this.drop();
      this.finish(KIND.parse);
    } else if (complete) {
      if (!parser.keepAlive || !this.keepalive) this.drop();
      this.finish(KIND.ok);
    }
  }

  onClose(err) {
    const wasConnected = this.connected;
    this.socket = null;
    this.connected = false;
    if (!this.busy) return;
    if (this.parser.finishOnClose()) this.finish(KIND.ok);
    else if (!wasConnected && !(err && err.code === 'ECONNRESET')) this.finish(KIND.connect);
    else this.finish(KIND.reset);
  }

  /** Closes the socket without reporting its close (we know why it closes). */
  drop() {
    const s = this.socket;
    if (s === null) return;
    this.socket = null;
    this.connected = false;
    s.destroy();
  }

  /** Called by the engine's timer: the request ran out of time. */
  timeout() {
    this.drop();
    this.finish(KIND.timeout);
  }

  /** Called when the run is being stopped and in-flight requests cannot wait longer. */
  abort() {
    this.drop();
    this.finish(KIND.aborted);
  }

  finish(kind) {
    this.busy = false;
    this.engine.complete(this, kind);
  }
}

module.exports = { Connection };
