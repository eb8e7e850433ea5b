'use strict';
// The engine against real servers on free ports: fast, slow, failing,
// connection-closing, non-2xx and chunked. Bounds on rates are loose on purpose.
const test = require('node:test');
const assert = require('node:assert');
const { performance } = require('node:perf_hooks');
const { Run, resolveTarget } = require('../lib/run');
const { Scenario } = require('../lib/scenario');
const { Engine } = require('../lib/engine');
const { startServer, closedPort, sleep } = require('./helpers');

function plan(url, extra) {
  return { url, model: 'closed', parallel: 4, timeoutMs: 2000, keepalive: true, scenario: 'get', ...extra };
}

function addsUp(s) {
  assert.strictEqual(s.requests.total, s.requests.ok + s.requests.errors, 'sent = ok + errors');
  const byKind = Object.values(s.errors_by_kind).reduce((a, b) => a + b, 0);
  assert.strictEqual(byKind, s.requests.errors, 'errors = sum of kinds');
}

test('engine: closed model, fixed count, every answer recorded with its instance', async (t) => {
  const srv = await startServer((req, res) => {
    res.setHeader('X-Instance-Index', '5');
    res.end('ok\n');
  });
  t.after(srv.close);
  const s = await new Run(plan(srv.url, { requests: 500 })).start();
  addsUp(s);
  assert.strictEqual(s.requests.total, 500);
  assert.strictEqual(s.requests.ok, 500);
  assert.strictEqual(srv.server.connections, 4, 'keep-alive: one connection per slot');
});

test('engine: non-2xx, resets, closing and chunked answers are samples with a kind', async (t) => {
  let n = 0;
  const srv = await startServer((req, res) => {
    const i = n++ % 5;
    if (i === 0) { res.statusCode = 503; res.end('busy\n'); }
    else if (i === 1) req.socket.destroy();
    else if (i === 2) { res.setHeader('Connection', 'close'); res.end('bye\n'); }
    else if (i === 3) { res.write('chunk one '); setImmediate(() => res.end('chunk two\n')); }
    else res.end('fine\n');
  });
  t.after(srv.close);
  const s = await new Run(plan(srv.url, { requests: 1000 })).start();
  addsUp(s);
  assert.strictEqual(s.requests.total, 1000);
  assert.strictEqual(s.errors_by_kind.status, 200);
  assert.strictEqual(s.errors_by_kind.reset, 200);
  assert.strictEqual(s.requests.ok, 600);
  assert.ok(s.bytes >= 200 * (10 + 10), 'chunked bodies counted');
});

test('engine: timeouts fire and the slot goes on', async (t) => {
  let n = 0;
  const srv = await startServer((req, res) => {
    if (n++ % 2 === 0) return; // never answers
    res.end('ok\n');
  });
  t.after(srv.close);
  const started = Date.now();
  const s = await new Run(plan(srv.url, { parallel: 2, requests: 10, timeoutMs: 150 })).start();
  addsUp(s);
  assert.strictEqual(s.requests.total, 10);
  assert.ok(s.errors_by_kind.timeout >= 4, JSON.stringify(s.errors_by_kind));
  assert.ok(Date.now() - started < 3000, 'timeouts did not wait for the server');
  assert.ok(s.latency_us.max >= 150000 && s.latency_us.max < 1000000, `max ${s.latency_us.max}`);
});

test('engine: every request carries its own correlation id, whose millisecond is its send', async (t) => {
  const seen = [];
  const srv = await startServer((req, res) => { seen.push(req.headers['x-correlation-id']); res.end('ok\n'); });
  t.after(srv.close);
  const target = await resolveTarget(srv.url);
  const scenario = new Scenario({ basePath: target.basePath, path: target.path, hostHeader: target.hostHeader, keepalive: true, scenario: 'get' });
  const sent = [];
  const e = new Engine({ target, scenario, model: 'closed', parallel: 4, requests: 400, timeoutMs: 2000, keepalive: true,
    onSample: (conn) => sent.push({ id: conn.uuid.toString('hex'), ms: Math.floor(performance.timeOrigin + conn.startedMs) }) });
  await e.run();
  assert.strictEqual(sent.length, 400);
  assert.strictEqual(new Set(seen).size, 400, 'one id per request');
  assert.deepStrictEqual(seen.map((id) => id.replace(/-/g, '')).sort(), sent.map((x) => x.id).sort(), 'the ids sent are the ids recorded');
  // A millisecond's counter may run over into the next one (uuidv7.js): never earlier, at most a little later.
  for (const { id, ms } of sent) {
    const idMs = parseInt(id.slice(0, 12), 16);
    assert.ok(idMs >= ms && idMs <= ms + 1, `id ${id}: ${idMs} ms, sent at ${ms}`);
  }
});

test('engine: connection refused counts as connect errors', async () => {
  const port = await closedPort();
  const s = await new Run(plan(`http://127.0.0.1:${port}/`, { requests: 20 })).start();
  addsUp(s);
  assert.strictEqual(s.errors_by_kind.connect, 20);
});

test('engine: --no-keepalive opens one connection per request', async (t) => {
  const srv = await startServer((req, res) => res.end('ok\n'));
  t.after(srv.close);
  const s = await new Run(plan(srv.url, { requests: 50, keepalive: false })).start();
  addsUp(s);
  assert.strictEqual(s.requests.ok, 50);
  assert.strictEqual(srv.server.connections, 50);
});

test('engine: closed model rate follows parallel / latency', async (t) => {
  const srv = await startServer((req, res) => setTimeout(() => res.end('ok\n'), 20));
  t.after(srv.close);
  const s = await new Run(plan(srv.url, { parallel: 4, durationMs: 1000 })).start();
  addsUp(s);
  // ideal: 4 / 20 ms = 200/s; loose bounds, timers are coarse on a shared machine
  assert.ok(s.requests.total >= 80 && s.requests.total <= 210, `total ${s.requests.total}`);
});

test('engine: open model holds its rate and measures from the intended time', async (t) => {
  const srv = await startServer((req, res) => res.end('ok\n'));
  t.after(srv.close);
  const s = await new Run(plan(srv.url, { model: 'open', rate: 200, parallel: 8, durationMs: 1000 })).start();
  addsUp(s);
  assert.ok(s.requests.total >= 190 && s.requests.total <= 200, `total ${s.requests.total}`);
  assert.ok(s.late <= 20, `late ${s.late}`);
});

test('engine: open model counts late requests when connections run out', async (t) => {
  // Every answer comes after the round's end: the 2 connections carry exactly one request
  // each, whatever the machine's speed, and the other 48 of the 50 due are never sent.
  const srv = await startServer((req, res) => setTimeout(() => res.end('ok\n'), 1500));
  t.after(srv.close);
  const s = await new Run(plan(srv.url, { model: 'open', rate: 50, parallel: 2, durationMs: 1000, timeoutMs: 5000 })).start();
  addsUp(s);
  assert.strictEqual(s.requests.total, 2);
  assert.strictEqual(s.unsent, 48);
  assert.ok(s.late >= 48, `late ${s.late}`);
  // coordinated omission: a request waiting for a connection is latency too
  assert.ok(s.latency_us.max >= 1400e3, `max ${s.latency_us.max}`);
});

// Coordinated omission: the open model measures from the intended send, so a server's stall
// is in the latencies of every request due during it, also of those that waited for one of
// the connections it held. A server that stalls 500 ms every 2 s: about a quarter of the
// requests are due in a stall, their latencies spread over 0-500 ms, so p90 is near 300 ms
// and p99 near 480 ms. Measured from the actual send, only the few sent on a free connection
// would carry it (8 per stall here), and p90 would be the server's usual answer time.
test('engine: open model, a server that stalls 500 ms every 2 s shows its stall in p90 and p99', async (t) => {
  const STALL_MS = 500;
  const PERIOD_MS = 2000;
  const t0 = performance.now();
  const srv = await startServer((req, res) => {
    const inPeriod = (performance.now() - t0) % PERIOD_MS;
    if (inPeriod < STALL_MS) setTimeout(() => res.end('ok\n'), STALL_MS - inPeriod);
    else res.end('ok\n');
  });
  t.after(srv.close);
  const s = await new Run(plan(srv.url, { model: 'open', rate: 200, parallel: 8, durationMs: 4000, timeoutMs: 5000 })).start();
  addsUp(s);
  assert.strictEqual(s.requests.errors, 0);
  assert.ok(s.latency_us.p90 >= 200e3, `p90 ${s.latency_us.p90} µs: the stall is missing`);
  assert.ok(s.latency_us.p99 >= 400e3, `p99 ${s.latency_us.p99} µs: the stall is missing`);
  // The requests that waited for a connection were sent late: the generator did not offer the rate.
  assert.ok(s.late > 0 && s.lateness_us.p99 >= 100e3, `late ${s.late}, lateness ${JSON.stringify(s.lateness_us)}`);
});

test('engine: open-model samples carry their send lateness apart from their latency; closed ones none', async (t) => {
  const srv = await startServer((req, res) => setTimeout(() => res.end('ok\n'), 5));
  t.after(srv.close);
  const open = await new Run(plan(srv.url, { model: 'open', rate: 100, parallel: 4, durationMs: 500 })).start();
  const g = open.lateness_us;
  assert.ok(g && g.p50 <= g.p90 && g.p90 <= g.p99 && g.max > 0, JSON.stringify(g));
  // latency = lateness + the server's time (5 ms here): the one is part of the other
  assert.ok(g.p50 < open.latency_us.p50, `lateness p50 ${g.p50}, latency p50 ${open.latency_us.p50}`);
  const closed = await new Run(plan(srv.url, { requests: 20 })).start();
  assert.strictEqual(closed.lateness_us, null);
});

// 51 scheduled where 50 were due: the end of the schedule came from float sums and a timer.
test('engine: open model schedules exactly rate x duration, every one sent or unsent', async (t) => {
  const srv = await startServer((req, res) => setTimeout(() => res.end('ok\n'), 30));
  t.after(srv.close);
  // rates whose interval is no exact binary fraction (1000/30, 1000/70), and 50/s
  for (const [rate, durationMs] of [[50, 1000], [30, 1000], [70, 500]]) {
    for (const parallel of [1, 16]) {
      const s = await new Run(plan(srv.url, { model: 'open', rate, parallel, durationMs })).start();
      addsUp(s);
      assert.strictEqual(s.requests.total + s.unsent, (rate * durationMs) / 1000, `rate ${rate} parallel ${parallel}`);
    }
  }
});

// The same count whatever the clock read at the start: float sums of start + duration made
// 51 of 50 due for about 1 start time in 130.
test('engine: open model counts the requests due exactly, whatever the start time', (t) => {
  const [rate, durationMs] = [50, 1000];
  let clock = 0;
  t.mock.method(performance, 'now', () => clock);
  for (let startMs = 1000.0001; startMs < 200000; startMs += 13.37177) {
    const e = new Engine({ model: 'open', rate, parallel: 0, durationMs, timeoutMs: 1000 });
    Object.assign(e, { startMs, endMs: startMs + durationMs, intervalMs: 1000 / rate, maxRequests: Infinity, issued: 7, resolve: () => {} });
    clock = startMs + durationMs + 5;
    e.endIssuing();
    assert.strictEqual(e.issued + e.unsent, 50, `start ${startMs}`);
  }
});

test('engine: stop() aborts what is in flight after the grace period', async (t) => {
  const srv = await startServer(() => {}); // never answers
  t.after(srv.close);
  const run = new Run(plan(srv.url, { parallel: 3, durationMs: 10000, timeoutMs: 10000 }));
  const done = run.start();
  await sleep(200);
  run.stop(100);
  const s = await done;
  addsUp(s);
  assert.strictEqual(s.errors_by_kind.aborted, 3);
});

test('engine: endAt moves the end of a duration run (the steady-state gate\'s stop_at); open model: exactly rate x new duration', async (t) => {
  const srv = await startServer((req, res) => setTimeout(() => res.end('ok\n'), 5));
  t.after(srv.close);
  // Planned for 60 s (the maximum warm-up + duration); the gate ends it at 600 ms.
  const open = new Run(plan(srv.url, { model: 'open', rate: 50, parallel: 4, durationMs: 60000 }));
  const openDone = open.start();
  open.endAtWallMs(Date.now() + 600);
  const s = await openDone;
  addsUp(s);
  // The new duration is 600 ms less the time to the engine's start (give or take the 1 ms
  // of Date.now()'s resolution); due at i x 20 ms below it.
  const d = open.engine.opts.durationMs;
  assert.ok(d > 0 && d < 601, `new duration ${d} ms`);
  assert.strictEqual(s.requests.total + s.unsent, Math.ceil((50 * d) / 1000), `rate 50/s x ${d} ms`);
  // Closed model; the end asked for before the engine exists is kept for when it starts.
  const closed = new Run(plan(srv.url, { parallel: 2, durationMs: 60000 }));
  closed.endAtWallMs(Date.now() + 300);
  const c = await closed.start();
  addsUp(c);
  assert.ok(c.requests.total > 0);
});
