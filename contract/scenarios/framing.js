// framing.js — the HTTP framing cases (../framing-cases.js) as raw bytes on a socket: the
// status and plain-text body of the contract, the connection closed after an error, the
// request's id echoed only when its head was accepted, never a 5xx, never a hang; the slow
// clients answered after the settings' times; the app healthy afterwards. The limits come from run.sh, which starts the apps with them:
//   CONTRACT_MAX_HEADER_BYTES, CONTRACT_HEADER_TIMEOUT_MS, CONTRACT_IDLE_TIMEOUT_MS
// (without the two times the slow cases are skipped: the defaults are 10 s and 95 s).
'use strict';

const net = require('node:net');
const { test } = require('node:test');
const { CASES, CID } = require('../framing-cases');
const { parseResponse, send } = require('../lib/raw-http');
const { checkResponse, show } = require('../lib/check');
const { report } = require('../lib/runner');
const SPEC = require('../settings.json');

const DEFAULT_MAX_HEADER_BYTES = SPEC.settings.find((s) => s.name === 'HTTP_MAX_HEADER_BYTES').default;
const ANSWER_WAIT_MS = 5000;
const CLOSE_WAIT_MS = 1000;
const TRICKLE_EVERY_MS = 100;
// A slow client is answered after the setting's time, not before it, and within 1 s of it.
const EARLY_SLACK_MS = 50;
const LATE_SLACK_MS = 1000;
const STATUS_PHRASE_BODY = (status) => `${require('node:http').STATUS_CODES[status].toLowerCase()}\n`;

/** A client socket that records what arrives and when the server closes. */
function open(baseUrl) {
  const u = new URL(baseUrl);
  const s = net.connect({ host: u.hostname, port: Number(u.port) });
  const conn = { socket: s, buf: Buffer.alloc(0), closedAt: 0, lastDataAt: 0, waiters: [] };
  const wake = () => { for (const w of conn.waiters.splice(0)) w(); };
  s.on('data', (d) => { conn.buf = Buffer.concat([conn.buf, d]); conn.lastDataAt = Date.now(); wake(); });
  s.on('close', () => { conn.closedAt = Date.now(); wake(); });
  s.on('error', () => {});
  conn.connected = new Promise((resolve) => s.once('connect', resolve));
  conn.until = async (done, ms) => {
    const deadline = Date.now() + ms;
    while (!done() && Date.now() < deadline) {
      await new Promise((resolve) => { const t = setTimeout(resolve, deadline - Date.now()); conn.waiters.push(() => { clearTimeout(t); resolve(); }); });
    }
    return done();
  };
  return conn;
}

/** One response from conn (or { error }), and the bytes after it. */
async function readResponse(conn, ms) {
  let parsed = null;
  await conn.until(() => (parsed = parseResponse(conn.buf, { ended: conn.closedAt !== 0 })) !== null || conn.closedAt !== 0, ms);
  if (!parsed) return { error: conn.closedAt ? `closed without a response (received ${show(conn.buf)})` : `no response within ${ms} ms` };
  conn.buf = conn.buf.subarray(parsed.used);
  return parsed.response;
}

function expectOf(c) {
  return { status: c.status, body: c.body ?? STATUS_PHRASE_BODY(c.status) };
}

/** Problems of an answer: status, body, contract headers, id, and closed (or kept open). */
async function checkAnswer(c, conn, res, cfg) {
  const problems = checkResponse(res, expectOf(c), { instanceIndex: cfg.instanceIndex, cid: CID, wantEcho: c.echo });
  if (res.error) return problems;
  if (res.status >= 500 && c.status < 500) problems.push(`a 5xx for a client's mistake: ${res.status}`);
  if (c.status !== 200 && !c.keepAlive) {
    // Closed, as HTTP requires; `Connection: close` is not checked: Jetty leaves it out when
    // the request line itself was refused.
    if (!(await conn.until(() => conn.closedAt !== 0, CLOSE_WAIT_MS))) problems.push(`connection still open ${CLOSE_WAIT_MS} ms after the answer`);
  }
  if (c.keepAlive) {
    conn.socket.write(`GET /health HTTP/1.1\r\nHost: contract\r\nConnection: close\r\n\r\n`);
    const next = await readResponse(conn, ANSWER_WAIT_MS);
    if (next.error || next.status !== 200) problems.push(`kept open: a next request on it, want 200, got ${next.error || next.status}`);
  }
  return problems;
}

async function runFast(c, cfg) {
  const conn = open(cfg.baseUrl);
  try {
    await conn.connected;
    conn.socket.write(Buffer.from(c.bytes(cfg.maxHeaderBytes), 'latin1'));
    const res = await readResponse(conn, ANSWER_WAIT_MS);
    return await checkAnswer(c, conn, res, cfg);
  } finally {
    conn.socket.destroy();
  }
}

/** A slow case: the answer (or the close) comes after its setting's time and within 1 s of it. */
async function runSlow(c, cfg) {
  const afterMs = c.after === 'HTTP_HEADER_TIMEOUT_MS' ? cfg.headerTimeoutMs : cfg.idleTimeoutMs;
  const conn = open(cfg.baseUrl);
  const problems = [];
  let trickle = null;
  try {
    await conn.connected;
    const bytes = Buffer.from(c.bytes(cfg.maxHeaderBytes), 'latin1');
    let from = Date.now();
    if (c.slow === 'trickle') {
      let i = 0;
      trickle = setInterval(() => { if (i < bytes.length && !conn.closedAt) conn.socket.write(bytes.subarray(i, ++i)); }, TRICKLE_EVERY_MS);
    } else {
      conn.socket.write(bytes);
    }
    if (c.slow === 'idle') {
      const first = await readResponse(conn, ANSWER_WAIT_MS);
      if (first.error || first.status !== 200) return [`the request before the idle time: want 200, got ${first.error || first.status}`];
      from = Date.now();
      if (!(await conn.until(() => conn.closedAt !== 0, afterMs + LATE_SLACK_MS + ANSWER_WAIT_MS))) return [`idle connection still open ${afterMs + LATE_SLACK_MS + ANSWER_WAIT_MS} ms after the response`];
      if (conn.buf.length) problems.push(`bytes before the close: ${show(conn.buf)}`);
    } else {
      const res = await readResponse(conn, afterMs + LATE_SLACK_MS + ANSWER_WAIT_MS);
      problems.push(...(await checkAnswer(c, conn, res, cfg)));
    }
    const at = (c.slow === 'idle' ? conn.closedAt : conn.lastDataAt) - from;
    if (at < afterMs - EARLY_SLACK_MS || at > afterMs + LATE_SLACK_MS) problems.push(`answered after ${at} ms (want ${c.after} ${afterMs} ms, at most ${LATE_SLACK_MS} ms later)`);
    return problems;
  } finally {
    clearInterval(trickle);
    conn.socket.destroy();
  }
}

module.exports = function framing(cfg, env = process.env) {
  const fcfg = {
    ...cfg,
    maxHeaderBytes: Number(env.CONTRACT_MAX_HEADER_BYTES || DEFAULT_MAX_HEADER_BYTES),
    headerTimeoutMs: Number(env.CONTRACT_HEADER_TIMEOUT_MS || 0),
    idleTimeoutMs: Number(env.CONTRACT_IDLE_TIMEOUT_MS || 0),
  };
  for (const c of CASES.filter((x) => !x.slow)) {
    test(`framing: ${c.family}: ${c.name}`, async () => report(await runFast(c, fcfg)));
  }
  const slow = CASES.filter((x) => x.slow);
  const skip = fcfg.headerTimeoutMs && fcfg.idleTimeoutMs ? false : 'needs CONTRACT_HEADER_TIMEOUT_MS and CONTRACT_IDLE_TIMEOUT_MS';
  test(`framing: slow clients and stalled bodies, all at once (${slow.length} cases)`, { skip }, async () => {
    const results = await Promise.all(slow.map((c) => runSlow(c, fcfg).then((ps) => ps.map((p) => `${c.name}: ${p}`))));
    report(results.flat());
  });
  test('framing: the app is healthy after all of it', async () => {
    const res = await send(fcfg.baseUrl, { path: '/health', headers: { 'X-Correlation-ID': 'framing-after' } });
    report(checkResponse(res, { status: 200, body: 'ok\n' }, { instanceIndex: fcfg.instanceIndex, cid: 'framing-after', wantEcho: true }));
  });
};
