'use strict';
// Plain-TCP client sockets straight on libuv's stream handle: the `tcp_wrap` and
// `stream_wrap` bindings that node's own lib/net.js is built on. A net.Socket write
// passes through the Writable machinery (a WriteWrap, an afterWrite nextTick and its
// bookkeeping per write); here one request is one writeBuffer() on the handle, and
// reads land in the connection's own buffer. That is the load generator's hot path
// (bench/efficiency.sh measures the difference: CFSCALE_LOADGEN_SOCKETS=net).
//
// These bindings are node internals, not a documented API: they are probed once at
// load and `available` is false when anything is missing (another node major), in
// which case http-client.js uses net.Socket. CFSCALE_LOADGEN_SOCKETS=net forces net.
//
// Interface (what http-client.js needs, nothing more): new RawTcp(host, port,
// readBuf, owner) where owner has onConnect(), onData(buf, n), onClose(err|null);
// write(buf) (before the connect completes it is kept and sent on connect);
// destroy() closes without a callback.

const util = require('node:util');

let b = null;
try {
  // process.binding() of these two is allowed (not an internalBinding), and warns only
  // under --pending-deprecation (DEP0111).
  const tcp = process.binding('tcp_wrap');
  const sw = process.binding('stream_wrap');
  const uv = process.binding('uv');
  const ok = typeof tcp.TCP === 'function' && typeof tcp.TCPConnectWrap === 'function' &&
    tcp.constants && typeof tcp.constants.SOCKET === 'number' &&
    typeof sw.WriteWrap === 'function' && sw.streamBaseState instanceof Int32Array &&
    typeof sw.kReadBytesOrError === 'number' && typeof sw.kLastWriteWasAsync === 'number' &&
    typeof uv.UV_EOF === 'number' &&
    ['connect', 'connect6', 'readStart', 'writeBuffer', 'useUserBuffer', 'setNoDelay', 'close']
      .every((m) => typeof tcp.TCP.prototype[m] === 'function');
  if (ok) {
    b = {
      TCP: tcp.TCP, TCPConnectWrap: tcp.TCPConnectWrap, SOCKET: tcp.constants.SOCKET,
      WriteWrap: sw.WriteWrap, state: sw.streamBaseState,
      kReadBytesOrError: sw.kReadBytesOrError, kLastWriteWasAsync: sw.kLastWriteWasAsync,
      UV_EOF: uv.UV_EOF,
    };
  }
} catch {
  b = null;
}

const available = b !== null && process.env.CFSCALE_LOADGEN_SOCKETS !== 'net';
const kOwner = Symbol('rawTcpOwner');
const streamState = b !== null ? b.state : null;
const kReadBytesOrError = b !== null ? b.kReadBytesOrError : 0;
const kLastWriteWasAsync = b !== null ? b.kLastWriteWasAsync : 0;

/** An Error like net's: message "syscall CODE", .code, .errno, .syscall. */
function uvError(errno, syscall) {
  let code;
  try { code = util.getSystemErrorName(errno); } catch { code = `E${-errno}`; }
  const err = new Error(`${syscall} ${code}`);
  err.code = code;
  err.errno = errno;
  err.syscall = syscall;
  return err;
}

class RawTcp {
  constructor(host, port, readBuf, owner) {
    this.owner = owner;
    this.readBuf = readBuf;
    this.connected = false;
    this.closed = false;
    this.pending = null;   // a write asked for before the connect completed
    this.writeReq = null;  // a WriteWrap free for reuse (none while a write is in flight)
    const h = new b.TCP(b.SOCKET);
    // A closure per socket: a property of ours on the handle (an API object) is a slow lookup per read.
    h.onread = () => this.onRead();
    this.handle = h;
    const req = new b.TCPConnectWrap();
    req.oncomplete = afterConnect;
    req.address = host;
    req.port = port;
    req[kOwner] = this;
    // host is an IP address (resolved once per run); net.isIPv6 would compile its regex (~15 ms).
    const err = host.includes(':') ? h.connect6(req, host, port) : h.connect(req, host, port);
    if (err !== 0) process.nextTick(() => this.fail(uvError(err, 'connect')));
  }

  write(buf) {
    if (this.closed) return;
    if (!this.connected) { this.pending = buf; return; }
    let req = this.writeReq;
    if (req === null) {
      req = new b.WriteWrap();
      req.oncomplete = afterWrite;
      req.handle = this.handle;
      req[kOwner] = this;
    }
    req.buffer = buf;
    const err = this.handle.writeBuffer(req, buf);
    if (err !== 0) { this.fail(uvError(err, 'write')); return; }
    // Written at once (the usual case on keep-alive): the request object is untouched
    // by libuv and can serve the next write. Else it is in flight until afterWrite.
    this.writeReq = streamState[kLastWriteWasAsync] ? null : req;
  }

  /** A read: the bytes are in the owner's buffer from offset 0 (useUserBuffer). */
  onRead() {
    if (this.closed) return;
    const n = streamState[kReadBytesOrError];
    if (n > 0) this.owner.onData(this.readBuf, n);
    else if (n < 0) this.fail(n === b.UV_EOF ? null : uvError(n, 'read'));
  }

  /** Closes the socket; the owner hears nothing more. */
  destroy() {
    if (this.closed) return;
    this.closed = true;
    this.pending = null;
    this.handle.close();
  }

  /** Closes the socket and tells the owner why (null: the peer closed). */
  fail(err) {
    if (this.closed) return;
    this.destroy();
    this.owner.onClose(err);
  }
}

function afterConnect(status, handle, req) {
  const s = req[kOwner];
  if (s.closed) return;
  if (status < 0) { s.fail(uvError(status, 'connect')); return; }
  handle.setNoDelay(true);
  handle.useUserBuffer(s.readBuf);
  const err = handle.readStart();
  if (err !== 0) { s.fail(uvError(err, 'read')); return; }
  s.connected = true;
  s.owner.onConnect();
  if (s.pending !== null) {
    const p = s.pending;
    s.pending = null;
    s.write(p);
  }
}

function afterWrite(status) {
  const s = this[kOwner];
  this.buffer = null;
  if (s.closed) return;
  if (status < 0) { s.fail(uvError(status, 'write')); return; }
  if (s.writeReq === null) s.writeReq = this;
}

module.exports = { RawTcp, available };
