'use strict';
// pinned-request.test.js — the pinned /timings/clear right after a scale-up: Gorouter
// answers 400 with X-Cf-Routererror: unknown_route for an instance it does not know yet
// (docs/cf-platform.md §5); that answer, and only that one, is retried, a bounded number
// of times. A real HTTP server answers as Gorouter does.
const test = require('node:test');
const assert = require('node:assert/strict');
const http = require('node:http');

const { pinnedRequest, instanceRequest, printedRequest } = require('./pinned-request');
const { newControlToken } = require('./control-token');

const GUID = '6e6f6465-1111-4222-8333-444455556666';

/** A router stand-in: answers[n] for the n-th request (the last one from then on); keeps each request's Authorization. */
async function router(answers) {
  let n = 0;
  const auths = [];
  const pins = [];
  const server = http.createServer((req, res) => {
    auths.push(req.headers.authorization);
    pins.push([req.method, req.url, req.headers.host, req.headers['x-cf-app-instance']]);
    const a = answers[Math.min(n++, answers.length - 1)];
    res.writeHead(a.status, { 'Content-Type': 'text/plain; charset=utf-8', ...(a.headers || {}) });
    res.end(a.body);
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { base: `http://127.0.0.1:${server.address().port}`, requests: () => n, auths: () => auths, pins: () => pins, close: () => server.close() };
}

// Gorouter's answers (gorouter handlers/lookup.go, errorwriter plaintext).
const UNKNOWN = {
  status: 400, headers: { 'X-Cf-Routererror': 'unknown_route' },
  body: `400 Bad Request: Requested instance ('1') with guid ('${GUID}') does not exist for route ('node-app.apps.example.com')\n`,
};
const MALFORMED = {
  status: 400, headers: { 'X-Cf-Routererror': 'invalid_cf_app_instance_header' },
  body: '400 Bad Request: Invalid X-CF-App-Instance Header\n',
};
const CLEARED = { status: 200, body: 'cleared 12\n' };

async function clear(answers, opts) {
  const r = await router(answers);
  const lines = [];
  try {
    const req = instanceRequest(r.base, '', GUID, 1, 'POST', '/timings/clear');
    const res = await pinnedRequest(req, { retryUnknownInstance: true, delayMs: 10, onLine: (l) => lines.push(l), ...opts });
    return { ...res, lines, requests: r.requests() };
  } finally {
    r.close();
  }
}

test('clear after a scale-up retries Gorouter\'s 400 unknown_route until the instance answers', async () => {
  const res = await clear([UNKNOWN, UNKNOWN, CLEARED]);
  assert.equal(res.code, 0);
  assert.equal(res.status, 200);
  assert.equal(res.attempts, 3);
  assert.equal(res.requests, 3);
  assert.deepEqual(res.lines, ['cleared 12'], 'the body only, not the headers');
});

test('an instance the router never learns: bounded, then one clear final line', async () => {
  const res = await clear([UNKNOWN], { attempts: 4 });
  assert.notEqual(res.code, 0);
  assert.equal(res.requests, 4);
  assert.equal(res.lines.at(-1), 'the router still does not know this instance after 4 attempts 10 ms apart '
    + '(400, X-Cf-Routererror: unknown_route): is it running and routable?');
  assert.ok(res.lines.some((l) => l.startsWith("400 Bad Request: Requested instance ('1')")), res.lines.join('\n'));
});

test('other failures are not retried', async (t) => {
  const cases = [
    ['a malformed X-Cf-App-Instance (400 invalid_cf_app_instance_header)', [MALFORMED, CLEARED], {}],
    ['a 400 without the router error', [{ status: 400, body: 'bad\n' }, CLEARED], {}],
    ['a 503 from the app', [{ status: 503, body: 'busy\n' }, CLEARED], {}],
    ['unknown_route when retrying was not asked for (the flush)', [UNKNOWN, CLEARED], { retryUnknownInstance: false }],
  ];
  for (const [name, answers, opts] of cases) {
    await t.test(name, async () => {
      const res = await clear(answers, opts);
      assert.notEqual(res.code, 0);
      assert.equal(res.requests, 1);
      assert.equal(res.attempts, 1);
    });
  }
});

test('the control credential reaches the app on every try, in a header; masked when printed', async () => {
  const r = await router([UNKNOWN, UNKNOWN, CLEARED]);
  const token = newControlToken();
  try {
    const req = instanceRequest(r.base, 'node-app.localhost', GUID, 1, 'POST', '/timings/clear');
    const res = await pinnedRequest(req, { token, retryUnknownInstance: true, delayMs: 10 });
    assert.equal(res.status, 200);
    assert.deepEqual(r.auths(), Array(3).fill(`Bearer ${token}`));
    assert.deepEqual(r.pins()[0], ['POST', '/timings/clear', 'node-app.localhost', `${GUID}:1`]);
    const printed = printedRequest(req, { auth: true });
    assert.ok(!printed.some((a) => a.includes(token)), printed.join(' '));
    assert.deepEqual(printed.slice(-7), ['-H', `X-Cf-App-Instance: ${GUID}:1`, '-H', 'Host: node-app.localhost',
      '-H', 'Authorization: Bearer ***', `${r.base}/timings/clear`]);
  } finally {
    r.close();
  }
});

test('no answer: status 0, code 1, one line naming the cause', async () => {
  const r = await router([CLEARED]);
  const { base } = r;
  r.close();
  const lines = [];
  const res = await pinnedRequest(instanceRequest(base, '', GUID, 0, 'POST', '/timings/flush'), { onLine: (l) => lines.push(l) });
  assert.deepEqual({ code: res.code, status: res.status, attempts: res.attempts }, { code: 1, status: 0, attempts: 1 });
  assert.equal(lines.length, 1);
  assert.match(lines[0], new RegExp(`^POST ${base}/timings/flush: .*ECONNREFUSED`));
});

test('an answer that breaks off before its end: status 0, code 1, one line saying so', async () => {
  const server = http.createServer((req, res) => {
    res.writeHead(200, { 'Content-Length': '100' });
    res.write('cleared');
    setTimeout(() => res.socket.destroy(), 50);
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${server.address().port}`;
  const lines = [];
  try {
    const res = await pinnedRequest(instanceRequest(base, '', GUID, 0, 'POST', '/timings/clear'), { onLine: (l) => lines.push(l) });
    assert.deepEqual({ code: res.code, status: res.status }, { code: 1, status: 0 });
    assert.deepEqual(lines, [`POST ${base}/timings/clear: the answer (200) broke off`]);
  } finally {
    server.close();
  }
});
