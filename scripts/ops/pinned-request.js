'use strict';
// pinned-request.js — one HTTP request pinned to one app instance with X-Cf-App-Instance:
// GUID:INDEX (Gorouter; the local router honours it too, docs/cf-platform.md §5), made with
// node:http(s). Gorouter's answer for an instance it does not know yet, 400 with
// `X-Cf-Routererror: unknown_route`, is told apart: right after a scale-up a RUNNING instance
// is unknown until Diego registers its route, so that answer, and only that one, is retried a
// bounded number of times.
//
// API:
//   instanceRequest(base, host, guid, index, method, path, { insecure }) → the request: host is
//     the Host header a router reached by address needs ('' for none); insecure skips TLS
//     verification (tls.js)
//   printedRequest(req, { auth }) → the same request as a curl command line to print (--dry-run),
//     the control credential's header masked
//   pinnedRequest(req, { token, onLine, retryUnknownInstance, attempts, delayMs })
//     → Promise<{ code, status, routerError, attempts }>: token, when given, goes in an
//     Authorization header on every try; code is 0 when the answer was 2xx/3xx, else 1
//     (status 0: no answer); onLine gets the body's lines, or the reason there was no answer;
//     with retryUnknownInstance, up to `attempts` tries `delayMs` apart, then one final line
//     saying the router still does not know the instance.
const http = require('node:http');
const https = require('node:https');
const { MASKED_AUTH } = require('./control-token');

// Up to UNKNOWN_INSTANCE_ATTEMPTS tries, UNKNOWN_INSTANCE_DELAY_MS apart (~30 s in all).
const UNKNOWN_INSTANCE_ATTEMPTS = 30;
const UNKNOWN_INSTANCE_DELAY_MS = 1000;
// Longest time one pinned request may take.
const REQUEST_TIMEOUT_MS = 60000;

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

function instanceRequest(base, host, guid, index, method, urlPath, { insecure = false } = {}) {
  const headers = { 'X-Cf-App-Instance': `${guid}:${index}`, ...(host ? { Host: host } : {}) };
  return { url: `${base}${urlPath}`, method, headers, insecure };
}

function printedRequest(req, { auth = false } = {}) {
  const argv = ['curl', '-sS', '--fail-with-body', '--max-time', String(REQUEST_TIMEOUT_MS / 1000)];
  if (req.insecure) argv.push('--insecure');
  argv.push('-X', req.method);
  for (const [k, v] of Object.entries(req.headers)) argv.push('-H', `${k}: ${v}`);
  if (auth) argv.push('-H', MASKED_AUTH);
  argv.push(req.url);
  return argv;
}

const lines = (text) => text.split('\n').map((l) => l.replace(/\r$/, '')).filter((l, i, all) => l !== '' || i < all.length - 1);

/** One try: { status, routerError, body } (status 0 and the reason in body when no whole answer came). */
function once(req, token) {
  return new Promise((resolve) => {
    const noAnswer = (why) => ({ status: 0, routerError: '', body: [`${req.method} ${req.url}: ${why}`] });
    let timer = null;
    const settle = (res) => { clearTimeout(timer); resolve(res); };
    const url = new URL(req.url);
    const headers = { ...req.headers, ...(token ? { Authorization: `Bearer ${token}` } : {}) };
    const q = (url.protocol === 'https:' ? https : http).request(url, { method: req.method, headers, rejectUnauthorized: !req.insecure }, (res) => {
      let text = '';
      let ended = false;
      res.setEncoding('utf8');
      res.on('data', (d) => { text += d; });
      res.on('end', () => {
        ended = true;
        settle({ status: res.statusCode, routerError: String(res.headers['x-cf-routererror'] || ''), body: lines(text) });
      });
      // The connection gone before the body's end (or the timeout): no whole answer.
      res.on('close', () => { if (!ended) settle(noAnswer(`the answer (${res.statusCode}) broke off`)); });
    });
    timer = setTimeout(() => q.destroy(new Error(`no answer within ${REQUEST_TIMEOUT_MS / 1000} s`)), REQUEST_TIMEOUT_MS);
    q.on('error', (err) => settle(noAnswer(err.message)));
    q.end();
  });
}

const failed = (res) => res.status < 200 || res.status >= 400;
const unknownInstance = (res) => res.status === 400 && res.routerError === 'unknown_route';

async function pinnedRequest(req, {
  token = '', onLine = () => {}, retryUnknownInstance = false,
  attempts = UNKNOWN_INSTANCE_ATTEMPTS, delayMs = UNKNOWN_INSTANCE_DELAY_MS,
} = {}) {
  const tries = retryUnknownInstance ? attempts : 1;
  for (let n = 1; ; n++) {
    const res = await once(req, token);
    const result = { code: failed(res) ? 1 : 0, status: res.status, routerError: res.routerError, attempts: n };
    if (!retryUnknownInstance || !unknownInstance(res) || n >= tries) {
      for (const l of res.body) onLine(l);
      if (failed(res) && res.status !== 0 && res.body.length === 0) onLine(`answered ${res.status}`);
      if (retryUnknownInstance && unknownInstance(res)) {
        onLine(`the router still does not know this instance after ${n} attempts ${delayMs} ms apart `
          + '(400, X-Cf-Routererror: unknown_route): is it running and routable?');
      }
      return result;
    }
    await sleep(delayMs);
  }
}

module.exports = { instanceRequest, printedRequest, pinnedRequest, UNKNOWN_INSTANCE_ATTEMPTS, UNKNOWN_INSTANCE_DELAY_MS };
