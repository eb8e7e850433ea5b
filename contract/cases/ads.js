// ads.js — contract cases for POST /ads (body limits, content type, form decoding, field
// rules in their order), GET /ads/{id} ids and GET /ads paging parameters.
// `expect.created` = a 201 whose Location and body name the same new id; `expect.stored`
// = what GET /ads/{id} must then show for title/body/price/contact (read back by the runner).
// These cases add ads but never depend on which ads exist (ids are looked up, not assumed).
'use strict';

const { FORM, MAX_ID, err } = require('./routing');

const LIMIT_MSG = 'limit must be an integer from 1 to 100';
const OFFSET_MSG = 'offset must be an integer from 0 to 1000000';
const ID_MSG = 'id must be an integer from 1 to 9223372036854775807';
const PRICE_MSG = 'price must be a non-negative decimal with at most 2 decimals';
const BODY_LIMIT = 65536;
const EMOJI = '\u{1F600}'; // one code point, 4 UTF-8 bytes, 2 UTF-16 units
const PAGE_RE = /^([1-9][0-9]*\t(0|[1-9][0-9]*)\.[0-9]{2}\t[^\t\n]*\n)*$/;

const pct = (s) => encodeURIComponent(s);
const post = (body, contentType = FORM) => ({
  method: 'POST', path: '/ads', headers: contentType === null ? {} : { 'Content-Type': contentType }, body,
});
const created = (stored) => ({ status: 201, created: true, stored });
const stored = (fields) => ({ body: '', price: '0.00', contact: '', ...fields });
const bad = (message) => err(400, message);

const ok = (name, body, fields) => ({ name, req: post(body), expect: created(stored(fields)) });
const fails = (name, body, message) => ({ name, req: post(body), expect: bad(message) });

const bodyLimit = [
  { name: 'Content-Length 1e9 (no body sent) → 413', req: { method: 'POST', path: '/ads', headers: { 'Content-Type': FORM, 'Content-Length': '1000000000' } }, expect: err(413, 'request body over 65536 bytes') },
  { name: 'Content-Length 65537 with the bytes → 413', req: post(`title=${'a'.repeat(BODY_LIMIT + 1 - 6)}`), expect: err(413, 'request body over 65536 bytes') },
  { name: 'exactly 65536 bytes is read (then the title is too long)', req: post(`title=${'a'.repeat(BODY_LIMIT - 6)}`), expect: bad('title over 200 characters') },
  { name: 'chunked body of 65537 bytes → 413', req: { method: 'POST', path: '/ads', headers: { 'Content-Type': FORM }, chunks: chunked(`title=${'a'.repeat(BODY_LIMIT + 1 - 6)}`) }, expect: err(413, 'request body over 65536 bytes') },
  { name: 'chunked body of exactly 65536 bytes is read', req: { method: 'POST', path: '/ads', headers: { 'Content-Type': FORM }, chunks: chunked(`title=${'a'.repeat(BODY_LIMIT - 6)}`) }, expect: bad('title over 200 characters') },
  { name: 'a small chunked body is accepted', req: { method: 'POST', path: '/ads', headers: { 'Content-Type': FORM }, chunks: ['title=chun', 'ked&price=1', '.5'] }, expect: created(stored({ title: 'chunked', price: '1.50' })) },
  { name: '413 comes before 415', req: { method: 'POST', path: '/ads', headers: { 'Content-Type': 'text/plain', 'Content-Length': '1000000000' } }, expect: err(413, 'request body over 65536 bytes') },
];

function chunked(text, size = 8192) {
  const out = [];
  for (let i = 0; i < text.length; i += size) out.push(text.slice(i, i + size));
  return out;
}

const UNSUPPORTED = 'content type must be application/x-www-form-urlencoded';
const contentType = [
  ...[null, 'text/plain', 'application/json', 'multipart/form-data; boundary=x', 'application/x-www-form-urlencodedx', 'application/x-www-form', '']
    .map((ct) => ({ name: `Content-Type ${JSON.stringify(ct)} → 415`, req: post('title=x', ct), expect: err(415, UNSUPPORTED) })),
  ...['application/x-www-form-urlencoded; charset=utf-8', 'APPLICATION/X-WWW-FORM-URLENCODED', 'Application/x-www-form-urlencoded;charset=UTF-8']
    .map((ct) => ({ name: `Content-Type ${JSON.stringify(ct)} is accepted`, req: post('title=ct', ct), expect: created(stored({ title: 'ct' })) })),
];

const MALFORMED = 'malformed percent-encoding';
const INVALID_UTF8 = 'invalid UTF-8';
const decoding = [
  ...['title=%zz', 'title=abc%', 'title=abc%4', 'title=%4g', 'title=ok&x=%zz', 'title=%FF&body=%zz', 'title=x&title=%zz', '%zz=1&title=x']
    .map((b) => fails(`${b} → malformed percent-encoding`, b, MALFORMED)),
  ...['title=%FF', 'title=%C0%AF', 'title=%ED%A0%80', 'title=%F4%90%80%80', 'title=%E2%82', 'title=ok&body=%E2%82%ACx%80', 'title=x&title=%FF']
    .map((b) => fails(`${b} → invalid UTF-8`, b, INVALID_UTF8)),
  fails('raw byte 0xFF in the form → invalid UTF-8', Buffer.concat([Buffer.from('title=a'), Buffer.from([0xff])]), INVALID_UTF8),
  ok('raw UTF-8 bytes in the form are accepted', Buffer.from('title=caf\u00e9', 'utf8'), { title: 'caf\u00e9' }),
  ok('title=%C3%A9 decodes to é', 'title=%C3%A9', { title: '\u00e9' }),
  ok('+ is a space', 'title=a+b&body=c+d', { title: 'a b', body: 'c d' }),
  ok('%2B is a plus', 'title=a%2Bb', { title: 'a+b' }),
  ok('%26 and %3D are data', 'title=a%26b%3Dc', { title: 'a&b=c' }),
  ok('lower-case hex digits', 'title=%c3%a9', { title: '\u00e9' }),
  fails('a pair without = is a name with an empty value (title)', 'title', 'title is required'),
  fails('a pair without = is a name with an empty value (price)', 'title=x&price', PRICE_MSG),
  ok('names are percent-decoded', '%74itle=x', { title: 'x' }),
  ok('an empty name is just another unknown field', '=x&title=y', { title: 'y' }),
  { name: 'POST /ads ignores its query string', req: { ...post('title=from+form'), path: '/ads?title=from+query&x=%zz' }, expect: created(stored({ title: 'from form' })) },
  { name: '415 comes before form decoding', req: post('title=%zz', 'text/plain'), expect: err(415, UNSUPPORTED) },
  ok('split on the first =', 'title=a=b', { title: 'a=b' }),
  ok('empty pairs are skipped', '&&title=x&&body=y&', { title: 'x', body: 'y' }),
  ok('unknown fields are ignored, even twice', 'title=x&foo=1&foo=2', { title: 'x' }),
  fails('title twice → duplicate field: title', 'title=a&title=b', 'duplicate field: title'),
  ...['body', 'price', 'contact']
    .map((f) => fails(`${f} twice → duplicate field: ${f}`, `title=t&${f}=1&${f}=1`, `duplicate field: ${f}`)),
  fails('duplicate field comes before title is required', 'title=&title=', 'duplicate field: title'),
];

const title = [
  fails('empty form → title is required', '', 'title is required'),
  fails('title missing → title is required', 'body=x&price=1', 'title is required'),
  fails('title empty → title is required', 'title=', 'title is required'),
  ok('title of 200 characters', `title=${'a'.repeat(200)}`, { title: 'a'.repeat(200) }),
  fails('title of 201 characters', `title=${'a'.repeat(201)}`, 'title over 200 characters'),
  ok('title of 200 emoji (code points, not bytes or UTF-16 units)', `title=${pct(EMOJI.repeat(200))}`, { title: EMOJI.repeat(200) }),
  fails('title of 201 emoji', `title=${pct(EMOJI.repeat(201))}`, 'title over 200 characters'),
  ...['%0A', '%0D', '%09', '%00', '%1F', '%7F'].map((c) => fails(`title with ${c} → one line`, `title=a${c}b`, 'title must be one line of text')),
  ok('title with U+0085 (not a control character here)', 'title=a%C2%85b', { title: 'a\u0085b' }),
  fails('title over 200 comes before control characters', `title=${'a'.repeat(201)}%0A`, 'title over 200 characters'),
  fails('title comes before body', 'title=&body=%00', 'title is required'),
];

const body = [
  ok('body of 4000 characters', `title=b&body=${'b'.repeat(4000)}`, { title: 'b', body: 'b'.repeat(4000) }),
  fails('body of 4001 characters', `title=b&body=${'b'.repeat(4001)}`, 'body over 4000 characters'),
  ok('body of 4000 emoji', `title=b&body=${pct(EMOJI.repeat(4000))}`, { title: 'b', body: EMOJI.repeat(4000) }),
  fails('body of 4001 emoji', `title=b&body=${pct(EMOJI.repeat(4001))}`, 'body over 4000 characters'),
  ok('body keeps tab, LF and CRLF as given', 'title=b&body=a%09b%0Ac%0D%0Ad%0D', { title: 'b', body: 'a\tb\nc\r\nd\r' }),
  ...['%00', '%1B', '%7F', '%0B', '%0C'].map((c) => fails(`body with ${c}`, `title=b&body=a${c}`, 'body contains a control character')),
  fails('body over 4000 comes before control characters', `title=b&body=${'b'.repeat(4001)}%00`, 'body over 4000 characters'),
  fails('body comes before price', 'title=b&body=%00&price=x', 'body contains a control character'),
];

const price = [
  ...[['0', '0.00'], ['0.5', '0.50'], ['0.05', '0.05'], ['12', '12.00'], ['12.3', '12.30'], ['999999.99', '999999.99'],
    ['1000000', '1000000.00'], ['1000000.00', '1000000.00'], ['1000000.0', '1000000.00']]
    .map(([p, shown]) => ok(`price ${p} is shown as ${shown}`, `title=p&price=${p}`, { title: 'p', price: shown })),
  ok('missing price stores 0', 'title=p', { title: 'p', price: '0.00' }),
  ...['', '01', '00', '1.', '.5', '-1', '1.234', '1000000.001', '0.000', '1e3', '+1', '%201', '1%20', '1,5', 'abc', '0x10', '1.2.3', '%D9%A1', 'NaN', 'Infinity']
    .map((p) => fails(`price ${JSON.stringify(p)} → format`, `title=p&price=${p}`, PRICE_MSG)),
  ...['1000000.01', '1000001', '99999999999999999999999999', '99999999999999999999999999.99']
    .map((p) => fails(`price ${p} → over 1000000`, `title=p&price=${p}`, 'price over 1000000')),
  fails('price comes before contact', 'title=p&price=x&contact=%00', PRICE_MSG),
];

const contact = [
  ok('contact of 200 characters', `title=c&contact=${'c'.repeat(200)}`, { title: 'c', contact: 'c'.repeat(200) }),
  ok('contact of 200 emoji', `title=c&contact=${pct(EMOJI.repeat(200))}`, { title: 'c', contact: EMOJI.repeat(200) }),
  fails('contact of 201 characters', `title=c&contact=${'c'.repeat(201)}`, 'contact over 200 characters'),
  ...['%0A', '%09', '%00', '%7F'].map((c) => fails(`contact with ${c}`, `title=c&contact=a${c}`, 'contact must be one line of text')),
  fails('contact over 200 comes before control characters', `title=c&contact=${'c'.repeat(201)}%0A`, 'contact over 200 characters'),
  ok('all four fields', 'title=Bike+for+sale&body=Almost+new.%0ACollect+in+person.&price=120&contact=anna%40example.com',
    { title: 'Bike for sale', body: 'Almost new.\nCollect in person.', price: '120.00', contact: 'anna@example.com' }),
];

const ids = [
  ...['0', '00', '01', '-1', '1.5', 'abc', '1a', '%31', '+1', '1e3', '%201', '9223372036854775808',
    '18446744073709551616', '99999999999999999999999999']
    .map((id) => ({ name: `GET /ads/${id} → 400`, req: { path: `/ads/${id}` }, expect: bad(ID_MSG) })),
  { name: `GET /ads/${MAX_ID} (absent) → 404`, req: { path: `/ads/${MAX_ID}` }, expect: err(404, 'ad not found') },
];

const page = (q) => ({ path: `/ads${q}` });
const pageOk = { status: 200, bodyMatch: PAGE_RE, headers: { 'X-Total-Count': /^(0|[1-9][0-9]*)$/ } };
const paging = [
  ...['', '?limit=1', '?limit=100', '?limit=001', '?offset=0', '?offset=000', '?limit=5&offset=1', '?limit=%31', '?limit=5&foo=bar']
    .map((q) => ({ name: `GET /ads${q}`, req: page(q), expect: pageOk })),
  { name: 'GET /ads?limit=5&limit=0: the first value counts', req: page('?limit=5&limit=0'), expect: pageOk },
  { name: 'GET /ads?limit=0&limit=5: the first value counts', req: page('?limit=0&limit=5'), expect: bad(LIMIT_MSG) },
  { name: 'GET /ads?limit (no =) is an empty limit', req: page('?limit'), expect: bad(LIMIT_MSG) },
  { name: 'GET /ads?offset=1000000 is an empty page', req: page('?offset=1000000'), expect: { ...pageOk, body: '' } },
  ...['?limit=0', '?limit=101', '?limit=', '?limit=-1', '?limit=abc', '?limit=1.5', '?limit=+1', '?limit=99999999999999999999',
    '?limit=0&offset=-1', '?offset=-1&limit=0', '?offset=x&limit=101']
    .map((q) => ({ name: `GET /ads${q} → limit`, req: page(q), expect: bad(LIMIT_MSG) })),
  ...['?offset=-1', '?offset=1000001', '?offset=', '?offset=abc', '?offset=99999999999999999999', '?limit=5&offset=1.0']
    .map((q) => ({ name: `GET /ads${q} → offset`, req: page(q), expect: bad(OFFSET_MSG) })),
  ...['?limit=%zz', '?foo=%zz', '?limit=5&x=%4', '?limit=%FF&x=%zz']
    .map((q) => ({ name: `GET /ads${q} → malformed percent-encoding`, req: page(q), expect: bad(MALFORMED) })),
  ...['?limit=%FF', '?limit=5&x=%E2%82', '?offset=%C0%AF&limit=0']
    .map((q) => ({ name: `GET /ads${q} → invalid UTF-8`, req: page(q), expect: bad(INVALID_UTF8) })),
];

module.exports = {
  PAGE_RE,
  EMOJI,
  cases: [...bodyLimit, ...contentType, ...decoding, ...title, ...body, ...price, ...contact, ...ids, ...paging],
};
