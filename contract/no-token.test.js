// no-token.test.js — an app variant started without CONTROL_TOKEN, as a plain `cf push` starts
// it (contract "Control credential"): it serves its public routes, every control endpoint
// answers 401 to every request whatever it carries, and the app logs the settings spec's one
// line saying so (settings.json, CONTROL_TOKEN's unsetLine: the same in both apps), once, even
// in a cluster. LOCAL_DEV_NO_CONTROL_TOKEN=true, the only way to open them, opens them. The
// case with a token is contract.test.js's.
//   CONTRACT_VARIANT, CONTRACT_APP_CMD, CONTRACT_APP_ENV, CONTRACT_PG_URL: as for lifecycle.test.js.
'use strict';

const { test, after } = require('node:test');
const { send } = require('./lib/raw-http');
const { checkResponse, show } = require('./lib/check');
const { report } = require('./lib/runner');
const { AppProcess, freePort, parseEnvList } = require('./lib/app-process');
const { freshDatabase } = require('./lib/pg-admin');
const { newControlToken } = require('./lib/control');
const SPEC = require('./settings.json');

const VARIANT = process.env.CONTRACT_VARIANT || 'node-raw';
const CMD = (process.env.CONTRACT_APP_CMD || 'node node-app/server.js').split(/\s+/);
const VARIANT_ENV = parseEnvList(process.env.CONTRACT_APP_ENV);
const PG_URL = process.env.CONTRACT_PG_URL;
const DB_PREFIX = `contract_${VARIANT.replace(/-/g, '_')}_no_token`;
const CLOSED_LINE = SPEC.settings.find((s) => s.name === 'CONTROL_TOKEN').unsetLine;
const FORM = 'application/x-www-form-urlencoded';
const CLOSED = { status: 401, body: 'control endpoints closed: CONTROL_TOKEN not set\n', headers: { 'WWW-Authenticate': 'Bearer' } };

const ENDPOINTS = [
  { method: 'GET', path: '/timings' },
  { method: 'POST', path: '/timings/recording?enabled=off' },
  { method: 'POST', path: '/timings/clear' },
  { method: 'POST', path: '/timings/flush?round=1' },
  { method: 'POST', path: '/timings/flush?round=abc' },
];
// [who, Authorization headers]: with no token set, none of them opens an endpoint.
const CALLERS = [
  ['no credential', []],
  ['a token of the right form', [`Bearer ${newControlToken()}`]],
  ['an empty Bearer', ['Bearer ']],
  ['Bearer and nothing else', ['Bearer']],
  ['the Basic scheme', ['Basic eDp5']],
];

const started = [];
after(async () => { await Promise.all(started.map((a) => a.stop())); });

/** The variant started with env on top of its own (CONTROL_TOKEN never inherited), healthy. */
async function startApp(env) {
  const port = await freePort();
  const app = new AppProcess(CMD, { PORT: String(port), CF_INSTANCE_INDEX: '1', APP_NAME: `no-token-${VARIANT}`, ...VARIANT_ENV, ...env });
  started.push(app);
  const url = `http://127.0.0.1:${port}`;
  await app.waitHealthy(url);
  return { app, url };
}

/** Send, check against want (status, body, headers; the id echoed), push problems. */
async function expectAnswer(problems, url, req, want, label) {
  const cid = `no-token-${Math.random().toString(36).slice(2, 10)}`;
  const res = await send(url, { ...req, headers: [...(req.headers || []), ['X-Correlation-ID', cid]] }, { timeoutMs: 15000 });
  problems.push(...checkResponse(res, want, { cid, wantEcho: true }).map((p) => `${label}: ${p}`));
}

/** Problems of the app's output: the closed line exactly `want` times (0 or 1). */
function closedLineProblems(app, want) {
  const n = app.output.split('\n').filter((l) => l.endsWith(CLOSED_LINE)).length;
  return n === want ? [] : [`the line "${CLOSED_LINE}": want ${want}, got ${n}; output: ${show(app.output.slice(-600))}`];
}

for (const [label, env] of [['CONTROL_TOKEN unset', {}], ['CONTROL_TOKEN empty, LOCAL_DEV_NO_CONTROL_TOKEN=false', { CONTROL_TOKEN: '', LOCAL_DEV_NO_CONTROL_TOKEN: 'false' }]]) {
  test(`${VARIANT}, ${label}: public routes served, every control endpoint 401 to every caller, one line says so`, { skip: PG_URL ? false : 'needs CONTRACT_PG_URL' }, async () => {
    const problems = [];
    const appDb = await freshDatabase(PG_URL, `${DB_PREFIX}_${env.CONTROL_TOKEN === undefined ? 'unset' : 'empty'}`);
    const { app, url } = await startApp({ DATABASE_URL: appDb, ...env });
    await expectAnswer(problems, url, { path: '/health' }, { status: 200, body: 'ok\n' }, 'GET /health');
    await expectAnswer(problems, url, { path: '/hello' }, { status: 200, body: 'Hello World\n' }, 'GET /hello');
    await expectAnswer(problems, url, { method: 'POST', path: '/ads', headers: [['Content-Type', FORM]], body: 'title=open' }, { status: 201, body: '1\n' }, 'POST /ads');
    await expectAnswer(problems, url, { path: '/ads/1' }, { status: 200 }, 'GET /ads/1');
    for (const [who, auth] of CALLERS) {
      for (const req of ENDPOINTS) {
        const headers = auth.map((a) => ['Authorization', a]);
        await expectAnswer(problems, url, { ...req, headers }, CLOSED, `${req.method} ${req.path} with ${who}`);
      }
    }
    await expectAnswer(problems, url, { path: '/timings/clear' }, { status: 405, body: 'method not allowed\n', headers: { Allow: 'POST' } }, '405 before the closed check: GET /timings/clear');
    problems.push(...closedLineProblems(app, 1));
    if (!app.alive) problems.push(`the app exited: ${JSON.stringify(app.exitInfo)}`);
    report(problems);
  });
}

test(`${VARIANT}, LOCAL_DEV_NO_CONTROL_TOKEN=true without a token: the control endpoints open, no closed line`, async () => {
  const problems = [];
  // Never connected to: /timings and /health need no database.
  const { app, url } = await startApp({ DATABASE_URL: 'postgres://contract:unused@127.0.0.1:1/unused', LOCAL_DEV_NO_CONTROL_TOKEN: 'true' });
  await expectAnswer(problems, url, { path: '/timings' }, { status: 200, bodyMatch: /^recording on\ncount \d+\ndropped 0\ncapacity \d+\n$/ }, 'GET /timings');
  await expectAnswer(problems, url, { method: 'POST', path: '/timings/recording?enabled=off' }, { status: 200, body: 'recording off\n' }, 'POST /timings/recording?enabled=off');
  problems.push(...closedLineProblems(app, 0));
  report(problems);
});
