'use strict';
// rtr-parser.js — one line of `cf logs APP` output → one `router_timings` row (pure).
//
// Router lines look like (docs/cf-platform.md §5):
//   <ts> [RTR/<router index>] OUT <access line>
//   access line: host - [TIME] "METHOD URI PROTO" status bytes_received bytes_sent
//     "referer" "user-agent" "remote_addr" "backend_addr" key:"value" key:value …
// TIME is `2006-01-02T15:04:05.000000000Z` (current Gorouter) or the older
// `14/06/2016:17:51:32.459 +0000`. `response_time` and `gorouter_time` are seconds with
// 6 decimals → microseconds here. `vcap_request_id` has no x_ prefix. The RTR/N number is
// the router's index, not the app's: the app instance is `app_index`. Extra headers such
// as the local platform's `x_correlation_id:"…"` come at the end. Quoted values may hold
// escaped quotes (\"). `-` means "no value". The local platform (`cf logs` from its log-cache) writes
// the same layout, so this parser serves both platforms.
// Anything else (app output, cf's headers, garbage) yields null.

const PREFIX_RE = /^\s*(\S+)\s+\[RTR\/[0-9]+\]\s+(?:OUT|ERR)\s+(.*)$/;
const MONTHS = { jan: 1, feb: 2, mar: 3, apr: 4, may: 5, jun: 6, jul: 7, aug: 8, sep: 9, oct: 10, nov: 11, dec: 12 };

/** Splits the access line into tokens: bare words, "quoted strings", [bracketed], key:"v". */
function tokenize(s) {
  const tokens = [];
  let i = 0;
  while (i < s.length) {
    while (s[i] === ' ') i++;
    if (i >= s.length) break;
    let key = null;
    const keyMatch = /^([a-z0-9_]+):(?=["\S])/i.exec(s.slice(i, i + 80));
    if (keyMatch && s[i] !== '"' && s[i] !== '[') {
      key = keyMatch[1];
      i += keyMatch[0].length;
    }
    let value;
    if (s[i] === '"') {
      let out = '';
      i++;
      for (; i < s.length && s[i] !== '"'; i++) {
        if (s[i] === '\\' && i + 1 < s.length) i++;
        out += s[i];
      }
      if (i >= s.length) return null; // unterminated quote
      i++;
      value = { text: out, quoted: true };
    } else if (s[i] === '[' && key === null) {
      const close = s.indexOf(']', i);
      if (close < 0) return null;
      value = { text: s.slice(i + 1, close), bracketed: true };
      i = close + 1;
    } else {
      const start = i;
      while (i < s.length && s[i] !== ' ') i++;
      value = { text: s.slice(start, i) };
      if (value.text.includes('"')) return null; // a stray quote: the line is mangled
    }
    tokens.push({ key, ...value });
  }
  return tokens;
}

function pad(n, width = 2) {
  return String(n).padStart(width, '0');
}

/**
 * The access-log time as an ISO string PostgreSQL reads exactly (microseconds kept).
 * @returns {string|null}
 */
function parseAccessTime(text) {
  let m = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(?:\.(\d+))?(Z|[+-]\d{2}:?\d{2})$/.exec(text);
  if (m) {
    const frac = (m[7] || '').slice(0, 6);
    const iso = `${m[1]}-${m[2]}-${m[3]}T${m[4]}:${m[5]}:${m[6]}${frac ? '.' + frac : ''}${m[8]}`;
    return Number.isNaN(Date.parse(iso.replace(/(\.\d{3})\d+/, '$1'))) ? null : iso;
  }
  m = /^(\d{2})\/([A-Za-z]{3}|\d{2})\/(\d{4}):(\d{2}):(\d{2}):(\d{2})(?:\.(\d+))? ([+-])(\d{2}):?(\d{2})$/.exec(text);
  if (m) {
    const month = /^\d+$/.test(m[2]) ? Number(m[2]) : MONTHS[m[2].toLowerCase()];
    if (!month || month > 12) return null;
    const frac = (m[7] || '').slice(0, 6);
    const iso = `${m[3]}-${pad(month)}-${m[1]}T${m[4]}:${m[5]}:${m[6]}${frac ? '.' + frac : ''}${m[8]}${m[9]}:${m[10]}`;
    return Number.isNaN(Date.parse(iso.replace(/(\.\d{3})\d+/, '$1'))) ? null : iso;
  }
  return null;
}

/** Seconds (decimal text) → integer microseconds, or null. */
function secondsToUs(text) {
  if (text === undefined || !/^[0-9]+(\.[0-9]+)?$/.test(text)) return null;
  const [whole, frac = ''] = text.split('.');
  return Number(whole) * 1e6 + Number((frac + '000000').slice(0, 6));
}

function intOrNull(text, max = 2147483647) {
  if (text === undefined || !/^[0-9]{1,18}$/.test(text)) return null;
  const n = Number(text);
  return n <= max ? n : null;
}

function valueOrNull(text) {
  return text === undefined || text === '' || text === '-' ? null : text;
}

/**
 * @param {string} line one line of `cf logs` output
 * @returns {object|null} a router_timings row (without round/platform/app), or null
 */
function parseRtrLine(line) {
  const prefix = PREFIX_RE.exec(line);
  if (!prefix) return null;
  const tokens = tokenize(prefix[2]);
  // host, "-", [time], "request", status, bytes_received, bytes_sent at the least
  if (!tokens || tokens.length < 7) return null;
  const [, , time, request, status, , bytesSent] = tokens;
  if (!time.bracketed || !request.quoted) return null;
  const at = parseAccessTime(time.text);
  if (at === null) return null;
  const req = /^(\S+) (\S+)(?: \S+)?$/.exec(request.text);
  const fields = {};
  for (const t of tokens.slice(7)) if (t.key) fields[t.key] = t.text;
  return {
    at,
    method: req ? req[1] : null,
    path: req ? req[2] : null,
    status: intOrNull(status.text, 32767),
    bytes_sent: intOrNull(bytesSent.text, Number.MAX_SAFE_INTEGER),
    response_time_us: secondsToUs(fields.response_time),
    gorouter_time_us: secondsToUs(fields.gorouter_time),
    app_index: intOrNull(fields.app_index),
    instance_id: valueOrNull(fields.instance_id),
    vcap_request_id: valueOrNull(fields.vcap_request_id),
    correlation_id: valueOrNull(fields.x_correlation_id),
  };
}

module.exports = { parseRtrLine, parseAccessTime, secondsToUs, tokenize };
