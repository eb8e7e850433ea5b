// control.js — contract cases about the control credential of the /timings endpoints: every
// way of not holding it answers 401 with the challenge, on every control endpoint, before the
// parameters are read; the right one is let through. A case's `auth` is the Authorization
// header it sends, made from the credential the app runs with (lib/runner.js prepare): a
// function of the token, or a list of such functions for several headers.
'use strict';

const { err } = require('./routing');

// A round that does not exist: the right credential gets as far as the round check (409).
const NO_SUCH_ROUND = '9223372036854775807';
const unauthorized = () => err(401, 'control credential missing or wrong', { 'WWW-Authenticate': 'Bearer' });

const ENDPOINTS = [
  { method: 'GET', path: '/timings' },
  { method: 'POST', path: '/timings/recording?enabled=off' },
  { method: 'POST', path: '/timings/clear' },
  { method: 'POST', path: `/timings/flush?round=${NO_SUCH_ROUND}` },
];

// [who, auth]: none of them holds the credential.
const STRANGERS = [
  ['no credential', undefined],
  ['Bearer wrong', () => 'Bearer wrong'],
  ['the token one character short', (t) => `Bearer ${t.slice(0, -1)}`],
  ['the token one character long', (t) => `Bearer ${t}x`],
  ['the token twice as long', (t) => `Bearer ${t}${t}`],
  ['the token in the Basic scheme', (t) => `Basic ${t}`],
  ['the token base64-encoded in the Basic scheme', (t) => `Basic ${Buffer.from(`x:${t}`).toString('base64')}`],
  ['the token without a scheme', (t) => t],
  ['the token after two spaces', (t) => `Bearer  ${t}`],
  ['Bearer and nothing else', () => 'Bearer'],
  ['the token in two Authorization headers', [(t) => `Bearer ${t}`, (t) => `Bearer ${t}`]],
];

const strangers = STRANGERS.flatMap(([who, auth]) => ENDPOINTS.map((req) => ({
  name: `${req.method} ${req.path} with ${who} → 401`, req, auth, expect: unauthorized(),
})));

const order = [
  { name: 'the credential comes before the parameters: POST /timings/flush?round=abc without it → 401', req: { method: 'POST', path: '/timings/flush?round=abc' }, expect: unauthorized() },
  { name: 'the credential comes before the parameters: POST /timings/recording?enabled=%zz without it → 401', req: { method: 'POST', path: '/timings/recording?enabled=%zz' }, expect: unauthorized() },
  { name: '405 comes before the credential: GET /timings/clear without it → 405', req: { path: '/timings/clear' }, expect: err(405, 'method not allowed', { Allow: 'POST' }) },
  { name: 'a bad X-Correlation-ID comes before the credential', cid: 'a b', req: { path: '/timings' }, expect: { ...err(400, 'invalid X-Correlation-ID'), newCid: true } },
  { name: '/health, /hello and /ads need no credential', req: { path: '/health' }, auth: () => 'Bearer wrong', expect: { status: 200, body: 'ok\n' } },
];

const STATE_RE = /^recording (on|off)\ncount \d+\ndropped \d+\ncapacity \d+\n$/;
const bearer = (t) => `Bearer ${t}`;
// appState: the body tells the app's own history (identity.js compares status and headers only).
const holders = [
  { name: 'GET /timings with the credential → 200', req: ENDPOINTS[0], auth: bearer, appState: true, expect: { status: 200, bodyMatch: STATE_RE } },
  { name: 'GET /timings with the scheme in lower case → 200', req: ENDPOINTS[0], auth: (t) => `bearer ${t}`, appState: true, expect: { status: 200, bodyMatch: STATE_RE } },
  { name: 'GET /timings with the scheme in upper case → 200', req: ENDPOINTS[0], auth: (t) => `BEARER ${t}`, appState: true, expect: { status: 200, bodyMatch: STATE_RE } },
  { name: 'POST /timings/recording?enabled=on with the credential → 200', req: { method: 'POST', path: '/timings/recording?enabled=on' }, auth: bearer, expect: { status: 200, body: 'recording on\n' } },
  { name: 'POST /timings/clear with the credential → 200', req: ENDPOINTS[2], auth: bearer, appState: true, expect: { status: 200, bodyMatch: /^cleared \d+\n$/ } },
  { name: 'POST /timings/flush for a round that does not exist, with the credential → 409', req: ENDPOINTS[3], auth: bearer, expect: err(409, 'round is not running for this app') },
];

module.exports = { cases: [...strangers, ...order, ...holders] };
