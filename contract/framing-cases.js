// framing-cases.js — the one table of HTTP framing cases (contract README "Framing", which
// is generated from it) and what every app variant answers: raw bytes below the routes,
// where node:http and Jetty would each decide on their own. scenarios/framing.js runs it.
//
// A case: family, name, bytes (a function of the head limit, or a `slow` kind run by the
// scenario), and the answer: `status` (the body is the status's one-line reason, the
// connection is closed after it, except for a 200) and `echo` (the request's valid
// X-Correlation-ID comes back; false: its head was refused, a fresh id is sent). `slow`
// cases are answered after a setting's time: `after` names it.
'use strict';

const CID = 'framing-case';
const FORM = 'Content-Type: application/x-www-form-urlencoded\r\n';

/** A request head with the case's correlation id, then `rest` (more header lines, CRLF, body). */
function post(rest) {
  return `POST /ads HTTP/1.1\r\nHost: contract\r\nX-Correlation-ID: ${CID}\r\n${FORM}${rest}`;
}

function get(lines, version = 'HTTP/1.1') {
  return `GET /health ${version}\r\n${lines}X-Correlation-ID: ${CID}\r\n\r\n`;
}

/** A GET /health head of exactly `total` bytes (request line to the empty line). */
function headOf(total) {
  const pre = `GET /health HTTP/1.1\r\nHost: contract\r\nConnection: close\r\nX-Correlation-ID: ${CID}\r\nX-Fill: `;
  return `${pre}${'a'.repeat(total - pre.length - 4)}\r\n\r\n`;
}

const CASES = [
  // Body framing (RFC 9112 §6, §7.1): the head was fine, so its id is echoed.
  { family: 'body framing', name: 'chunk size not hex', bytes: () => post('Transfer-Encoding: chunked\r\n\r\nzz\r\ntitle=a\r\n0\r\n\r\n'), status: 400, echo: true },
  { family: 'body framing', name: 'chunk data longer than its size (no CRLF after it)', bytes: () => post('Transfer-Encoding: chunked\r\n\r\n7\r\ntitle=aXX0\r\n\r\n'), status: 400, echo: true },
  { family: 'body framing', name: 'chunk size overflowing 64 bits', bytes: () => post('Transfer-Encoding: chunked\r\n\r\nffffffffffffffffff\r\ntitle=a\r\n0\r\n\r\n'), status: 400, echo: true },
  { family: 'body framing', name: 'last chunk truncated, then silence', slow: 'stall', bytes: () => post('Transfer-Encoding: chunked\r\n\r\n7\r\ntit'), status: 408, echo: true, after: 'HTTP_IDLE_TIMEOUT_MS' },
  { family: 'body framing', name: 'body shorter than Content-Length, then silence', slow: 'stall', bytes: () => post('Content-Length: 100\r\n\r\ntitle=a'), status: 408, echo: true, after: 'HTTP_IDLE_TIMEOUT_MS' },
  // Conflicting lengths are refused with the head (RFC 9112 §6.3): no id is echoed.
  { family: 'body framing', name: 'two different Content-Length headers', bytes: () => post('Content-Length: 7\r\nContent-Length: 8\r\n\r\ntitle=ab'), status: 400, echo: false },
  { family: 'body framing', name: 'two equal Content-Length headers', bytes: () => post('Content-Length: 7\r\nContent-Length: 7\r\n\r\ntitle=a'), status: 400, echo: false },
  { family: 'body framing', name: 'Content-Length as a list', bytes: () => post('Content-Length: 7, 7\r\n\r\ntitle=a'), status: 400, echo: false },
  { family: 'body framing', name: 'Content-Length with Transfer-Encoding: chunked', bytes: () => post('Content-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n7\r\ntitle=a\r\n0\r\n\r\n'), status: 400, echo: false },
  { family: 'body framing', name: 'negative Content-Length', bytes: () => post('Content-Length: -1\r\n\r\ntitle=a'), status: 400, echo: false },
  { family: 'body framing', name: 'Content-Length beyond 64 bits', bytes: () => post('Content-Length: 99999999999999999999999\r\n\r\ntitle=a'), status: 400, echo: false },
  { family: 'body framing', name: 'Content-Length not a number', bytes: () => post('Content-Length: abc\r\n\r\ntitle=a'), status: 400, echo: false },
  { family: 'body framing', name: 'Transfer-Encoding other than chunked', bytes: () => post('Transfer-Encoding: gzip\r\n\r\ntitle=a'), status: 400, echo: false },
  { family: 'body framing', name: 'Transfer-Encoding with chunked not last', bytes: () => post('Transfer-Encoding: chunked, gzip\r\n\r\n7\r\ntitle=a\r\n0\r\n\r\n'), status: 400, echo: false },
  // Header limits: HTTP_MAX_HEADER_BYTES counts the whole head, request line to the empty line.
  { family: 'header limits', name: 'head of exactly HTTP_MAX_HEADER_BYTES', bytes: (limit) => headOf(limit), status: 200, echo: true },
  { family: 'header limits', name: 'head one byte over HTTP_MAX_HEADER_BYTES', bytes: (limit) => headOf(limit + 1), status: 431, echo: false },
  { family: 'header limits', name: 'head of 4 × HTTP_MAX_HEADER_BYTES', bytes: (limit) => headOf(limit * 4), status: 431, echo: false },
  { family: 'header limits', name: 'request target over HTTP_MAX_HEADER_BYTES', bytes: (limit) => `GET /health?${'a'.repeat(limit)} HTTP/1.1\r\nHost: contract\r\n\r\n`, status: 431, echo: false },
  // Protocol versions (RFC 9112 §2.3, §3.2).
  { family: 'protocol versions', name: 'HTTP/1.0 without Host', bytes: () => get('', 'HTTP/1.0'), status: 200, echo: true },
  { family: 'protocol versions', name: 'HTTP/1.0 with Host and Connection: keep-alive (kept open)', bytes: () => get('Host: contract\r\nConnection: keep-alive\r\n', 'HTTP/1.0'), status: 200, echo: true, keepAlive: true },
  { family: 'protocol versions', name: 'HTTP/1.1 without Host', bytes: () => get(''), status: 400, echo: false },
  { family: 'protocol versions', name: 'HTTP/1.1 with two Host headers', bytes: () => get('Host: contract\r\nHost: other\r\n'), status: 400, echo: false },
  { family: 'protocol versions', name: 'HTTP/1.2', bytes: () => get('Host: contract\r\n', 'HTTP/1.2'), status: 505, echo: false },
  { family: 'protocol versions', name: 'HTTP/2.0 request line', bytes: () => get('Host: contract\r\n', 'HTTP/2.0'), status: 505, echo: false },
  { family: 'protocol versions', name: 'HTTP/2 connection preface', bytes: () => 'PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n', status: 505, echo: false },
  { family: 'protocol versions', name: 'HTTP/3.1', bytes: () => get('Host: contract\r\n', 'HTTP/3.1'), status: 505, echo: false },
  { family: 'protocol versions', name: 'request line without a version', bytes: () => 'hello there\r\n\r\n', status: 400, echo: false },
  { family: 'protocol versions', name: 'TLS ClientHello', bytes: () => Buffer.from(`16030100a5010000a10303${'00'.repeat(40)}`, 'hex'), status: 400, echo: false },
  // Request line (RFC 9110 §9.1, RFC 9112 §2.2, §3): methods are the set node's parser knows
  // (java-app: FramingConnectionFactory.NODE_METHODS), case-sensitive; line ends are CRLF only.
  { family: 'request line', name: 'lower-case method (get)', bytes: () => `get /health HTTP/1.1\r\nHost: contract\r\nX-Correlation-ID: ${CID}\r\n\r\n`, status: 400, echo: false },
  { family: 'request line', name: 'unknown method (FOO)', bytes: () => `FOO /health HTTP/1.1\r\nHost: contract\r\nX-Correlation-ID: ${CID}\r\n\r\n`, status: 400, echo: false },
  { family: 'request line', name: 'known method, not routed (PROPFIND)', bytes: () => `PROPFIND /health HTTP/1.1\r\nHost: contract\r\nX-Correlation-ID: ${CID}\r\n\r\n`, status: 405, echo: true, keepAlive: true },
  { family: 'request line', name: 'bare LF as every line end', bytes: () => `GET /health HTTP/1.1\nHost: contract\nX-Correlation-ID: ${CID}\n\n`, status: 505, echo: false },
  { family: 'request line', name: 'bare LF ending a header line', bytes: () => get('Host: contract\n'), status: 400, echo: false },
  { family: 'request line', name: 'bare LF as the empty line', bytes: () => `GET /health HTTP/1.1\r\nHost: contract\r\nX-Correlation-ID: ${CID}\r\n\n`, status: 400, echo: false },
  // Header values (RFC 9110 §5.5, RFC 9112 §5.2).
  { family: 'header values', name: 'control character (0x01) in a value', bytes: () => get('Host: contract\r\nX-A: a\x01b\r\n'), status: 400, echo: false },
  { family: 'header values', name: 'NUL in a value', bytes: () => get('Host: contract\r\nX-A: a\x00b\r\n'), status: 400, echo: false },
  { family: 'header values', name: 'DEL in a value', bytes: () => get('Host: contract\r\nX-A: a\x7fb\r\n'), status: 400, echo: false },
  { family: 'header values', name: 'bare CR in a value', bytes: () => get('Host: contract\r\nX-A: a\rb\r\n'), status: 400, echo: false },
  { family: 'header values', name: 'bare LF in a value', bytes: () => get('Host: contract\r\nX-A: a\nb\r\n'), status: 400, echo: false },
  { family: 'header values', name: 'obs-fold (a line starting with a space)', bytes: () => get('Host: contract\r\nX-A: a\r\n b\r\n'), status: 400, echo: false },
  { family: 'header values', name: 'whitespace between name and colon', bytes: () => get('Host: contract\r\nX-A : b\r\n'), status: 400, echo: false },
  { family: 'header values', name: 'header line without a colon', bytes: () => get('Host: contract\r\nXA\r\n'), status: 400, echo: false },
  // The body is the contract's own reason here (README "Every response"), not the phrase's.
  { family: 'header values', name: 'X-Correlation-ID valid UTF-8, not ASCII', bytes: () => Buffer.concat([Buffer.from('GET /health HTTP/1.1\r\nHost: contract\r\nX-Correlation-ID: '), Buffer.from('héllo', 'utf8'), Buffer.from('\r\n\r\n')]), status: 400, echo: false, body: 'invalid X-Correlation-ID\n', keepAlive: true },
  // Slow clients: the settings' times, the same in every variant.
  { family: 'slow clients', name: 'head trickling in, a byte every 100 ms (slowloris)', slow: 'trickle', bytes: () => get('Host: contract\r\nX-Slow: ' + 'a'.repeat(200) + '\r\n'), status: 408, echo: false, after: 'HTTP_HEADER_TIMEOUT_MS' },
  { family: 'slow clients', name: 'a new connection that sends nothing', slow: 'stall', bytes: () => '', status: 408, echo: false, after: 'HTTP_HEADER_TIMEOUT_MS' },
  { family: 'slow clients', name: 'idle keep-alive connection after a response', slow: 'idle', bytes: () => get('Host: contract\r\n'), status: 0, echo: true, after: 'HTTP_IDLE_TIMEOUT_MS' },
];

/** The README's words for a case's answer. */
function answerText(c) {
  const reason = c.body ? c.body.trim() : null;
  if (c.slow === 'idle') return `200, then closed without a response after \`${c.after}\``;
  const what = `\`${c.status}\`${reason ? ` \`${reason}\`` : ''}`;
  if (c.status === 200) return c.keepAlive ? `${what}, kept open` : what;
  const closed = c.keepAlive ? ', kept open' : ', closed';
  const when = c.after ? ` after \`${c.after}\`` : '';
  return `${what}${when}${closed}; ${c.echo ? 'id echoed' : 'fresh id'}`;
}

module.exports = { CASES, CID, answerText };
