'use strict';
// form-parser.js — strict decoding of application/x-www-form-urlencoded bodies and query strings.
//
// contract/README.md "Input rules": split on `&`, then on the first `=`; `+` is a space;
// empty pairs are skipped; `%` must be followed by two hex digits; the decoded bytes must
// be UTF-8. The checks keep the contract's order: a malformed `%` anywhere wins over bad
// UTF-8 anywhere, which wins over a duplicate field.

const { HttpError } = require('./http-error');

const AMP = 0x26;
const EQ = 0x3d;
const PLUS = 0x2b;
const PERCENT = 0x25;
const SPACE = 0x20;

const AD_FIELDS = new Set(['title', 'body', 'price', 'contact']);

// fatal: invalid UTF-8 throws; ignoreBOM: a leading U+FEFF is data, not a mark to strip.
const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

function hexValue(b) {
  if (b >= 0x30 && b <= 0x39) return b - 0x30;
  if (b >= 0x41 && b <= 0x46) return b - 0x37;
  if (b >= 0x61 && b <= 0x66) return b - 0x57;
  return -1;
}

/** The percent-decoded bytes of buf[start, end), or null when a `%` is malformed. */
function percentDecode(buf, start, end) {
  const out = Buffer.allocUnsafe(end - start);
  let n = 0;
  for (let i = start; i < end; i++) {
    const b = buf[i];
    if (b === PERCENT) {
      if (i + 2 >= end) return null;
      const hi = hexValue(buf[i + 1]);
      const lo = hexValue(buf[i + 2]);
      if (hi < 0 || lo < 0) return null;
      out[n++] = hi * 16 + lo;
      i += 2;
    } else {
      out[n++] = b === PLUS ? SPACE : b;
    }
  }
  return out.subarray(0, n);
}

/** [name, value, name, value, ...] decoded strings of a urlencoded Buffer; throws HttpError 400. */
function decodePairs(buf) {
  const decoded = [];
  let start = 0;
  while (start < buf.length) {
    let end = buf.indexOf(AMP, start);
    if (end === -1) end = buf.length;
    if (end > start) {
      let eq = start;
      while (eq < end && buf[eq] !== EQ) eq++;
      const name = percentDecode(buf, start, eq);
      const value = percentDecode(buf, Math.min(eq + 1, end), end);
      if (name === null || value === null) throw new HttpError(400, 'malformed percent-encoding');
      decoded.push(name, value);
    }
    start = end + 1;
  }
  const strings = new Array(decoded.length);
  try {
    for (let i = 0; i < decoded.length; i++) strings[i] = utf8.decode(decoded[i]);
  } catch {
    throw new HttpError(400, 'invalid UTF-8');
  }
  return strings;
}

/** The fields of a POST /ads form: { title, body, price, contact } (absent ones undefined). */
function parseAdForm(buf) {
  const pairs = decodePairs(buf);
  const fields = { title: undefined, body: undefined, price: undefined, contact: undefined };
  for (let i = 0; i < pairs.length; i += 2) {
    const name = pairs[i];
    if (!AD_FIELDS.has(name)) continue;
    if (fields[name] !== undefined) throw new HttpError(400, `duplicate field: ${name}`);
    fields[name] = pairs[i + 1];
  }
  return fields;
}

/** Query parameters as a Map (the first occurrence of a name wins). */
function parseQuery(query) {
  const params = new Map();
  if (query === '') return params;
  // Node hands URL bytes over as latin1 (one char per byte); non-ASCII it already rejects.
  const pairs = decodePairs(Buffer.from(query, 'latin1'));
  for (let i = 0; i < pairs.length; i += 2) {
    if (!params.has(pairs[i])) params.set(pairs[i], pairs[i + 1]);
  }
  return params;
}

/** Content-Type is application/x-www-form-urlencoded (case-insensitive, parameters allowed). */
function isFormContentType(value) {
  if (value === undefined) return false;
  const semi = value.indexOf(';');
  const type = (semi === -1 ? value : value.slice(0, semi)).trim().toLowerCase();
  return type === 'application/x-www-form-urlencoded';
}

module.exports = { decodePairs, parseAdForm, parseQuery, isFormContentType };
