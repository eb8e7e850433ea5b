// settings.test.js — start-up settings of an app variant: the edges of every range of the
// settings spec (settings.json) with `--check-settings` (validate, exit, serve nothing), on
// every variant; then, once per app (node-raw and java), invalid settings stop a real start
// with exit 1 and one line naming the variable (never the password), and a start from
// VCAP_SERVICES alone (no DATABASE_URL) finds the app database by tag (skipping results-db)
// and the results database by name.
//   CONTRACT_VARIANT, CONTRACT_APP_CMD, CONTRACT_APP_ENV, CONTRACT_PG_URL, CONTRACT_CONTROL_TOKEN: as for lifecycle.test.js.
'use strict';

const { describe, test, after } = require('node:test');
const { send } = require('./lib/raw-http');
const { checkResponse, show } = require('./lib/check');
const { report } = require('./lib/runner');
const { withClient } = require('./lib/app-db');
const { AppProcess, freePort, parseEnvList } = require('./lib/app-process');
const SPEC = require('./settings.json');
const { freshDatabase, urlParts } = require('./lib/pg-admin');
const { controlToken, controlHeaders, isControlPath, insertRound } = require('./lib/control');

const VARIANT = process.env.CONTRACT_VARIANT || 'node-raw';
const KIND = VARIANT === 'java' ? 'java' : 'node';
const CMD = (process.env.CONTRACT_APP_CMD || 'node node-app/server.js').split(/\s+/);
const VARIANT_ENV = parseEnvList(process.env.CONTRACT_APP_ENV);
const PG_URL = process.env.CONTRACT_PG_URL;
// The start-up cases below need one app only: the node variants share config.js.
const ONCE_PER_APP = VARIANT === 'node-raw' || VARIANT === 'java';
const CHECK_PARALLEL = 4;
// Never connected to: --check-settings validates and exits.
const UNUSED_DB = 'postgres://contract:unused@127.0.0.1:1/unused';
const DB_PREFIX = `contract_${KIND}_settings`;
const EXIT_WAIT_MS = 20000;
const PARALLEL_STARTS = 3;
const STACK_TRACE_RE = /^\s+at [\w$.<>]+[( ]|Exception in thread|^\w+(\.\w+)+(Exception|Error):/m;
const FORM = 'application/x-www-form-urlencoded';
const TOKEN = controlToken();

const started = [];
after(async () => { await Promise.all(started.map((a) => a.stop())); });

function vcapServices({ appDb, resultsDb }) {
  const a = urlParts(appDb);
  return JSON.stringify({
    'csb-aws-postgresql': [
      // results-db first: the default DB_SERVICE_NAME must skip it (it is RESULTS_SERVICE_NAME).
      { name: 'results-db', label: 'csb-aws-postgresql', tags: ['postgres', 'postgresql', 'relational'], credentials: { uri: resultsDb } },
      { name: `${KIND}-db`, label: 'csb-aws-postgresql', tags: ['postgres', 'postgresql', 'relational'],
        credentials: { hostname: a.host, port: a.port, name: a.db, username: a.user, password: a.password } },
    ],
  });
}

/** Bad settings: [name, variable (string or RegExp), env]: exit 1 with a line naming the variable. */
function badSettings(dbs) {
  const common = [
    ['DB_POOL_SIZE=abc', 'DB_POOL_SIZE', { DB_POOL_SIZE: 'abc' }],
    ['DB_POOL_SIZE=0', 'DB_POOL_SIZE', { DB_POOL_SIZE: '0' }],
    ['DB_POOL_TIMEOUT_MS=-1', 'DB_POOL_TIMEOUT_MS', { DB_POOL_TIMEOUT_MS: '-1' }],
    ['DB_STATEMENT_TIMEOUT_MS=99', 'DB_STATEMENT_TIMEOUT_MS', { DB_STATEMENT_TIMEOUT_MS: '99' }],
    ['TIMINGS_CAPACITY=lots', 'TIMINGS_CAPACITY', { TIMINGS_CAPACITY: 'lots' }],
    ['TIMINGS_ENABLED=maybe', 'TIMINGS_ENABLED', { TIMINGS_ENABLED: 'maybe' }],
    ['PORT=http', 'PORT', { PORT: 'http' }],
    // An unset CONTROL_TOKEN is no error (no-token.test.js); a malformed one is.
    ['CONTROL_TOKEN one character short', 'CONTROL_TOKEN', { CONTROL_TOKEN: TOKEN.slice(0, 31) }],
    ['CONTROL_TOKEN with a space', 'CONTROL_TOKEN', { CONTROL_TOKEN: `${TOKEN.slice(0, 20)} ${TOKEN.slice(21)}` }],
    ['DB_SERVICE_NAME naming an absent binding', 'DB_SERVICE_NAME',
      { DATABASE_URL: undefined, RESULTS_DATABASE_URL: undefined, VCAP_SERVICES: vcapServices(dbs), DB_SERVICE_NAME: 'no-such-db' }],
  ];
  const own = KIND === 'java'
    ? [['JETTY_THREADS_MAX=x', 'JETTY_THREADS_MAX', { JETTY_THREADS_MAX: 'x' }], ['JETTY_THREADS_MIN=-1', 'JETTY_THREADS_MIN', { JETTY_THREADS_MIN: '-1' }]]
    : [['APP_FRAMEWORK=koa', 'APP_FRAMEWORK', { APP_FRAMEWORK: 'koa' }], ['WEB_CONCURRENCY=two', 'WEB_CONCURRENCY', { WEB_CONCURRENCY: 'two' }]];
  return [...common, ...own];
}

async function expectConfigExit(name, variable, env, password) {
  const base = { PORT: String(await freePort()), CONTROL_TOKEN: TOKEN, ...env };
  const clean = Object.fromEntries(Object.entries(base).filter(([, v]) => v !== undefined));
  const app = new AppProcess(CMD, clean);
  started.push(app);
  const exit = await app.waitExit(EXIT_WAIT_MS);
  const problems = [];
  if (!exit) problems.push(`still running ${EXIT_WAIT_MS} ms after start (want exit 1)`);
  else if (exit.code !== 1) problems.push(`exit: want code 1, got ${JSON.stringify(exit)}`);
  const lines = app.output.split('\n').filter((l) => (typeof variable === 'string' ? l.includes(variable) : variable.test(l)));
  if (lines.length === 0) problems.push(`no line names ${variable}; output: ${show(app.output)}`);
  if (STACK_TRACE_RE.test(app.output)) problems.push(`a stack trace in the output: ${show(app.output)}`);
  if (password && app.output.includes(password)) problems.push('the output contains the database password');
  const token = clean.CONTROL_TOKEN;
  if (token && app.output.includes(token)) problems.push('the output contains the CONTROL_TOKEN given');
  return problems.map((p) => `${name}: ${p}`);
}

/** [label, env, accepted] for every edge of every setting of this app in the spec. */
function edgeCases() {
  const mine = SPEC.settings.filter((s) => s.apps === 'both' || s.apps === KIND);
  const cases = [];
  for (const s of mine) {
    if (s.type === 'integer') {
      // A setting that must not be below another: the other at its minimum; and the other way round.
      const low = s.notBelow ? { [s.notBelow]: String(mine.find((o) => o.name === s.notBelow).min) } : {};
      const high = Object.fromEntries(mine.filter((o) => o.notBelow === s.name).map((o) => [o.name, String(o.max)]));
      for (const [v, ok] of [[s.min - 1, false], [s.min, true], [s.max, true], [s.max + 1, false]]) {
        cases.push([`${s.name}=${v}`, { ...low, ...high, [s.name]: String(v) }, ok, `${s.name} must be an integer from ${s.min} to ${s.max}, got "${v}"`]);
      }
    } else if (s.type === 'boolean') {
      for (const v of ['true', 'false']) cases.push([`${s.name}=${v}`, { [s.name]: v }, true]);
      cases.push([`${s.name}=yes`, { [s.name]: 'yes' }, false, `${s.name} must be true or false, got "yes"`]);
    } else if (s.type === 'choice') {
      for (const v of s.choices) cases.push([`${s.name}=${v}`, { [s.name]: v }, true]);
      cases.push([`${s.name}=other`, { [s.name]: 'other' }, false, `${s.name} must be one of ${s.choices.join(', ')}, got "other"`]);
    }
  }
  return cases;
}

async function checkSettings([label, env, accepted, message]) {
  const app = new AppProcess([...CMD, '--check-settings'], { ...VARIANT_ENV, DATABASE_URL: UNUSED_DB, PORT: '0', CONTROL_TOKEN: TOKEN, ...env });
  started.push(app);
  const exit = await app.waitExit(EXIT_WAIT_MS);
  const want = accepted ? 0 : 1;
  if (!exit || exit.code !== want) return [`${label}: want exit ${want}, got ${exit ? JSON.stringify(exit) : 'still running'}; output: ${show(app.output.slice(-300))}`];
  if (!accepted && !app.output.includes(message)) return [`${label}: no line "${message}"; output: ${show(app.output.slice(-300))}`];
  return [];
}

test(`${VARIANT}: the edges of every setting's range in settings.json (min and max accepted, one past either refused with the range)`, async () => {
  const cases = edgeCases();
  const problems = [];
  for (let i = 0; i < cases.length; i += CHECK_PARALLEL) {
    for (const p of await Promise.all(cases.slice(i, i + CHECK_PARALLEL).map(checkSettings))) problems.push(...p);
  }
  report(problems);
});

describe(`settings of ${KIND}-app`, { skip: !PG_URL ? 'needs CONTRACT_PG_URL' : !ONCE_PER_APP ? 'once per app: node-raw has the same config.js' : false }, () => {
  let dbs;
  const password = PG_URL ? urlParts(PG_URL).password : undefined;

  test('invalid settings stop the app: exit 1, one line naming the variable, no password', async () => {
    dbs = {
      appDb: await freshDatabase(PG_URL, `${DB_PREFIX}_app`),
      resultsDb: await freshDatabase(PG_URL, `${DB_PREFIX}_results`, { results: true }),
    };
    const base = { DATABASE_URL: dbs.appDb, RESULTS_DATABASE_URL: dbs.resultsDb };
    const cases = [
      ...badSettings(dbs).map(([name, variable, env]) => [name, variable, { ...base, ...env }]),
      ['no database at all', /DATABASE_URL|VCAP_SERVICES/, { RESULTS_DATABASE_URL: dbs.resultsDb }],
    ];
    const problems = [];
    for (let i = 0; i < cases.length; i += PARALLEL_STARTS) {
      const batch = cases.slice(i, i + PARALLEL_STARTS).map(([name, variable, env]) => expectConfigExit(name, variable, env, password));
      for (const p of await Promise.all(batch)) problems.push(...p);
    }
    report(problems);
  });

  test('VCAP_SERVICES alone: app database by tag (results-db skipped), results database by name, port as a string', async () => {
    dbs = dbs || {
      appDb: await freshDatabase(PG_URL, `${DB_PREFIX}_app`),
      resultsDb: await freshDatabase(PG_URL, `${DB_PREFIX}_results`, { results: true }),
    };
    const appName = `vcap-${KIND}`;
    const port = await freePort();
    const app = new AppProcess(CMD, {
      PORT: String(port), CF_INSTANCE_INDEX: '2', VCAP_SERVICES: vcapServices(dbs), CONTROL_TOKEN: TOKEN,
      VCAP_APPLICATION: JSON.stringify({ application_name: appName, instance_index: 2 }),
    });
    started.push(app);
    const url = `http://127.0.0.1:${port}`;
    await app.waitHealthy(url);
    const problems = [];
    const round = await insertRound(dbs.resultsDb, appName);
    const calls = [
      [{ method: 'POST', path: '/ads', headers: { 'Content-Type': FORM }, body: 'title=from+vcap' }, { status: 201 }],
      [{ path: '/ads?limit=1' }, { status: 200, headers: { 'X-Instance-Index': '2' } }],
      [{ method: 'POST', path: `/timings/flush?round=${round}` }, { status: 200, body: 'flushed 2\n' }],
    ];
    await send(url, { method: 'POST', path: '/timings/clear', headers: controlHeaders(TOKEN) });
    for (const [req, want] of calls) {
      const cid = `vcap-${round}-${req.path}`;
      const auth = isControlPath(req.path) ? controlHeaders(TOKEN) : {};
      const res = await send(url, { ...req, headers: { ...req.headers, ...auth, 'X-Correlation-ID': cid } });
      problems.push(...checkResponse(res, want, { cid, wantEcho: true }).map((p) => `${req.method || 'GET'} ${req.path}: ${p}`));
    }
    const ads = await withClient(dbs.appDb, (c) => c.query('SELECT title FROM ads')).then((r) => r.rows.map((x) => x.title));
    if (!ads.includes('from vcap')) problems.push(`the ad is not in the ${KIND}-db database: ${show(ads.join(', '))}`);
    const rows = await withClient(dbs.resultsDb, (c) => c.query('SELECT app, instance_index FROM server_timings WHERE round_id = $1', [round])).then((r) => r.rows);
    if (rows.length !== 2 || rows.some((r) => r.app !== appName || r.instance_index !== 2)) {
      problems.push(`server_timings of round ${round}: want 2 rows app ${appName} instance 2, got ${JSON.stringify(rows)}`);
    }
    if (app.output.includes(password)) problems.push('the output contains the database password');
    report(problems);
  });
});
