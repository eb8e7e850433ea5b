'use strict';
// collect.test.js — pipeUntilTerm (collect.js), the pipe of both collectors, with producers
// of known output and the real ingest CLIs into a real PostgreSQL database: SIGTERMed or
// SIGINTed mid-stream, every line the producer wrote reaches the database and the exit is
// 0; the producer's whole process group (a child it started included) is gone; a producer
// that ends by itself is followed by its successor (next(code)), every record once; an
// ingest CLI that fails first (the database refuses it) stops the producer and its status
// (2) is the result. The pipe runs as run-round starts a collector: in a process group of
// its own, the signal to its pid only. The collectors themselves against a Cloud Controller
// (cf logs, cf curl stats, a plugin that ends by itself): test/cf-local.test.js.
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { spawn } = require('node:child_process');
const { Client } = require('pg');
const { testDatabases } = require('../../lib/test-db');
const { processAlive } = require('../../lib/process-checks');
const testDbs = testDatabases(require('pg'), 'cf');

const ROOT = path.resolve(__dirname, '../..');
const COLLECT = path.join(__dirname, 'collect.js');
const BURST = 100; // lines at once (~33 KB, within a pipe's 64 KB): the signal comes while they wait in
// the pipe, most likely before the ingest CLI has even connected to the database

// A router log: a burst of router lines, then one every 5 ms until SIGTERM; on SIGTERM it
// records how many it wrote. It first starts a child in its own process group that does
// not hold the pipe (only a group-wide stop ends it).
const LOGS = `#!/usr/bin/env node
'use strict';
const fs = require('node:fs');
const { spawn } = require('node:child_process');
const dir = process.env.PRODUCER_DIR;
const child = spawn('sleep', ['300'], { stdio: 'ignore' });
fs.writeFileSync(dir + '/pids', process.pid + ' ' + child.pid);
let n = 0;
const line = () => '   2026-03-01T12:00:05.00+0000 [RTR/0] OUT node-app.apps.example.com - [2026-03-01T12:00:05.123456789Z] "GET /ads/1 HTTP/1.1" 200 0 99 "-" "lg" "10.0.0.1:5000" "10.0.1.2:61000" x_forwarded_for:"-" x_forwarded_proto:"https" vcap_request_id:"req-' + process.pid + '-' + (++n) + '" response_time:0.002500 gorouter_time:0.000100 app_id:"g" app_index:"0" instance_id:"i"\\n';
process.on('SIGTERM', () => { fs.writeFileSync(dir + '/written', String(n)); process.exit(0); });
fs.writeSync(1, 'Retrieving logs for app node-app in org o / space s as admin...\\n\\n');
for (let i = 0; i < ${BURST}; i++) fs.writeSync(1, line());
fs.writeFileSync(dir + '/ready', '');
setInterval(() => fs.writeSync(1, line()), 5);
`;

// Records FROM-TO of a router log (argv), then exit 0, or with WAIT, wait for SIGTERM.
const RECORDS = `#!/usr/bin/env node
'use strict';
const fs = require('node:fs');
const [from, to, wait] = process.argv.slice(2);
const line = (n) => '   2026-03-01T12:00:05.00+0000 [RTR/0] OUT node-app.apps.example.com - [2026-03-01T12:00:05.123456789Z] "GET /ads/1 HTTP/1.1" 200 0 99 "-" "lg" "10.0.0.1:5000" "10.0.1.2:61000" x_forwarded_for:"-" x_forwarded_proto:"https" vcap_request_id:"rec-' + n + '" response_time:0.002500 gorouter_time:0.000100 app_id:"g" app_index:"0" instance_id:"i"\\n';
for (let n = Number(from); n <= Number(to); n++) fs.writeSync(1, line(n));
if (wait) { fs.writeFileSync(process.env.PRODUCER_DIR + '/ready', ''); setInterval(() => {}, 1000); }
`;

// pipeUntilTerm in a process of its own: PIPE_STEPS, producers in order (each the next of
// the one before, which says the code it got on stderr), PIPE_CONSUMER the ingest CLI.
const DRIVER = `
const { pipeUntilTerm } = require(${JSON.stringify(COLLECT)});
const steps = JSON.parse(process.env.PIPE_STEPS);
steps.forEach((s, i) => {
  if (i + 1 < steps.length) s.next = (code) => { process.stderr.write('next after exit ' + code + '\\n'); return steps[i + 1]; };
});
pipeUntilTerm(steps[0], JSON.parse(process.env.PIPE_CONSUMER)).then((code) => process.exit(code));
`;

let db;
const dirs = [];
test.before(async () => { db = await testDbs.open('cfscale_collect'); });
test.after(async () => {
  for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
  if (db) await db.close();
});

async function q(sql) {
  const c = new Client({ connectionString: db.url });
  await c.connect();
  try {
    return (await c.query(sql)).rows;
  } finally {
    await c.end();
  }
}

/** A temp dir with the producer scripts. */
function producerDir() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cfscale-collect-'));
  dirs.push(dir);
  fs.writeFileSync(path.join(dir, 'logs.js'), LOGS);
  fs.writeFileSync(path.join(dir, 'records.js'), RECORDS);
  return dir;
}

/** The pipe from the producers (argv each) into ingest-rtr for ROUND, as run-round starts a collector. */
function startPipe(dir, steps, round, dbUrl = db.url) {
  const consumer = ['node', path.join(ROOT, 'scripts/parsers/ingest-rtr.js'), '--round', String(round),
    '--app', 'node-app', '--platform', 'cf'];
  const child = spawn(process.execPath, ['-e', DRIVER], {
    env: { ...process.env, PRODUCER_DIR: dir, PIPE_STEPS: JSON.stringify(steps), PIPE_CONSUMER: JSON.stringify(consumer), RESULTS_DATABASE_URL: dbUrl },
    detached: true, stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (d) => { stderr += d; });
  const done = new Promise((resolve) => child.on('close', (code, signal) => resolve({ code, signal, stderr })));
  return { child, done };
}

async function until(what, check, ms = 30000) {
  for (const end = Date.now() + ms; Date.now() < end;) {
    if (check()) return;
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error(`timed out waiting for ${what}`);
}

/** A process is gone: no such pid, or only a zombie left to reap. */
const gone = (pid) => !processAlive(pid);

for (const [signal, round] of [['SIGTERM', 11], ['SIGINT', 14]]) {
  test(`stopped by ${signal} mid-stream: every line written is in router_timings, exit 0, the producer group is gone`, async () => {
    const dir = producerDir();
    const c = startPipe(dir, [{ argv: ['node', path.join(dir, 'logs.js')] }], round);
    await until('the burst', () => fs.existsSync(path.join(dir, 'ready')));
    const [producerPid, childPid] = fs.readFileSync(path.join(dir, 'pids'), 'utf8').split(' ').map(Number);
    c.child.kill(signal);
    const res = await c.done;
    assert.equal(res.code, 0, res.stderr);
    const written = Number(fs.readFileSync(path.join(dir, 'written'), 'utf8'));
    assert.ok(written >= BURST, `${written} lines written`);
    assert.equal((await q(`SELECT count(*)::int AS n FROM router_timings WHERE round_id = ${round}`))[0].n, written, res.stderr);
    await until('the producer and its child to go', () => gone(producerPid) && gone(childPid), 5000)
      .catch(() => assert.fail(`still running: producer ${gone(producerPid) ? '' : producerPid} child ${gone(childPid) ? '' : childPid}`));
  });
}

test('a producer that ends by itself is followed by its successor (after its delay), every record once', async () => {
  const dir = producerDir();
  const records = (from, to, wait) => ['node', path.join(dir, 'records.js'), String(from), String(to), ...(wait ? ['wait'] : [])];
  // As collect-logs follows `cf logs`: records 1-50 until it ends, a catch-up 41-80 that
  // overlaps and fills the gap, then following again from 81.
  const c = startPipe(dir, [{ argv: records(1, 50) }, { argv: records(41, 80), delayMs: 200 }, { argv: records(81, 90, true) }], 15);
  await until('the third producer', () => fs.existsSync(path.join(dir, 'ready')));
  c.child.kill('SIGTERM');
  const res = await c.done;
  assert.equal(res.code, 0, res.stderr);
  assert.deepEqual(res.stderr.match(/^next after exit \d+$/mg), ['next after exit 0', 'next after exit 0']);
  const ids = (await q('SELECT vcap_request_id AS id FROM router_timings WHERE round_id = 15')).map((r) => r.id);
  assert.deepEqual(ids.sort(), Array.from({ length: 90 }, (_, i) => `rec-${i + 1}`).sort());
});

test('an ingest CLI that fails first (the database refuses it): the producer group is stopped, exit 2', async () => {
  const dir = producerDir();
  // Refused, not unreachable: an unreachable database is waited for (rows held, ingest-cli.js).
  const refused = new URL(db.url);
  refused.pathname = '/no_such_database';
  const c = startPipe(dir, [{ argv: ['node', path.join(dir, 'logs.js')] }], 13, refused.toString());
  const res = await c.done; // no signal: the ingest CLI's exit ends it
  assert.equal(res.code, 2, res.stderr);
  assert.match(res.stderr, /ingest-rtr: /);
  if (fs.existsSync(path.join(dir, 'pids'))) {
    const [producerPid, childPid] = fs.readFileSync(path.join(dir, 'pids'), 'utf8').split(' ').map(Number);
    await until('the producer and its child to go', () => gone(producerPid) && gone(childPid), 5000)
      .catch(() => assert.fail(`still running: producer ${gone(producerPid) ? '' : producerPid} child ${gone(childPid) ? '' : childPid}`));
  }
});

test('a poll runs at a fixed rate: neither its own time nor a late timer stretches it; a slow one is followed at once', () => {
  const { nextDueAt } = require('./collect');
  assert.equal(nextDueAt(5000, 1000, 5060), 6000);
  assert.equal(nextDueAt(6000, 1000, 6065), 7000); // the timer fired 5 ms late, the poll took 60 ms
  assert.equal(nextDueAt(7000, 1000, 8300), 8300);
});
