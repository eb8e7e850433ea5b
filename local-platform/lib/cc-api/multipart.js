// multipart.js — the parts of a multipart/form-data body (the CLI's bits upload:
// `resources` JSON and the `bits` zip, cli api/cloudcontroller/ccv3/package.go).
'use strict';

// {name: Buffer} of BODY under the boundary of content-type TYPE.
function parseMultipart(type, body) {
  const m = /boundary=(?:"([^"]+)"|([^;]+))/i.exec(String(type || ''));
  if (!m) return {};
  const delim = Buffer.from(`--${m[1] || m[2]}`);
  const parts = {};
  let pos = body.indexOf(delim);
  while (pos >= 0) {
    const start = pos + delim.length;
    if (body.slice(start, start + 2).toString() === '--') break;
    const next = body.indexOf(delim, start);
    if (next < 0) break;
    const part = body.slice(start + 2, next - 2); // CRLF after the delimiter, CRLF before the next
    const headEnd = part.indexOf('\r\n\r\n');
    if (headEnd >= 0) {
      const head = part.slice(0, headEnd).toString('utf8');
      const name = /name="([^"]*)"/i.exec(head);
      if (name) parts[name[1]] = part.slice(headEnd + 4);
    }
    pos = next;
  }
  return parts;
}

module.exports = { parseMultipart };
