// timings.js — the timing endpoints as a whole: recording on/off, clear, flush (rows in
// server_timings with the right columns, CONTRACT_RESULTS_DB_URL), the bounded buffer
// (runs when GET /timings reports a small capacity: start the app with TIMINGS_CAPACITY
// of a few dozen; in a Node cluster capacity is the total over the workers), and the rounds a
// flush files its rows under (running or just finished for this app; any other: 409).
'use strict';

const { describe, test } = require('node:test');
const { send } = require('../lib/raw-http');
const { checkResponse, show } = require('../lib/check');
const { report } = require('../lib/runner');
const { withClient } = require('../lib/app-db');
const { controlHeaders, isControlPath, insertRound } = require('../lib/control');

const FORM = 'application/x-www-form-urlencoded';
const STATE_RE = /^recording (on|off)\ncount (\d+)\ndropped (\d+)\ncapacity (\d+)\n$/;
const SMALL_CAPACITY = 2000;
const CLOCK_SLACK_MS = 5000;

/** The app's timing endpoints as the tests call them: each call's problems go to the caller's list. */
function timingsClient(cfg) {
  const ctx = { instanceIndex: cfg.instanceIndex };
  const unique = `${process.pid}-${Date.now()}`;
  let seq = 0;

  async function call(problems, req, want) {
    seq += 1;
    const cid = req.cid ?? `contract-timings-${unique}-${seq}`;
    const auth = isControlPath(req.path) ? controlHeaders(cfg.controlToken) : {};
    const res = await send(cfg.baseUrl, { ...req, headers: { ...(req.headers || {}), ...auth, 'X-Correlation-ID': cid } });
    const found = checkResponse(res, want, { ...ctx, cid, wantEcho: true });
    problems.push(...found.map((p) => `${req.method || 'GET'} ${req.path}: ${p}`));
    return res;
  }

  /** GET /timings parsed into { recording, count, dropped, capacity }. */
  async function state(problems) {
    const res = await call(problems, { path: '/timings' }, { status: 200, bodyMatch: STATE_RE });
    const m = STATE_RE.exec(res.body?.toString() ?? '');
    return m ? { recording: m[1], count: Number(m[2]), dropped: Number(m[3]), capacity: Number(m[4]) } : {};
  }

  const post = (path) => ({ method: 'POST', path });
  const health = (problems, n) => Promise.all(Array.from({ length: n }, () => call(problems, { path: '/health' }, { status: 200, body: 'ok\n' })));
  const clear = (problems) => call(problems, post('/timings/clear'), { status: 200, bodyMatch: /^cleared \d+\n$/ });

  return { unique, call, state, post, health, clear };
}

async function flushWritesColumns(cfg, tc) {
  const { unique, call, state, post, clear } = tc;
  const problems = [];
  const round = await insertRound(cfg.resultsDbUrl, cfg.appName);
  await clear(problems);
  const t0 = Date.now();
  const p = `flush-${unique}`;
  const posted = await call(problems, { method: 'POST', path: '/ads', cid: `${p}-post`, headers: { 'Content-Type': FORM }, body: 'title=timed' }, { status: 201 });
  const id = posted.body?.toString().trim();
  const wanted = [
    [`${p}-post`, 'POST /ads', 201],
    [`${p}-health`, 'GET /health', 200, { path: '/health' }],
    [`${p}-hello`, 'GET /hello', 200, { path: '/hello' }],
    [`${p}-ad`, 'GET /ads/{id}', 200, { path: `/ads/${id}` }],
    [`${p}-badid`, 'GET /ads/{id}', 400, { path: '/ads/abc' }],
    [`${p}-page`, 'GET /ads', 200, { path: '/ads?limit=1' }],
    [`${p}-404`, '-', 404, { path: '/nope' }],
    [`${p}-405`, '-', 405, { method: 'DELETE', path: '/ads' }],
  ];
  for (const [cid, , status, req] of wanted.slice(1)) await call(problems, { ...req, cid }, { status });
  // A generated correlation id is the one recorded (the join key with the loadgen's rows).
  const anonymous = await send(cfg.baseUrl, { path: '/health' });
  wanted.push([anonymous.headers?.get('x-correlation-id')?.[0] ?? '(none)', 'GET /health', 200]);
  await call(problems, post(`/timings/flush?round=${round}`), { status: 200, body: `flushed ${wanted.length}\n` });
  const s = await state(problems);
  if (s.count !== 0 || s.dropped !== 0) problems.push(`after flush: want count 0 dropped 0, got ${JSON.stringify(s)}`);
  const rows = await withClient(cfg.resultsDbUrl, (c) => c.query(
    `SELECT round_id::text, app, instance_index, correlation_id, route, status, started_at,
            handler_us, pool_wait_us, db_us FROM server_timings WHERE round_id = $1`, [round])).then((r) => r.rows);
  if (rows.length !== wanted.length) problems.push(`server_timings rows of round ${round}: want ${wanted.length}, got ${rows.length}`);
  for (const [cid, route, status] of wanted) {
    const r = rows.find((x) => x.correlation_id === cid);
    if (!r) { problems.push(`no server_timings row for ${cid}`); continue; }
    const bad = [];
    if (r.route !== route) bad.push(`route ${show(r.route)} (want ${show(route)})`);
    if (r.status !== status) bad.push(`status ${r.status} (want ${status})`);
    if (cfg.appName ? r.app !== cfg.appName : !r.app) bad.push(`app ${show(r.app)} (want ${show(cfg.appName ?? 'non-empty')})`);
    if (cfg.instanceIndex !== undefined && r.instance_index !== Number(cfg.instanceIndex)) bad.push(`instance_index ${r.instance_index}`);
    const at = new Date(r.started_at).getTime();
    if (at < t0 - CLOCK_SLACK_MS || at > Date.now() + CLOCK_SLACK_MS) bad.push(`started_at ${r.started_at.toISOString()} outside the test`);
    const [h, w, d] = [r.handler_us, r.pool_wait_us, r.db_us].map(Number);
    if (!(h > 0) || !(w >= 0) || !(d >= 0) || w + d > h) bad.push(`handler_us ${h} pool_wait_us ${w} db_us ${d} (want handler > 0, pool_wait + db <= handler)`);
    if (route === 'GET /health' && (w !== 0 || d !== 0)) bad.push(`GET /health touched the database: pool_wait_us ${w} db_us ${d}`);
    if (status === 200 && route.startsWith('GET /ads') && !(d > 0)) bad.push(`db_us ${d} for a database read`);
    if (bad.length) problems.push(`row ${cid}: ${bad.join(', ')}`);
  }
  report(problems);
}

async function flushUnderRounds(cfg, tc) {
  const { unique, call, state, post, clear } = tc;
  const problems = [];
  const rounds = [
    ['just finished', cfg.appName, { status: 'done', finishedSecAgo: 60 }, true],
    ['finished 11 minutes ago', cfg.appName, { status: 'done', finishedSecAgo: 660 }, false],
    ['cancelled an hour ago', cfg.appName, { status: 'cancelled', finishedSecAgo: 3600 }, false],
    ['pending, its control process gone', cfg.appName, { heartbeatSecAgo: 300 }, false],
    ["another app's running round", `${cfg.appName}-other`, {}, false],
  ];
  for (const [name, app, opts, takes] of rounds) {
    await clear(problems);
    const cid = `flush-round-${unique}-${name.replace(/\W+/g, '-')}`;
    await call(problems, { path: '/health', cid }, { status: 200 });
    const round = await insertRound(cfg.resultsDbUrl, app, opts);
    const want = takes ? { status: 200, body: 'flushed 1\n' } : { status: 409, body: 'round is not running for this app\n' };
    await call(problems, post(`/timings/flush?round=${round}`), want);
    const s = await state(problems);
    if (s.count !== (takes ? 0 : 1)) problems.push(`${name}: the buffer holds ${s.count} after the flush (want ${takes ? 0 : 1})`);
    const rows = await withClient(cfg.resultsDbUrl, (c) => c.query('SELECT round_id::text FROM server_timings WHERE correlation_id = $1', [cid])).then((r) => r.rows);
    if (rows.length !== (takes ? 1 : 0)) problems.push(`${name}: ${rows.length} rows for ${cid} (want ${takes ? 1 : 0})`);
  }
  report(problems);
}

async function bufferBounded(tc, t) {
  const { call, state, post, health, clear } = tc;
  const problems = [];
  const { capacity } = await state(problems);
  if (!(capacity <= SMALL_CAPACITY)) {
    t.skip(`capacity ${capacity} is large; start the app with a small TIMINGS_CAPACITY`);
    return;
  }
  await call(problems, post('/timings/recording?enabled=on'), { status: 200, body: 'recording on\n' });
  await clear(problems);
  // One connection per request: a Node cluster spreads connections over its workers,
  // so twice the total capacity fills every worker's buffer.
  const sent = 2 * capacity + 10;
  for (let i = 0; i < sent; i += 10) await health(problems, Math.min(10, sent - i));
  let s = await state(problems);
  if (s.count !== capacity || s.dropped !== sent - capacity) {
    problems.push(`after ${sent} requests: want count ${capacity} dropped ${sent - capacity}, got count ${s.count} dropped ${s.dropped}`);
  }
  await call(problems, post('/timings/clear'), { status: 200, body: `cleared ${capacity}\n` });
  s = await state(problems);
  if (s.count !== 0 || s.dropped !== 0) problems.push(`after clear: want count 0 dropped 0, got ${JSON.stringify(s)}`);
  report(problems);
}

module.exports = function timings(cfg) {
  const tc = timingsClient(cfg);
  const { unique, call, state, post, health, clear } = tc;

  describe('timing endpoints', () => {
    test('capacity is reported as configured', { skip: cfg.timingsCapacity ? false : 'needs CONTRACT_TIMINGS_CAPACITY' }, async () => {
      const problems = [];
      const s = await state(problems);
      if (s.capacity !== cfg.timingsCapacity) problems.push(`capacity: want ${cfg.timingsCapacity}, got ${s.capacity}`);
      report(problems);
    });

    test('recording off stops recording, on resumes it', async () => {
      const problems = [];
      await call(problems, post('/timings/recording?enabled=off'), { status: 200, body: 'recording off\n' });
      await clear(problems);
      await health(problems, 3);
      let s = await state(problems);
      if (s.recording !== 'off' || s.count !== 0 || s.dropped !== 0) problems.push(`after 3 requests with recording off: ${JSON.stringify(s)}`);
      await call(problems, post('/timings/recording?enabled=on'), { status: 200, body: 'recording on\n' });
      await health(problems, 3);
      s = await state(problems);
      if (s.recording !== 'on' || s.count !== 3) problems.push(`after 3 requests with recording on: want on/count 3, got ${JSON.stringify(s)}`);
      report(problems);
    });

    test('clear answers how many it cleared; /timings requests are not recorded', async () => {
      const problems = [];
      await clear(problems);
      await health(problems, 4);
      await state(problems);
      await call(problems, post('/timings/clear'), { status: 200, body: 'cleared 4\n' });
      const s = await state(problems);
      if (s.count !== 0 || s.dropped !== 0) problems.push(`after clear: want count 0 dropped 0, got ${JSON.stringify(s)}`);
      report(problems);
    });

    const needsRounds = !cfg.resultsDbUrl || !cfg.appName ? 'needs CONTRACT_RESULTS_DB_URL and CONTRACT_APP_NAME' : false;

    test('flush writes the buffer to server_timings with the right columns', { skip: needsRounds }, () => flushWritesColumns(cfg, tc));

    test('flush without round writes round_id NULL; an empty flush writes nothing', { skip: needsRounds }, async () => {
      const problems = [];
      await clear(problems);
      const cid = `flush-null-${unique}`;
      await call(problems, { path: '/health', cid }, { status: 200 });
      await call(problems, post('/timings/flush'), { status: 200, body: 'flushed 1\n' });
      const round = await insertRound(cfg.resultsDbUrl, cfg.appName);
      await call(problems, post(`/timings/flush?round=${round}`), { status: 200, body: 'flushed 0\n' });
      const rows = await withClient(cfg.resultsDbUrl, (c) => c.query('SELECT round_id FROM server_timings WHERE correlation_id = $1', [cid])).then((r) => r.rows);
      if (rows.length !== 1 || rows[0].round_id !== null) problems.push(`rows for ${cid}: want one with round_id NULL, got ${JSON.stringify(rows)}`);
      report(problems);
    });

    test('flush files rows only under a round running or just finished for this app: else 409, nothing written, the buffer kept', { skip: needsRounds }, () => flushUnderRounds(cfg, tc));

    test('the buffer is bounded: count stops at capacity, dropped counts the rest', (t) => bufferBounded(tc, t));
  });
};
