'use strict';
// pinned-request.js — one curl request pinned to one app instance (X-Cf-App-Instance), run
// with its response headers on stdout (`-D -`, apps.instanceRequestArgs) so that Gorouter's
// answer for an instance it does not know yet can be told apart: 400 with
// `X-Cf-Routererror: unknown_route` (docs/cf-platform.md §5). Right after a scale-up a
// RUNNING instance is unknown until Diego registers its route, so that answer, and only
// that one, is retried a bounded number of times.
//
// API:
//   pinnedRequest(argv, { input, onLine, retryUnknownInstance, attempts, delayMs })
//     → Promise<{ code, status, routerError, attempts }>: input is curl's stdin (the header
//     lines of `-H @-`, every try); code is curl's exit code (0 ok);
//     onLine gets the body and curl's own messages, not the header lines; with
//     retryUnknownInstance, up to `attempts` tries `delayMs` apart, then one final line
//     saying the router still does not know the instance.
//   responseOf(lines) → { status, routerError, body }: the last response of `curl -D -` output
const { runAsync } = require('./exec');

// Up to UNKNOWN_INSTANCE_ATTEMPTS tries, UNKNOWN_INSTANCE_DELAY_MS apart (~30 s in all).
const UNKNOWN_INSTANCE_ATTEMPTS = 30;
const UNKNOWN_INSTANCE_DELAY_MS = 1000;
const STATUS_LINE = /^HTTP\/[\d.]+ (\d{3})/;
const ROUTER_ERROR = /^x-cf-routererror:\s*(\S+)/i;

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** Split `curl -D -` output (stdout and stderr lines) into the last response's status, router error and the rest. */
function responseOf(lines) {
  let status = 0;
  let routerError = '';
  let inHeaders = false;
  const body = [];
  for (const raw of lines) {
    const line = raw.replace(/\r$/, '');
    const m = STATUS_LINE.exec(line);
    if (m) {
      status = Number(m[1]);
      routerError = '';
      inHeaders = true;
    } else if (inHeaders && line === '') {
      inHeaders = false;
    } else if (inHeaders) {
      const e = ROUTER_ERROR.exec(line);
      if (e) routerError = e[1];
    } else {
      body.push(line);
    }
  }
  return { status, routerError, body };
}

const unknownInstance = (res) => res.code !== 0 && res.status === 400 && res.routerError === 'unknown_route';

async function pinnedRequest(argv, {
  input, onLine = () => {}, retryUnknownInstance = false,
  attempts = UNKNOWN_INSTANCE_ATTEMPTS, delayMs = UNKNOWN_INSTANCE_DELAY_MS,
} = {}) {
  const tries = retryUnknownInstance ? attempts : 1;
  for (let n = 1; ; n++) {
    const lines = [];
    const { code } = await runAsync(argv, { input, onLine: (l) => lines.push(l) }).done;
    const res = { code, ...responseOf(lines), attempts: n };
    if (!retryUnknownInstance || !unknownInstance(res)) {
      for (const l of res.body) onLine(l);
      return { code, status: res.status, routerError: res.routerError, attempts: n };
    }
    if (n >= tries) {
      for (const l of res.body) onLine(l);
      onLine(`the router still does not know this instance after ${n} attempts ${delayMs} ms apart `
        + '(400, X-Cf-Routererror: unknown_route): is it running and routable?');
      return { code, status: res.status, routerError: res.routerError, attempts: n };
    }
    await sleep(delayMs);
  }
}

module.exports = { pinnedRequest, responseOf, UNKNOWN_INSTANCE_ATTEMPTS, UNKNOWN_INSTANCE_DELAY_MS };
