'use strict';
// Incremental HTTP/1.1 response parser for the lean client: status line, the few
// headers the load generator needs (Content-Length, Transfer-Encoding, Connection,
// X-Instance-Index, X-Vcap-Request-Id), and a body framed by Content-Length,
// chunked encoding or connection close. Bodies are counted, never kept. One parser
// per connection, reset per response; no allocation on the common path beyond the
// header block string.

const CRLFCRLF = Buffer.from('\r\n\r\n');
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

  /** Feeds bytes; returns true when the response is complete. Sets `error` on garbage. */
  execute(buf) {
    let pos = 0;
    if (this.state === S_HEAD) {
      if (this.pending !== null) {
        buf = Buffer.concat([this.pending, buf]);
        this.pending = null;
      }
      const end = buf.indexOf(CRLFCRLF);
      if (end === -1) {
        if (buf.length > MAX_HEAD_BYTES) return this.fail('response head over 64 KiB');
        this.pending = buf.length > 0 ? Buffer.from(buf) : null;
        return false;
      }
      if (!this.parseHead(buf.latin1Slice(0, end))) return false;
      pos = end + 4;
    }
    return this.parseBody(buf, pos);
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

  parseHead(head) {
    // "HTTP/1.1 200 OK"
    if (head.length < 12 || !head.startsWith('HTTP/1.')) return this.fail('bad status line');
    const status = (head.charCodeAt(9) - 48) * 100 + (head.charCodeAt(10) - 48) * 10 + (head.charCodeAt(11) - 48);
    if (!(status >= 100 && status <= 999)) return this.fail('bad status line');
    this.status = status;
    if (head.charCodeAt(7) === 48) this.keepAlive = false; // HTTP/1.0 unless it says keep-alive
    let contentLength = -1;
    let chunked = false;
    let lineStart = head.indexOf('\r\n');
    while (lineStart !== -1) {
      lineStart += 2;
      let lineEnd = head.indexOf('\r\n', lineStart);
      if (lineEnd === -1) lineEnd = head.length;
      const colon = head.indexOf(':', lineStart);
      if (colon !== -1 && colon < lineEnd) {
        const nameLen = colon - lineStart;
        if (nameLen === 14 || nameLen === 17 || nameLen === 10 || nameLen === 16) {
          const name = head.slice(lineStart, colon).toLowerCase();
          const value = head.slice(colon + 1, lineEnd).trim();
          if (name === 'content-length') contentLength = Number(value);
          else if (name === 'transfer-encoding') chunked = value.toLowerCase().endsWith('chunked');
          else if (name === 'connection') {
            const v = value.toLowerCase();
            if (v === 'close') this.keepAlive = false;
            else if (v === 'keep-alive') this.keepAlive = true;
          } else if (name === 'x-instance-index') {
            const n = Number(value);
            this.appInstance = Number.isInteger(n) && n >= 0 && n < 2147483648 ? n : -1;
          } else if (name === 'x-vcap-request-id') {
            this.vcapLen = this.vcap.latin1Write(value.slice(0, VCAP_MAX_BYTES), 0);
          }
        }
      }
      lineStart = lineEnd < head.length ? lineEnd : -1;
    }
    if (status === 204 || status === 304 || status < 200) {
      this.state = S_DONE; // no body by definition (1xx other than 101 is not expected here)
    } else if (chunked) {
      this.state = S_CHUNK_SIZE;
    } else if (contentLength >= 0) {
      if (!Number.isSafeInteger(contentLength)) return this.fail('bad Content-Length');
      this.remaining = contentLength;
      this.state = contentLength === 0 ? S_DONE : S_LENGTH;
    } else {
      this.keepAlive = false;
      this.state = S_UNTIL_CLOSE;
    }
    return true;
  }

  parseBody(buf, pos) {
    const len = buf.length;
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

function hexValue(c) {
  if (c >= 48 && c <= 57) return c - 48;
  if (c >= 97 && c <= 102) return c - 87;
  if (c >= 65 && c <= 70) return c - 55;
  return -1;
}

module.exports = { ResponseParser, VCAP_MAX_BYTES };
