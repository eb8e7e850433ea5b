'use strict';
// server.test.js — the real server.js (node:http, express, cluster) against real PostgreSQL:
// create/read/list, error answers, raw = express byte for byte, timings flushed into
// server_timings (single process and cluster totals), SIGTERM with flush on exit.

const test = require('node:test');
const assert = require('node:assert/strict');
const net = require('node:net');
const t = require('./test-support');

let appDb;
let resultsDb;

test.before(async () => {
  appDb = await t.db.create('nodeapp_test');
  resultsDb = await t.db.create('nodeapp_results', { results: true });
});

test.after(async () => {
  if (appDb) await t.db.drop(appDb);
  if (resultsDb) await t.db.drop(resultsDb);
  t.db.stopOwnCluster();
});

function appEnv(extra) {
  return { DATABASE_URL: appDb, RESULTS_DATABASE_URL: resultsDb, CF_INSTANCE_INDEX: '2', TIMINGS_CAPACITY: '1000', ...extra };
}

async function timingRows(where, values) {
  const { rows } = await t.db.query(resultsDb, {
    text: `SELECT route, status, instance_index, handler_us, pool_wait_us, db_us FROM server_timings WHERE ${where}`,
    values,
  });
  return rows;
}

for (const framework of ['raw', 'express']) {
  test(`${framework}: create, read, list, errors and a flush into server_timings`, async () => {
    const appName = `node-app-${framework}-${process.pid}`;
    const app = await t.startApp(appEnv({ APP_FRAMEWORK: framework, APP_NAME: appName }));
    try {
      const created = await t.request(app.base, '/ads', {
        method: 'POST',
        headers: { ...t.FORM, 'X-Correlation-ID': 'create-1' },
        body: 'title=Bike+for+sale&body=Almost%20new.%0D%0ACollect.&price=120.5&contact=anna%40example.com&x=1',
      });
      assert.equal(created.status, 201);
      const id = created.body.trim();
      assert.match(created.body, /^[1-9][0-9]*\n$/);
      assert.equal(created.headers.location, `/ads/${id}`);
      assert.equal(created.headers['x-correlation-id'], 'create-1');
      assert.equal(created.headers['x-instance-index'], '2');
      assert.equal(created.headers['content-type'], 'text/plain; charset=utf-8');

      const one = await t.request(app.base, `/ads/${id}`);
      assert.equal(one.status, 200);
      assert.match(
        one.body,
        new RegExp(`^id: ${id}\ntitle: Bike for sale\nprice: 120\\.50\ncontact: anna@example\\.com\ncreated: \\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\d\\.\\d{3}Z\n\nAlmost new\\.\r\nCollect\\.\n$`),
      );
      assert.equal(Number(one.headers['content-length']), Buffer.byteLength(one.body));
      assert.match(one.headers['x-correlation-id'], /^[0-9a-f-]{36}$/);

      const page = await t.request(app.base, '/ads?limit=1');
      assert.equal(page.status, 200);
      assert.equal(page.body, `${id}\t120.50\tBike for sale\n`);
      assert.ok(Number(page.headers['x-total-count']) >= 1);
      const empty = await t.request(app.base, '/ads?offset=1000000');
      assert.equal(empty.body, '');
      assert.equal(empty.headers['content-length'], '0');

      const errors = [
        ['/ads/999999999', {}, 404, 'ad not found\n'],
        ['/ads/0', {}, 400, 'id must be an integer from 1 to 9223372036854775807\n'],
        ['/ads?limit=0', {}, 400, 'limit must be an integer from 1 to 100\n'],
        ['/nope', {}, 404, 'not found\n'],
        ['/ads', { method: 'DELETE' }, 405, 'method not allowed\n'],
        ['/ads', { method: 'POST', body: 'title=x' }, 415, 'content type must be application/x-www-form-urlencoded\n'],
        ['/ads', { method: 'POST', headers: t.FORM, body: 'title=' }, 400, 'title is required\n'],
        ['/ads', { method: 'POST', headers: t.FORM, body: 'x'.repeat(65537) }, 413, 'request body over 65536 bytes\n'],
        ['/health', { headers: { 'X-Correlation-ID': 'x'.repeat(65) } }, 400, 'invalid X-Correlation-ID\n'],
      ];
      for (const [path, options, status, body] of errors) {
        const r = await t.request(app.base, path, options);
        assert.deepEqual([r.status, r.body], [status, body], `${options.method ?? 'GET'} ${path}`);
      }

      const state = await t.request(app.base, '/timings', { headers: t.CONTROL });
      assert.equal(state.body, `recording on\ncount ${4 + errors.length}\ndropped 0\ncapacity 1000\n`);
      const round = await t.insertRound(resultsDb, appName);
      const flushed = await t.request(app.base, `/timings/flush?round=${round}`, { method: 'POST', headers: t.CONTROL });
      assert.equal(flushed.body, `flushed ${4 + errors.length}\n`);
      const rows = await timingRows('app = $1 AND round_id = $2', [appName, round]);
      assert.equal(rows.length, 4 + errors.length);
      assert.ok(rows.every((r) => r.instance_index === 2));
      const read = rows.find((r) => r.route === 'GET /ads/{id}' && r.status === 200);
      assert.ok(Number(read.db_us) > 0 && Number(read.handler_us) >= Number(read.db_us));
      assert.ok(rows.some((r) => r.route === '-' && r.status === 405));
      assert.equal((await t.request(app.base, '/timings', { headers: t.CONTROL })).body, 'recording on\ncount 0\ndropped 0\ncapacity 1000\n');
    } finally {
      assert.equal(await app.stop(), 0);
    }
  });
}

// Every way of not holding the credential, on every control endpoint: 401 with the challenge,
// and nothing changes (recording stays on, the buffer keeps its records, nothing is flushed).
const STRANGERS = [
  ['no credential', {}],
  ['a wrong token', { Authorization: 'Bearer wrong' }],
  ['the token one character short', { Authorization: `Bearer ${t.CONTROL_TOKEN.slice(0, -1)}` }],
  ['the token one character long', { Authorization: `Bearer ${t.CONTROL_TOKEN}x` }],
  ['the token in the Basic scheme', { Authorization: `Basic ${t.CONTROL_TOKEN}` }],
  ['the token without a scheme', { Authorization: t.CONTROL_TOKEN }],
  ['the token after two spaces', { Authorization: `Bearer  ${t.CONTROL_TOKEN}` }],
];

for (const framework of ['raw', 'express']) {
  test(`${framework}: the control endpoints answer 401 to a stranger and change nothing`, async () => {
    const appName = `node-app-control-${framework}-${process.pid}`;
    const app = await t.startApp(appEnv({ APP_FRAMEWORK: framework, APP_NAME: appName }));
    try {
      for (let i = 0; i < 3; i++) await t.request(app.base, '/health');
      const round = await t.insertRound(resultsDb, appName);
      const endpoints = [['GET', '/timings'], ['POST', '/timings/recording?enabled=off'], ['POST', '/timings/clear'],
        ['POST', `/timings/flush?round=${round}`], ['POST', '/timings/flush?round=abc']];
      for (const [who, headers] of STRANGERS) {
        for (const [method, path] of endpoints) {
          const r = await t.request(app.base, path, { method, headers });
          assert.deepEqual([r.status, r.body, r.headers['www-authenticate']], [401, 'control credential missing or wrong\n', 'Bearer'],
            `${method} ${path} with ${who}`);
        }
      }
      assert.equal((await t.request(app.base, '/timings', { headers: t.CONTROL })).body, 'recording on\ncount 3\ndropped 0\ncapacity 1000\n');
      assert.equal((await timingRows('round_id = $1', [round])).length, 0);
      const lower = { Authorization: `bearer ${t.CONTROL_TOKEN}` };
      assert.equal((await t.request(app.base, '/timings', { headers: lower })).status, 200, 'the scheme in any case');
      assert.doesNotMatch(app.output(), new RegExp(t.CONTROL_TOKEN));
    } finally {
      assert.equal(await app.stop(), 0);
    }
  });
}

for (const framework of ['raw', 'express']) {
  test(`${framework}: without CONTROL_TOKEN the app serves its public routes, its control endpoints answer 401 to everyone, one line says so`, async () => {
    const { CLOSED_LINE } = require('./control-auth');
    const app = await t.startApp(appEnv({ APP_FRAMEWORK: framework, CONTROL_TOKEN: '' }));
    try {
      assert.equal((await t.request(app.base, '/health')).body, 'ok\n');
      assert.equal((await t.request(app.base, '/ads?limit=1')).status, 200);
      for (const headers of [{}, t.CONTROL, { Authorization: 'Bearer ' }, { Authorization: 'Bearer x' }]) {
        for (const [method, path] of [['GET', '/timings'], ['POST', '/timings/recording?enabled=off'], ['POST', '/timings/clear'], ['POST', '/timings/flush?round=1']]) {
          const r = await t.request(app.base, path, { method, headers });
          assert.deepEqual([r.status, r.body, r.headers['www-authenticate']], [401, 'control endpoints closed: CONTROL_TOKEN not set\n', 'Bearer'],
            `${method} ${path} with ${JSON.stringify(headers)}`);
        }
      }
      assert.equal(app.output().split('\n').filter((l) => l === `node-app: ${CLOSED_LINE}`).length, 1, app.output());
      assert.match(app.output(), /controlToken=none \(control endpoints closed\)/);
    } finally {
      assert.equal(await app.stop(), 0);
    }
  });
}

test('LOCAL_DEV_NO_CONTROL_TOKEN=true opens the control endpoints without a token, and no closed line', async () => {
  const app = await t.startApp(appEnv({ CONTROL_TOKEN: '', LOCAL_DEV_NO_CONTROL_TOKEN: 'true' }));
  try {
    assert.equal((await t.request(app.base, '/timings')).status, 200);
    assert.match(app.output(), /controlToken=none \(LOCAL_DEV_NO_CONTROL_TOKEN/);
    assert.doesNotMatch(app.output(), /CONTROL_TOKEN not set/);
  } finally {
    await app.stop();
  }
});

test('raw and express answer byte-identically', async () => {
  const [raw, exp] = await Promise.all([
    t.startApp(appEnv({ APP_FRAMEWORK: 'raw' })),
    t.startApp(appEnv({ APP_FRAMEWORK: 'express' })),
  ]);
  try {
    const cases = [
      ['GET', '/health'],
      ['HEAD', '/health'],
      ['GET', '/health/'],
      ['GET', '/HEALTH'],
      ['OPTIONS', '/ads'],
      ['PUT', '/ads/1'],
      ['GET', '/ads/1'],
      ['GET', '/ads/%31'],
      ['GET', '/ads/%zz'],
      ['GET', '/ads/1/'],
      ['GET', '/ads?limit=5&offset=0'],
      ['GET', '/ads?limit=%zz'],
      ['GET', '/timings/other'],
      ['GET', '/timings/flush'],
      ['POST', '/timings/recording?enabled=maybe'],
    ];
    const keep = ['content-type', 'content-length', 'allow', 'location', 'x-total-count', 'x-instance-index', 'retry-after', 'www-authenticate'];
    const view = (r) => [r.status, r.body, ...keep.map((h) => r.headers[h])];
    for (const [method, path] of cases) {
      const headers = { 'X-Correlation-ID': 'same-id', ...t.CONTROL };
      const [a, b] = await Promise.all([t.request(raw.base, path, { method, headers }), t.request(exp.base, path, { method, headers })]);
      assert.deepEqual(view(b), view(a), `${method} ${path}`);
      assert.equal(b.headers['x-powered-by'], undefined);
      assert.equal(b.headers.etag, undefined);
    }
  } finally {
    await Promise.all([raw.stop(), exp.stop()]);
  }
});

test('DB_DRIVER: native (pg-native) and js (node-postgres) run as asked and answer alike', async () => {
  const [nat, js] = await Promise.all([t.startApp(appEnv({ DB_DRIVER: 'native' })), t.startApp(appEnv({ DB_DRIVER: 'js' }))]);
  try {
    assert.match(nat.output(), /database driver: native \(pg-native\/libpq\)/);
    assert.match(js.output(), /database driver: javascript \(asked for\)/);
    const form = { method: 'POST', headers: { 'Content-Type': 'application/x-www-form-urlencoded' }, body: 'title=driver&price=1.50' };
    const id = (await t.request(nat.base, '/ads', form)).body;
    const [a, b] = await Promise.all([t.request(nat.base, `/ads/${id}`), t.request(js.base, `/ads/${id}`)]);
    assert.equal(a.status, 200);
    assert.deepEqual([b.status, b.body], [a.status, a.body]);
  } finally {
    await Promise.all([nat.stop(), js.stop()]);
  }
});

test('cluster (WEB_CONCURRENCY=2): /timings totals and flush act on every worker', async () => {
  const appName = `node-app-cluster-${process.pid}`;
  const app = await t.startApp(appEnv({ WEB_CONCURRENCY: '2', APP_NAME: appName, TIMINGS_CAPACITY: '100' }), { workers: 2 });
  try {
    const requests = 40;
    for (let i = 0; i < requests; i++) assert.equal((await t.request(app.base, '/health')).status, 200);
    const control = { headers: t.CONTROL };
    const post = { method: 'POST', headers: t.CONTROL };
    assert.equal((await t.request(app.base, '/timings', control)).body, `recording on\ncount ${requests}\ndropped 0\ncapacity 200\n`);
    const closed = await t.insertRound(resultsDb, appName, { status: 'done', finishedSecAgo: 3600 });
    assert.equal((await t.request(app.base, `/timings/flush?round=${closed}`, post)).body, 'round is not running for this app\n');
    const round = await t.insertRound(resultsDb, appName);
    assert.equal((await t.request(app.base, `/timings/flush?round=${round}`, post)).body, `flushed ${requests}\n`);
    assert.equal((await timingRows('app = $1 AND round_id = $2', [appName, round])).length, requests);
    assert.equal((await timingRows('round_id = $1', [closed])).length, 0);
    // both workers served (round-robin over connections) and both flushed their part
    assert.equal((app.output().match(/\[worker \d\]: flushed \d+ timings/g) || []).length, 2);

    assert.equal((await t.request(app.base, '/timings/recording?enabled=off', { method: 'POST' })).status, 401);
    assert.equal((await t.request(app.base, '/timings/recording?enabled=off', post)).body, 'recording off\n');
    for (let i = 0; i < 4; i++) await t.request(app.base, '/health');
    assert.equal((await t.request(app.base, '/timings', control)).body, 'recording off\ncount 0\ndropped 0\ncapacity 200\n');
  } finally {
    assert.equal(await app.stop(), 0);
  }
});

test('SIGTERM: the in-flight request finishes, timings are flushed, exit 0', async () => {
  const appName = `node-app-exit-${process.pid}`;
  const app = await t.startApp(appEnv({ APP_NAME: appName, TIMINGS_FLUSH_ON_EXIT: 'true' }));
  await t.request(app.base, '/health');
  const body = 'title=in-flight';
  const socket = net.connect(app.port, '127.0.0.1');
  let answer = '';
  socket.on('data', (d) => (answer += d));
  const closed = new Promise((resolve) => socket.on('close', resolve));
  socket.write(
    `POST /ads HTTP/1.1\r\nHost: x\r\nContent-Type: application/x-www-form-urlencoded\r\n` +
      `Content-Length: ${body.length}\r\n\r\n${body.slice(0, 5)}`,
  );
  await new Promise((resolve) => setTimeout(resolve, 100));
  app.proc.kill('SIGTERM');
  await new Promise((resolve) => setTimeout(resolve, 200));
  socket.write(body.slice(5));
  await closed;
  assert.match(answer, /^HTTP\/1\.1 201 Created\r\n/);
  assert.match(answer, /\r\nConnection: close\r\n/i);
  assert.equal(await app.exited, 0);
  const rows = await timingRows('app = $1 AND round_id IS NULL', [appName]);
  assert.deepEqual(rows.map((r) => r.route).sort(), ['GET /health', 'POST /ads']);
});

test('database down at start: /health serves, 503 meanwhile, the table is created once it is up', async () => {
  const fs = require('node:fs');
  const dir = fs.mkdtempSync('/tmp/cfscale-node-app-late-pg-');
  const port = await t.freePortInRange();
  const password = 'late-start-pw';
  fs.writeFileSync(`${dir}/password`, password, { mode: 0o600 });
  const url = `postgres://postgres:${password}@127.0.0.1:${port}/postgres`;
  const app = await t.startApp({ DATABASE_URL: url, DB_POOL_TIMEOUT_MS: '500' });
  try {
    assert.equal((await t.request(app.base, '/health')).body, 'ok\n');
    const down = await t.request(app.base, '/ads');
    assert.deepEqual([down.status, down.body, down.headers['retry-after']], [503, 'database unavailable\n', '1']);
    t.pgCluster.start(dir, { port });
    const up = await t.request(app.base, '/ads');
    assert.deepEqual([up.status, up.body, up.headers['x-total-count']], [200, '', '0']);
    assert.equal(app.proc.exitCode, null);
  } finally {
    await app.stop();
    t.pgCluster.stop(dir);
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('cluster: a worker that cannot listen stops the app with exit 1 instead of a restart loop', async () => {
  const { spawn } = require('node:child_process');
  const path = require('node:path');
  const blocker = net.createServer().listen(0);
  await new Promise((resolve) => blocker.once('listening', resolve));
  try {
    const proc = spawn(process.execPath, [path.join(__dirname, 'server.js')], {
      env: { PATH: process.env.PATH, CONTROL_TOKEN: t.CONTROL_TOKEN, ...appEnv({ WEB_CONCURRENCY: '2', PORT: String(blocker.address().port) }) },
      stdio: 'ignore',
    });
    const timer = setTimeout(() => proc.kill('SIGKILL'), 10000);
    const code = await new Promise((resolve) => proc.on('exit', (c) => resolve(c)));
    clearTimeout(timer);
    assert.equal(code, 1);
  } finally {
    blocker.close();
  }
});
