'use strict';
// scripts/pg-cluster.sh (→ local/pg-cluster.js) as its callers use it: the usage errors
// (one line, exit 1), help, and a real cluster in a temp dir on a free port in
// the scripts' range of ports.json: start prints only the URL, status, createdb (twice), url, stop, a restart
// keeping its port, and as root a cluster owned by postgres.

const test = require('node:test');
const assert = require('node:assert/strict');
const { spawnSync } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { randomFreePort, portRange } = require('../../lib/ports');
const { pgTool } = require('../../lib/credentials');

const OWN_PORTS = portRange('local-platform');

const PG_CLUSTER = path.resolve(__dirname, '..', '..', 'scripts', 'pg-cluster.sh');
const URL_RE = /^postgres:\/\/postgres:[A-Za-z0-9]{16,}@127\.0\.0\.1:(\d+)\/([a-z0-9_-]+)\n$/;

function pgc(args) {
  const r = spawnSync(PG_CLUSTER, args, { encoding: 'utf8', timeout: 90000 });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

// The password in psql's environment, as the platform runs it (lib/credentials.js).
function psql(url, sql) {
  const { conninfo, env } = pgTool(url);
  const r = spawnSync('psql', [conninfo, '-Atqc', sql], { encoding: 'utf8', env: { ...process.env, ...env, PGCONNECT_TIMEOUT: '5' } });
  return r.status === 0 ? r.stdout.trim() : `psql failed: ${r.stderr.trim()}`;
}

let tmp;
test.before(() => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'cfscale-port-tunnel-pg-'));
  fs.chmodSync(tmp, 0o755); // as root the cluster runs as postgres, which must reach DIR
});
test.after(() => {
  pgc(['stop', '--dir', path.join(tmp, 'pg')]);
  fs.rmSync(tmp, { recursive: true, force: true });
});

test('bad arguments: one line on stderr, exit 1, nothing on stdout', async (t) => {
  const none = () => path.join(tmp, 'none');
  const cases = [
    [['start'], /^pg-cluster: --dir is required$/],
    [['start', '--dir'], /^pg-cluster: --dir needs a value$/],
    [['start', '--dir', 'x', '--port', 'abc'], /^pg-cluster: --port must be an integer from 1 to 65535, got "abc"$/],
    [['start', '--bogus'], /^pg-cluster: unknown option: --bogus$/],
    [['start', '--dir', 'x', '--max-connections', '5'], /^pg-cluster: --max-connections must be an integer from 10 to 10000, got "5"$/],
    [['frob', '--dir', 'x'], /^pg-cluster: unknown command: frob \(start, stop, url, status, createdb, bindir\)$/],
    [['createdb', '--dir', 'x'], /^pg-cluster: createdb needs a NAME$/],
    [['createdb', '--dir', 'x', 'Bad!'], /^pg-cluster: bad database name: Bad!$/],
    [['createdb', '--dir', none(), 'fine'], /^pg-cluster: cluster in \/.* is not running$/],
    [['url', '--dir', none()], /^pg-cluster: no cluster in \/.*none \(password missing\): start it first$/],
  ];
  for (const [args, msg] of cases) {
    await t.test(args.join(' '), () => {
      const r = pgc(args);
      assert.equal(r.code, 1, r.err);
      assert.equal(r.out, '');
      assert.match(r.err.trimEnd(), msg);
      assert.equal(r.err.trimEnd().split('\n').length, 1, r.err);
    });
  }
});

test('no command: the usage on stderr, exit 1; --help / help: on stdout, exit 0', async (t) => {
  const r = pgc([]);
  assert.equal(r.code, 1);
  assert.match(r.err, /^Usage:$/m);
  for (const args of [['--help'], ['help'], ['start', '-h']]) {
    await t.test(args.join(' '), () => {
      const h = pgc(args);
      assert.equal(h.code, 0, h.err);
      assert.match(h.out, /scripts\/pg-cluster\.sh createdb --dir DIR NAME/);
    });
  }
});

test('status and stop without a cluster: not running (exit 1), stop is a no-op (exit 0)', () => {
  const dir = path.join(tmp, 'never');
  assert.equal(pgc(['status', '--dir', dir]).code, 1);
  const stop = pgc(['stop', '--dir', dir]);
  assert.equal(stop.code, 0, stop.err);
  assert.equal(stop.out, '');
});

test('bindir: the directory of PostgreSQL\'s server binaries (what a fresh machine may lack)', () => {
  const r = pgc(['bindir']);
  assert.equal(r.code, 0, r.err);
  assert.ok(fs.existsSync(path.join(r.out.trim(), 'pg_ctl')), r.out);
});

test('a real cluster: start, status, createdb, url, stop, restart on its stored port', async () => {
  const dir = path.join(tmp, 'pg');
  const port = await randomFreePort(...OWN_PORTS);

  const start = pgc(['start', '--dir', dir, '--port', String(port)]);
  assert.equal(start.code, 0, start.err);
  const m = URL_RE.exec(start.out);
  assert.ok(m, `stdout is exactly the URL: ${JSON.stringify(start.out)}`);
  assert.deepEqual([m[1], m[2]], [String(port), 'postgres']);
  const url = start.out.trim();
  assert.equal(psql(url, 'SELECT 1'), '1');
  assert.equal(psql(url, 'SHOW max_connections'), '400');
  assert.equal(fs.statSync(path.join(dir, 'password')).mode & 0o777, 0o600);
  if (process.getuid() === 0) {
    assert.equal(psql(url, "SELECT current_setting('data_directory')"), path.join(dir, 'data'));
    const owner = spawnSync('stat', ['-c', '%U', path.join(dir, 'data')], { encoding: 'utf8' }).stdout.trim();
    assert.equal(owner, 'postgres', 'as root the cluster belongs to postgres');
  }

  assert.equal(pgc(['status', '--dir', dir]).code, 0);
  assert.equal(pgc(['start', '--dir', dir, '--port', String(port)]).out, start.out, 'start again: same URL');
  assert.equal(pgc(['url', '--dir', dir]).out, start.out);

  for (let i = 0; i < 2; i++) {
    const c = pgc(['createdb', '--dir', dir, 'cfscale_pgc-1']);
    assert.equal(c.code, 0, c.err);
    assert.equal(c.out, start.out.replace(/\/postgres\n$/, '/cfscale_pgc-1\n'), `createdb #${i + 1}`);
  }
  assert.equal(psql(start.out.trim().replace(/\/postgres$/, '/cfscale_pgc-1'), 'SELECT current_database()'), 'cfscale_pgc-1');

  const stop = pgc(['stop', '--dir', dir]);
  assert.equal(stop.code, 0, stop.err);
  assert.equal(stop.out, '');
  assert.equal(pgc(['status', '--dir', dir]).code, 1);
  assert.match(psql(url, 'SELECT 1'), /^psql failed/);

  const again = pgc(['start', '--dir', dir]);
  assert.equal(again.code, 0, again.err);
  assert.equal(again.out, start.out, 'without --port the cluster keeps its port and password');
  assert.equal(psql(url, 'SELECT 1'), '1');
  assert.equal(pgc(['stop', '--dir', dir]).code, 0);

  // --max-connections: a service plan's cap for this start; a running cluster must match it.
  const capped = pgc(['start', '--dir', dir, '--max-connections', '100']);
  assert.equal(capped.code, 0, capped.err);
  assert.equal(psql(url, 'SHOW max_connections'), '100');
  assert.equal(pgc(['start', '--dir', dir, '--max-connections', '100']).code, 0, 'running with that value: fine');
  const other = pgc(['start', '--dir', dir, '--max-connections', '50']);
  assert.equal(other.code, 1);
  assert.match(other.err.trimEnd(), /^pg-cluster: cluster in \/.* runs with max_connections 100, not 50: stop it first$/);
  assert.equal(pgc(['stop', '--dir', dir]).code, 0);
});

test('start failures name their cause in one line: a busy port, a DIR postgres cannot reach', async (t) => {
  await t.test('busy port', async () => {
    const net = require('node:net');
    const busy = net.createServer().listen(await randomFreePort(...OWN_PORTS), '127.0.0.1');
    await new Promise((r) => busy.once('listening', r));
    const dir = path.join(tmp, 'busy');
    try {
      const r = pgc(['start', '--dir', dir, '--port', String(busy.address().port)]);
      assert.equal(r.code, 1);
      assert.equal(r.out, '');
      assert.match(r.err.trimEnd(), new RegExp(`^pg-cluster: start failed, see ${dir}/server\\.log: .*could not bind.*Address already in use$`));
      assert.equal(pgc(['status', '--dir', dir]).code, 1);
    } finally {
      busy.close();
      pgc(['stop', '--dir', dir]);
    }
  });
  await t.test('as root, a DIR under a directory only root may enter', { skip: process.getuid() !== 0 && 'needs root' }, () => {
    const closed = fs.mkdtempSync(path.join(os.tmpdir(), 'cfscale-port-tunnel-closed-'));
    try {
      const r = pgc(['start', '--dir', path.join(closed, 'pg'), '--port', String(OWN_PORTS[1])]);
      assert.equal(r.code, 1);
      assert.match(r.err.trimEnd(), /^pg-cluster: initdb failed, see \S+\/initdb\.log: initdb: error: .*Permission denied$/);
    } finally {
      fs.rmSync(closed, { recursive: true, force: true });
    }
  });
});
