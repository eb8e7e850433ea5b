'use strict';
// Incremental HTTP/1.1 response parser for the lean client: status line, the few
// headers the load generator needs (Content-Length, Transfer-Encoding, Connection,
// X-Instance-Index, X-Vcap-Request-Id), and a body framed by Content-Length,
// chunked encoding or connection close. Bodies are counted, never kept. One parser
// per connection, reset per response; no allocation on the common path beyond the
// header block string.

const CRLFCRLF = Buffer.from('\r\n\r\n');
// Header names in lower case; a name matches when its bytes, lower-cased, are equal.
const H_CONTENT_LENGTH = Buffer.from('content-length');
const H_TRANSFER_ENCODING = Buffer.from('transfer-encoding');
const H_CONNECTION = Buffer.from('connection');
const H_INSTANCE_INDEX = Buffer.from('x-instance-index');
const H_VCAP_REQUEST_ID = Buffer.from('x-vcap-request-id');
const V_CHUNKED = Buffer.from('chunked');
const V_CLOSE = Buffer.from('close');
const V_KEEP_ALIVE = Buffer.from('keep-alive');
const MAX_HEAD_BYTES = 65536;
const VCAP_MAX_BYTES = 64;

const S_HEAD = 0;
const S_LENGTH = 1;
const S_CHUNK_SIZE = 2;
const S_CHUNK_DATA = 3;
const S_CHUNK_CRLF = 4;
const S_TRAILER = 5;
const S_UNTIL_CLOSE = 6;
const S_DONE = 7;

class ResponseParser {
  constructor() {
    this.vcap = Buffer.alloc(VCAP_MAX_BYTES);
    this.reset();
  }

  reset() {
    this.state = S_HEAD;
    this.pending = null;
    this.status = 0;
    this.keepAlive = true;
    this.bodyBytes = 0;
    this.remaining = 0;
    this.chunkSizeDigits = 0;
    this.inChunkExt = false;
    this.lineLen = 0;
    this.appInstance = -1;
    this.vcapLen = 0;
    this.error = null;
  }

  get done() { return this.state === S_DONE; }
  get untilClose() { return this.state === S_UNTIL_CLOSE; }

  /**
   * Feeds bytes `buf[0..len)` (len defaults to buf.length; the buffer may be reused
   * by the caller afterwards); returns true when the response is complete. Sets
   * `error` on garbage.
   */
  execute(buf, len = buf.length) {
    let pos = 0;
    if (this.state === S_HEAD) {
      if (this.pending !== null) {
        buf = Buffer.concat([this.pending, buf.subarray(0, len)]);
        len = buf.length;
        this.pending = null;
      }
      let end = buf.indexOf(CRLFCRLF);
      if (end + 4 > len) end = -1; // a match in stale bytes past len does not count
      if (end === -1) {
        if (len > MAX_HEAD_BYTES) return this.fail('response head over 64 KiB');
        this.pending = len > 0 ? Buffer.from(buf.subarray(0, len)) : null;
        return false;
      }
      if (!this.parseHead(buf, end)) return false;
      pos = end + 4;
    }
    return this.parseBody(buf, pos, len);
  }

  /** The peer closed: a body framed by close is complete now. */
  finishOnClose() {
    if (this.state === S_UNTIL_CLOSE) this.state = S_DONE;
    return this.state === S_DONE;
  }

  fail(message) {
    this.error = message;
    this.state = S_DONE;
    return false;
  }

  /** Parses the head `b[0..end)` byte by byte: no strings on the common path. */
  parseHead(b, end) {
    // "HTTP/1.1 200 OK"
    if (end < 12 || !startsWithHttp1(b)) return this.fail('bad status line');
    const status = (b[9] - 48) * 100 + (b[10] - 48) * 10 + (b[11] - 48);
    if (!(status >= 100 && status <= 999)) return this.fail('bad status line');
    this.status = status;
    if (b[7] === 48) this.keepAlive = false; // HTTP/1.0 unless it says keep-alive
    let contentLength = -1;
    let chunked = false;
    let ls = b.indexOf(10) + 1; // first header line
    while (ls > 0 && ls < end) {
      let le = b.indexOf(10, ls);
      if (le === -1 || le > end) le = end;
      const lineEnd = b[le - 1] === 13 ? le - 1 : le;
      let colon = ls;
      while (colon < lineEnd && b[colon] !== 58) colon++;
      const nameLen = colon - ls;
      if (colon < lineEnd && (nameLen === 14 || nameLen === 17 || nameLen === 10 || nameLen === 16)) {
        let vs = colon + 1;
        while (vs < lineEnd && (b[vs] === 32 || b[vs] === 9)) vs++;
        let ve = lineEnd;
        while (ve > vs && (b[ve - 1] === 32 || b[ve - 1] === 9)) ve--;
        if (nameIs(b, ls, H_CONTENT_LENGTH)) contentLength = parseDecimal(b, vs, ve);
        else if (nameIs(b, ls, H_TRANSFER_ENCODING)) chunked = endsWithLower(b, vs, ve, V_CHUNKED);
        else if (nameIs(b, ls, H_CONNECTION)) {
          if (equalsLower(b, vs, ve, V_CLOSE)) this.keepAlive = false;
          else if (equalsLower(b, vs, ve, V_KEEP_ALIVE)) this.keepAlive = true;
        } else if (nameIs(b, ls, H_INSTANCE_INDEX)) {
          const n = parseDecimal(b, vs, ve);
          this.appInstance = n >= 0 && n < 2147483648 ? n : -1;
        } else if (nameIs(b, ls, H_VCAP_REQUEST_ID)) {
          const n = Math.min(ve - vs, VCAP_MAX_BYTES);
          b.copy(this.vcap, 0, vs, vs + n);
          this.vcapLen = n;
        }
      }
      ls = le + 1;
    }
    if (status === 204 || status === 304 || status < 200) {
      this.state = S_DONE; // no body by definition (1xx other than 101 is not expected here)
    } else if (chunked) {
      this.state = S_CHUNK_SIZE;
    } else if (contentLength >= 0) {
      this.remaining = contentLength;
      this.state = contentLength === 0 ? S_DONE : S_LENGTH;
    } else if (contentLength === -2) {
      return this.fail('bad Content-Length');
    } else {
      this.keepAlive = false;
      this.state = S_UNTIL_CLOSE;
    }
    return true;
  }

  parseBody(buf, pos, len) {
    while (pos < len) {
      switch (this.state) {
        case S_LENGTH:
        case S_CHUNK_DATA: {
          const n = Math.min(this.remaining, len - pos);
          this.bodyBytes += n;
          this.remaining -= n;
          pos += n;
          if (this.remaining === 0) {
            if (this.state === S_LENGTH) { this.state = S_DONE; return true; }
            this.state = S_CHUNK_CRLF;
            this.lineLen = 0;
          }
          break;
        }
        case S_CHUNK_SIZE: {
          const c = buf[pos++];
          if (c === 10) {
            if (this.chunkSizeDigits === 0) return this.fail('bad chunk size');
            this.chunkSizeDigits = 0;
            this.inChunkExt = false;
            if (this.remaining === 0) { this.state = S_TRAILER; this.lineLen = 0; } else this.state = S_CHUNK_DATA;
          } else if (!this.inChunkExt) {
            const d = hexValue(c);
            if (d >= 0) {
              this.remaining = this.remaining * 16 + d;
              if (++this.chunkSizeDigits > 12) return this.fail('chunk too large');
            } else if (c === 59 /* ; */ || c === 32 || c === 9) this.inChunkExt = true;
            else if (c !== 13) return this.fail('bad chunk size');
          }
          break;
        }
        case S_CHUNK_CRLF: {
          const c = buf[pos++];
          if (c === 10) { this.state = S_CHUNK_SIZE; this.remaining = 0; } else if (c !== 13) return this.fail('bad chunk end');
          break;
        }
        case S_TRAILER: {
          const c = buf[pos++];
          if (c === 10) {
            if (this.lineLen === 0) { this.state = S_DONE; return true; }
            this.lineLen = 0;
          } else if (c !== 13) this.lineLen++;
          break;
        }
        case S_UNTIL_CLOSE:
          this.bodyBytes += len - pos;
          return false;
        default:
          return this.state === S_DONE;
      }
    }
    return this.state === S_DONE;
  }
}

/** "HTTP/1." */
function startsWithHttp1(b) {
  return b[0] === 72 && b[1] === 84 && b[2] === 84 && b[3] === 80 && b[4] === 47 && b[5] === 49 && b[6] === 46;
}

/** b[at..] starts with the lower-case name `lower` followed by ':' (ASCII case-insensitive). */
function nameIs(b, at, lower) {
  if (b[at + lower.length] !== 58) return false;
  return equalsLowerAt(b, at, lower);
}

function equalsLowerAt(b, at, lower) {
  for (let i = 0; i < lower.length; i++) {
    let c = b[at + i];
    if (c >= 65 && c <= 90) c += 32;
    if (c !== lower[i]) return false;
  }
  return true;
}

function equalsLower(b, from, to, lower) {
  return to - from === lower.length && equalsLowerAt(b, from, lower);
}

function endsWithLower(b, from, to, lower) {
  return to - from >= lower.length && equalsLowerAt(b, to - lower.length, lower);
}

/** A non-negative decimal in b[from..to), -2 when it is not one. */
function parseDecimal(b, from, to) {
  if (to <= from || to - from > 15) return -2;
  let n = 0;
  for (let i = from; i < to; i++) {
    const d = b[i] - 48;
    if (d < 0 || d > 9) return -2;
    n = n * 10 + d;
  }
  return n;
}

function hexValue(c) {
  if (c >= 48 && c <= 57) return c - 48;
  if (c >= 97 && c <= 102) return c - 87;
  if (c >= 65 && c <= 70) return c - 55;
  return -1;
}

module.exports = { ResponseParser, VCAP_MAX_BYTES };
