'use strict';
// The real binary: exit codes 0/1/2, the --json shape, persistence from the CLI.
const test = require('node:test');
const assert = require('node:assert');
const fs = require('node:fs');
const https = require('node:https');
const { spawn, execFileSync } = require('node:child_process');
const { startServer, spawnNode, testCluster, createDatabase, query, stopTestCluster, ROOT } = require('./helpers');

test.after(stopTestCluster);

const cli = (args) => spawnNode('bin/loadgen.js', args).done;

test('cli: --json prints one object with completed requests, rate, latency in µs', async (t) => {
  const srv = await startServer((req, res) => res.end('ok\n'));
  t.after(srv.close);
  const r = await cli(['--url', srv.url, '-c', '4', '-n', '300', '--json']);
  assert.strictEqual(r.code, 0, r.stderr);
  const lines = r.stdout.trim().split('\n');
  assert.strictEqual(lines.length, 1);
  const j = JSON.parse(lines[0]);
  assert.strictEqual(j.requests.total, 300);
  assert.strictEqual(j.requests.ok + j.requests.errors, j.requests.total);
  assert.ok(j.requests.per_sec > 0);
  for (const k of ['p50', 'p90', 'p99', 'max']) assert.ok(Number.isInteger(j.latency_us[k]) && j.latency_us[k] > 0, k);
  assert.deepStrictEqual(j.errors_by_kind, {});
  assert.strictEqual(j.late, 0);
});

test('cli: human summary and exit 0', async (t) => {
  const srv = await startServer((req, res) => res.end('ok\n'));
  t.after(srv.close);
  const r = await cli(['--url', srv.url, '--duration', '300ms', '--parallel', '2']);
  assert.strictEqual(r.code, 0, r.stderr);
  assert.match(r.stdout, /Rate: +[\d.]+ req\/s/);
  assert.match(r.stdout, /Latency: +p50 .* p90 .* p99 .* max /);
  assert.match(r.stdout, /Errors: +none/);
});

const USAGE = [
  [['--parallel', '3'], /--url is required/],
  [['--url', 'http://127.0.0.1:1', '--duration', 'soon'], /--duration/],
  [['--url', 'http://127.0.0.1:1', '--nope'], /--nope/],
  [['--url', 'http://127.0.0.1:1', '--seed-only'], /--seed-only needs --seed N/],
];
for (const [args, re] of USAGE) {
  test(`cli: usage error exits 1 with one line: ${args.join(' ')}`, async () => {
    const r = await cli(args);
    assert.strictEqual(r.code, 1);
    assert.match(r.stderr, re);
    assert.strictEqual(r.stderr.trim().split('\n').length, 1);
  });
}

test('cli: error rate above --max-error-rate exits 2', async (t) => {
  let n = 0;
  const srv = await startServer((req, res) => { res.statusCode = n++ % 2 ? 200 : 500; res.end('x\n'); });
  t.after(srv.close);
  const over = await cli(['--url', srv.url, '-n', '100', '--max-error-rate', '0.1', '--json']);
  assert.strictEqual(over.code, 2);
  assert.strictEqual(JSON.parse(over.stdout).errors_by_kind.status, 50);
  const under = await cli(['--url', srv.url, '-n', '100', '--max-error-rate', '0.6', '--json']);
  assert.strictEqual(under.code, 0);
});

test('cli: --seed N --seed-only posts only the missing ads, prints the id range, sends no load; exit 2 when seeding fails', async (t) => {
  const board = { ads: 3, posts: 0, hosts: new Set(), other: 0, failPosts: false };
  const srv = await startServer((req, res) => {
    board.hosts.add(req.headers.host);
    req.resume();
    req.on('end', () => {
      if (req.method === 'POST' && req.url === '/ads') {
        if (board.failPosts) { res.statusCode = 500; return res.end('database down\n'); }
        board.ads++; board.posts++; res.statusCode = 201; return res.end(`${board.ads}\n`);
      }
      if (req.method === 'GET' && req.url.startsWith('/ads?')) {
        res.setHeader('X-Total-Count', String(board.ads));
        return res.end(board.ads ? `${board.ads}\t1.00\tnewest\n` : '');
      }
      board.other++; res.statusCode = 404; res.end();
    });
  });
  t.after(srv.close);
  const r = await cli(['--url', srv.url, '--host', 'board.local', '--seed', '20', '--seed-only']);
  assert.strictEqual(r.code, 0, r.stderr);
  assert.strictEqual(r.stdout, 'seeded 17 ads, 20 in all; ids 1-20\n');
  assert.deepStrictEqual([board.posts, board.other, [...board.hosts]], [17, 0, ['board.local']]);
  const again = await cli(['--url', srv.url, '--seed', '10', '--seed-only', '--json']);
  assert.deepStrictEqual(JSON.parse(again.stdout), { url: srv.url, seeded: 0, total: 20, id_min: 11, id_max: 20 });
  board.failPosts = true;
  const failed = await cli(['--url', srv.url, '--seed', '25', '--seed-only']);
  assert.strictEqual(failed.code, 2);
  assert.strictEqual(failed.stderr, 'loadgen: seed: POST /ads answered 500: database down\n');
});

test('cli: --help exits 0 and lists options', async () => {
  const r = await cli(['--help']);
  assert.strictEqual(r.code, 0);
  assert.match(r.stdout, /--parallel N .*\[default: 10\]/);
});

test('cli: a closed stdout (a reader that went away) is no crash; the exit code stays', async (t) => {
  const srv = await startServer((req, res) => res.end('ok\n'));
  t.after(srv.close);
  const child = spawnNode('bin/loadgen.js', ['--url', srv.url, '-c', '2', '-n', '50', '--json']);
  child.stdout.destroy(); // closed long before the child has booted and written
  const r = await child.done;
  assert.strictEqual(r.code, 0, r.stderr);
  assert.doesNotMatch(r.stderr, /EPIPE|Unhandled/);
});

// A self-signed certificate for 127.0.0.1, made with openssl for this test.
function selfSignedCert(t) {
  const dir = fs.mkdtempSync('/tmp/cfscale-loadgen-test-tls-');
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  execFileSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '1', '-subj', '/CN=127.0.0.1',
    '-addext', 'subjectAltName=IP:127.0.0.1', '-keyout', `${dir}/key.pem`, '-out', `${dir}/cert.pem`], { stdio: 'ignore' });
  return { key: fs.readFileSync(`${dir}/key.pem`), cert: fs.readFileSync(`${dir}/cert.pem`) };
}

test('cli: https with keep-alive; a self-signed certificate is refused unless --insecure', async (t) => {
  const srv = https.createServer(selfSignedCert(t), (req, res) => res.end('ok\n'));
  let tlsConnections = 0;
  srv.on('secureConnection', () => { tlsConnections++; });
  await new Promise((r) => srv.listen(0, '127.0.0.1', r));
  t.after(() => { srv.closeAllConnections(); srv.close(); });
  const url = `https://127.0.0.1:${srv.address().port}/`;

  const refused = await cli(['--url', url, '-c', '2', '-n', '20', '--json', '--max-error-rate', '0']);
  assert.strictEqual(refused.code, 2, refused.stderr);
  const rj = JSON.parse(refused.stdout);
  assert.strictEqual(rj.requests.ok, 0);
  assert.strictEqual(rj.errors_by_kind.connect, rj.requests.total);

  tlsConnections = 0;
  const ok = await cli(['--url', url, '-c', '3', '-n', '300', '--json', '--insecure']);
  assert.strictEqual(ok.code, 0, ok.stderr);
  const oj = JSON.parse(ok.stdout);
  assert.strictEqual(oj.requests.ok, 300);
  assert.strictEqual(tlsConnections, 3, 'one TLS connection per parallel request, kept alive');
});

test('cli: --results-db --round persists every sample', async (t) => {
  const srv = await startServer((req, res) => { res.setHeader('X-Vcap-Request-Id', 'vcap-' + req.headers['x-correlation-id']); res.end('ok\n'); });
  t.after(srv.close);
  const db = await createDatabase(await testCluster());
  const [{ id }] = await query(db, `INSERT INTO rounds (start_at, platform, app, target_url, app_instances, loadgens, model, parallel, requests)
    VALUES (now(), 'local', 'cli', $1, 1, 1, 'closed', 4, 2000) RETURNING id`, [srv.url]);
  const spool = fs.mkdtempSync('/tmp/cfscale-loadgen-test-clispool-');
  t.after(() => fs.rmSync(spool, { recursive: true, force: true }));
  const r = await cli(['--url', srv.url, '-c', '4', '-n', '2000', '--json', '--results-db', db, '--round', String(id),
    '--loadgen-index', '3', '--spool-dir', spool]);
  assert.strictEqual(r.code, 0, r.stderr + r.stdout);
  const j = JSON.parse(r.stdout);
  assert.strictEqual(j.persisted.rows_loaded, 2000);
  const [row] = await query(db, `SELECT count(*)::int AS n, count(DISTINCT correlation_id)::int AS ids,
      min(loadgen_index) AS lo, max(loadgen_index) AS hi,
      count(*) FILTER (WHERE vcap_request_id = 'vcap-' || correlation_id::text)::int AS vcap
    FROM requests WHERE round_id = $1`, [id]);
  assert.deepStrictEqual(row, { n: 2000, ids: 2000, lo: 3, hi: 3, vcap: 2000 });
});

test('cli: on a TTY a live progress line goes to stderr', async (t) => {
  const srv = await startServer((req, res) => res.end('ok\n'));
  t.after(srv.close);
  // script(1) gives the CLI a terminal; its output is the terminal's.
  const cmd = `${process.execPath} ${ROOT}/bin/loadgen.js --url ${srv.url} --duration 2200ms -c 2`;
  const r = await new Promise((resolve) => {
    const child = spawn('script', ['-qec', cmd, '/dev/null'], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (d) => { out += d; });
    child.on('close', (code) => resolve({ code, out }));
  });
  assert.strictEqual(r.code, 0, r.out);
  assert.match(r.out, /\r +\d+s +\d+ req\/s +p50 /);
  assert.match(r.out, /Rate: +[\d.]+ req\/s/);
});
