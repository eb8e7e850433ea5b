'use strict';
// Incremental HTTP/1.1 response parser for the lean client: status line, the few
// headers the load generator needs (Content-Length, Transfer-Encoding, Connection,
// X-Instance-Index, X-Vcap-Request-Id), and a body framed by Content-Length,
// chunked encoding or connection close. Bodies are counted, never kept. One parser
// per connection, reset per response; no allocation on the common path beyond the
// header block string.

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
      pos = this.parseHead(buf, len);
      if (pos === 0) {
        if (len > MAX_HEAD_BYTES) return this.fail('response head over 64 KiB');
        this.pending = len > 0 ? Buffer.from(buf.subarray(0, len)) : null;
        return false;
      }
      if (pos < 0) return false;
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

  /**
   * Parses the head in b[0..len) once it is all there: returns where the body starts, 0 while
   * it is incomplete (nothing taken from it), -1 on garbage. The head ends at the first
   * CR LF CR LF. One pass over its lines, each line's end found by indexOf(10): a fast call
   * (memchr), where a Buffer's indexOf of a sequence is a slow call into C++. Only the
   * headers it needs are looked at, by their first letter; no strings.
   */
  parseHead(b, len) {
    let keepAlive = b[7] !== 48; // HTTP/1.0 unless it says keep-alive
    let contentLength = -1;
    let chunked = false;
    let appInstance = -1;
    let vcapAt = 0;
    let vcapLen = 0;
    let ls = 0; // the status line's start: it is checked once the head is complete
    let le = b.indexOf(10, 1);
    let end;
    for (;;) {
      if (le === -1 || le + 2 >= len) return 0; // a line end past len is in stale bytes
      const last = b[le + 1] === 13 && b[le + 2] === 10 && b[le - 1] === 13;
      if (ls > 0) {
        const e = last ? le - 1 : le;
        const lineEnd = b[e - 1] === 13 ? e - 1 : e;
        const c = b[ls] | 0x20;
        let name = null;
        if (c === 99) name = nameIs(b, ls, H_CONTENT_LENGTH) ? H_CONTENT_LENGTH : nameIs(b, ls, H_CONNECTION) ? H_CONNECTION : null;
        else if (c === 116) name = nameIs(b, ls, H_TRANSFER_ENCODING) ? H_TRANSFER_ENCODING : null;
        else if (c === 120) name = nameIs(b, ls, H_INSTANCE_INDEX) ? H_INSTANCE_INDEX : nameIs(b, ls, H_VCAP_REQUEST_ID) ? H_VCAP_REQUEST_ID : null;
        if (name !== null && ls + name.length < lineEnd) {
          let vs = ls + name.length + 1;
          while (vs < lineEnd && (b[vs] === 32 || b[vs] === 9)) vs++;
          let ve = lineEnd;
          while (ve > vs && (b[ve - 1] === 32 || b[ve - 1] === 9)) ve--;
          if (name === H_CONTENT_LENGTH) contentLength = parseDecimal(b, vs, ve);
          else if (name === H_TRANSFER_ENCODING) chunked = endsWithLower(b, vs, ve, V_CHUNKED);
          else if (name === H_CONNECTION) {
            if (equalsLower(b, vs, ve, V_CLOSE)) keepAlive = false;
            else if (equalsLower(b, vs, ve, V_KEEP_ALIVE)) keepAlive = true;
          } else if (name === H_INSTANCE_INDEX) {
            const n = parseDecimal(b, vs, ve);
            appInstance = n >= 0 && n < 2147483648 ? n : -1;
          } else {
            vcapAt = vs;
            vcapLen = Math.min(ve - vs, VCAP_MAX_BYTES);
          }
        }
      }
      if (last) { end = le - 1; break; }
      ls = le + 1;
      le = b.indexOf(10, ls);
    }
    // "HTTP/1.1 200 OK"
    if (end < 12 || !startsWithHttp1(b)) return this.failHead('bad status line');
    const status = (b[9] - 48) * 100 + (b[10] - 48) * 10 + (b[11] - 48);
    if (!(status >= 100 && status <= 999)) return this.failHead('bad status line');
    this.status = status;
    this.keepAlive = keepAlive;
    this.appInstance = appInstance;
    if (vcapLen > 0) b.copy(this.vcap, 0, vcapAt, vcapAt + vcapLen);
    this.vcapLen = vcapLen;
    if (status === 204 || status === 304 || status < 200) {
      this.state = S_DONE; // no body by definition (1xx other than 101 is not expected here)
    } else if (chunked) {
      this.state = S_CHUNK_SIZE;
    } else if (contentLength >= 0) {
      this.remaining = contentLength;
      this.state = contentLength === 0 ? S_DONE : S_LENGTH;
    } else if (contentLength === -2) {
      return this.failHead('bad Content-Length');
    } else {
      this.keepAlive = false;
      this.state = S_UNTIL_CLOSE;
    }
    return end + 4;
  }

  failHead(message) {
    this.fail(message);
    return -1;
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
