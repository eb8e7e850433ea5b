#!/usr/bin/env node
'use strict';
// pg-cluster.js — a real, throw-away PostgreSQL cluster for the local platform and tests
// (scripts/pg-cluster.sh is its command-line name; callers parse the URL it prints).
//
// PostgreSQL refuses to run as root, so as root the cluster is owned by and run as the
// `postgres` user (runuser). The cluster listens on 127.0.0.1 only, with a generated
// superuser password (scram-sha-256) kept in DIR/password (mode 600); DIR/port holds the
// port. No npm dependencies: psql does the one query (createdb), so the script works
// before `npm ci` ran anywhere.

const crypto = require('node:crypto');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { spawnSync } = require('node:child_process');
const { isExecutable, findOnPath } = require('../../lib/process-checks');
const { pgTool } = require('../../lib/credentials');
const { parse, help, note, UsageError } = require('../../lib/arg-table');

// --tls: a database that needs a client certificate signed by DIR/tls/ca.crt (and a password).
const CLIENT_CERT_DB = 'cfscale_clientcert';

const DEFAULT_PORT = 55432;
const DEFAULT_MAX_CONNECTIONS = 400;

// The commands' flags (arg-table.js): the parser, the defaults and the help in one.
const USAGE = `Usage:
  scripts/pg-cluster.sh start --dir DIR [--port PORT] [--tls] [--max-connections N]
                                                        init if needed, start, print superuser URL
  scripts/pg-cluster.sh stop  --dir DIR                 fast shutdown (no-op when not running)
  scripts/pg-cluster.sh url   --dir DIR                 print superuser URL
  scripts/pg-cluster.sh status --dir DIR                exit 0 when running
  scripts/pg-cluster.sh createdb --dir DIR NAME         create database NAME if missing, print its URL
  scripts/pg-cluster.sh bindir                          print the directory of PostgreSQL's server
                                                        binaries (exit 1 when not installed)`;
const ABOUT = 'pg-cluster.sh — a real, throw-away PostgreSQL cluster for the local platform and tests.';
const ROWS = [
  ['--dir DIR', 'dir', 'str', note('(required but by bindir)'), "the cluster's directory"],
  ['--port PORT', 'port', 'int', note(`${DEFAULT_PORT}, or the one it had`), 'start: the port on 127.0.0.1', [1, 65535]],
  ['--tls', 'tls', 'bool', false, 'start: also serve TLS (see below)'],
  ['--max-connections N', 'maxConnections', 'int', note(`${DEFAULT_MAX_CONNECTIONS}, in its postgresql.conf`), 'start: the '
    + "server's max_connections for this start, e.g. 100 as a service plan caps it; a running cluster with another value "
    + 'is an error', [10, 10000]],
  ['--help', 'help', 'bool', '', 'this help'],
];
const ALIASES = { '-h': '--help' };
const NOTES = `PostgreSQL refuses to run as root, so as root the cluster is owned by and run as the
\`postgres\` user. The cluster listens on 127.0.0.1 only, with a generated superuser
password (scram-sha-256), kept in DIR/password (mode 600). DEBUG=1 traces.
--tls also serves TLS (plain connections still work): a CA generated with openssl in
DIR/tls/ca.crt signs a server certificate for DNS name localhost only (not 127.0.0.1),
so verify-full passes for host localhost and fails for 127.0.0.1 while verify-ca passes.
It also signs a client certificate (DIR/tls/client.crt, RSA key DIR/tls/client.key in
PKCS#1 PEM) and creates database ${CLIENT_CERT_DB}, which takes only TLS connections that
present a certificate the CA signed (pg_hba clientcert=verify-ca), as Cloud SQL does;
its name is in DIR/tls/client-cert-database.`;
const usage = () => help(USAGE, ABOUT, ROWS, { aliases: ALIASES, notes: NOTES });

const PG_USER = 'postgres';
const PG_CTL_TIMEOUT_SEC = 30; // pg_ctl -w waits at most this long for start / stop
const DB_NAME_RE = /^[a-z_][a-z0-9_-]{0,62}$/;
const COMMANDS = ['start', 'stop', 'url', 'status', 'createdb', 'bindir'];

/** A failure with its one-line message; the CLI prints "pg-cluster: MSG" and exits 1. */
class ClusterError extends Error {}

const isRoot = () => process.getuid() === 0;
const trace = (cmd, args) => {
  if (process.env.DEBUG === '1') process.stderr.write(`+ ${[cmd, ...args].join(' ')}\n`);
};

/** Run a command; stdio as given (default: capture stdout and stderr). */
function run(cmd, args, opts = {}) {
  trace(cmd, args);
  const r = spawnSync(cmd, args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], ...opts });
  if (r.error) throw new ClusterError(`${cmd}: ${r.error.message}`);
  return r;
}

/**
 * Run a command as the cluster owner: postgres when we are root, else ourselves. As postgres
 * it starts in `/`: initdb and pg_ctl change back to the directory they started in, which
 * postgres may not enter (a checkout under /root, mode 700).
 */
function runAsOwner(cmd, args, opts) {
  return isRoot() ? run('runuser', ['-u', PG_USER, '--', cmd, ...args], { cwd: '/', ...opts }) : run(cmd, args, opts);
}

/** The directory holding pg_ctl and initdb: the Debian layout first, else PATH. */
function pgBindir() {
  let versions = [];
  try { versions = fs.readdirSync('/usr/lib/postgresql'); } catch { /* not Debian's layout */ }
  for (const v of versions.sort()) {
    const d = path.join('/usr/lib/postgresql', v, 'bin');
    if (isExecutable(path.join(d, 'pg_ctl'))) return d;
  }
  const onPath = findOnPath('pg_ctl');
  if (onPath) return onPath;
  throw new ClusterError('PostgreSQL server binaries (pg_ctl, initdb) not found; install postgresql');
}

function ownerUid() {
  const r = run('id', ['-u', PG_USER]);
  if (r.status !== 0) throw new ClusterError(`no ${PG_USER} user to run PostgreSQL as (we are root): install postgresql`);
  return Number(r.stdout.trim());
}

/** Like `realpath -m`: symlinks of the existing part resolved, the rest appended. */
function absoluteDir(dir) {
  const abs = path.resolve(dir);
  const rest = [];
  let head = abs;
  for (;;) {
    try { return path.join(fs.realpathSync(head), ...rest); } catch { /* not there yet */ }
    const parent = path.dirname(head);
    if (parent === head) return abs;
    rest.unshift(path.basename(head));
    head = parent;
  }
}

function readTrimmed(file, what, dir) {
  try {
    return fs.readFileSync(file, 'utf8').replace(/\n+$/, '');
  } catch {
    throw new ClusterError(`no cluster in ${dir} (${what} missing): start it first`);
  }
}

/**
 * ": CAUSE" from a log, for a one-line error ('' without one): of what was written after
 * byte `from`, the first line saying FATAL, PANIC, "error:" or "could not", else the last.
 */
function logCause(file, from = 0) {
  let text = '';
  try { text = fs.readFileSync(file).subarray(from).toString('utf8'); } catch { return ''; }
  const lines = text.split('\n').map((l) => l.trim()).filter(Boolean);
  const line = lines.find((l) => /FATAL|PANIC|error:|could not/.test(l)) || lines.pop();
  return line ? `: ${line}` : '';
}

const fileSize = (f) => { try { return fs.statSync(f).size; } catch { return 0; } };

/** The superuser URL of the cluster in DIR, for database DB. */
function clusterUrl(dir, db = 'postgres') {
  const password = readTrimmed(path.join(dir, 'password'), 'password', dir);
  const port = readTrimmed(path.join(dir, 'port'), 'port', dir);
  return `postgres://postgres:${password}@127.0.0.1:${port}/${db}`;
}

function isRunning(dir) {
  if (!fs.existsSync(path.join(dir, 'data', 'PG_VERSION'))) return false;
  return runAsOwner(path.join(pgBindir(), 'pg_ctl'), ['-D', path.join(dir, 'data'), 'status'], { stdio: 'ignore' }).status === 0;
}

/** 18 random bytes as base64 without / + = (what `head -c 18 /dev/urandom | base64` gave). */
const randomPassword = () => crypto.randomBytes(18).toString('base64').replace(/[/+=]/g, '');

function initCluster(dir, port) {
  fs.mkdirSync(dir, { recursive: true });
  const pwFile = path.join(dir, 'password');
  if (!fs.existsSync(pwFile)) fs.writeFileSync(pwFile, `${randomPassword()}\n`, { mode: 0o600 });
  fs.writeFileSync(path.join(dir, 'port'), `${port}\n`);
  const uid = isRoot() ? ownerUid() : null;
  if (uid !== null) {
    fs.chownSync(dir, uid, -1);
    fs.chmodSync(dir, 0o700);
  }
  if (fs.existsSync(path.join(dir, 'data', 'PG_VERSION'))) return;
  // initdb reads the password from a file the owner can read, outside DIR's data.
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'pg-cluster-'));
  const tmpPw = path.join(tmp, 'pw');
  try {
    fs.copyFileSync(pwFile, tmpPw);
    if (uid !== null) { fs.chownSync(tmp, uid, -1); fs.chownSync(tmpPw, uid, -1); }
    const log = fs.openSync(path.join(dir, 'initdb.log'), 'w');
    let r;
    try {
      r = runAsOwner(path.join(pgBindir(), 'initdb'), ['-D', path.join(dir, 'data'), '-U', 'postgres', `--pwfile=${tmpPw}`,
        '--auth-local=scram-sha-256', '--auth-host=scram-sha-256', '-E', 'UTF8', '--locale=C.UTF-8'],
      { stdio: ['ignore', log, log] });
    } finally {
      fs.closeSync(log);
    }
    if (r.status !== 0) throw new ClusterError(`initdb failed, see ${dir}/initdb.log${logCause(path.join(dir, 'initdb.log'))}`);
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
  fs.appendFileSync(path.join(dir, 'data', 'postgresql.conf'), [
    "listen_addresses = '127.0.0.1'",
    `port = ${port}`,
    `unix_socket_directories = '${dir}'`,
    `max_connections = ${DEFAULT_MAX_CONNECTIONS}`,
    'shared_buffers = 256MB',
    'fsync = on',
    'synchronous_commit = off',
    'logging_collector = off',
    '',
  ].join('\n'));
}

function openssl(args, cwd) {
  const r = run('openssl', args, { cwd });
  if (r.status !== 0) throw new ClusterError(`openssl ${args[0]} failed: ${r.stderr.trim().split('\n').pop()}`);
}

/**
 * DIR/tls: a test CA and a server certificate it signs for DNS:localhost, and the lines
 * that make the server use them (in postgresql.conf once). Idempotent.
 */
function enableTls(dir) {
  const tls = path.join(dir, 'tls');
  fs.mkdirSync(tls, { recursive: true });
  if (!fs.existsSync(path.join(tls, 'server.crt'))) {
    const ec = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];
    openssl(['req', '-x509', ...ec, '-keyout', 'ca.key', '-out', 'ca.crt', '-days', '3650', '-subj', '/CN=cfscale test CA'], tls);
    openssl(['req', ...ec, '-keyout', 'server.key', '-out', 'server.csr', '-subj', '/CN=localhost'], tls);
    fs.writeFileSync(path.join(tls, 'server.ext'), 'subjectAltName=DNS:localhost\n');
    openssl(['x509', '-req', '-in', 'server.csr', '-CA', 'ca.crt', '-CAkey', 'ca.key', '-CAcreateserial',
      '-out', 'server.crt', '-days', '3650', '-extfile', 'server.ext'], tls);
    fs.chmodSync(path.join(tls, 'server.key'), 0o600);
    if (isRoot()) for (const f of ['.', 'server.crt', 'server.key']) fs.chownSync(path.join(tls, f), ownerUid(), -1);
  }
  if (!fs.existsSync(path.join(tls, 'client.crt'))) {
    // RSA in PKCS#1 PEM ("BEGIN RSA PRIVATE KEY"), the shape Cloud SQL hands out.
    openssl(['genrsa', '-traditional', '-out', 'client.key', '2048'], tls);
    openssl(['req', '-new', '-key', 'client.key', '-out', 'client.csr', '-subj', '/CN=cfscale test client'], tls);
    openssl(['x509', '-req', '-in', 'client.csr', '-CA', 'ca.crt', '-CAkey', 'ca.key', '-CAcreateserial',
      '-out', 'client.crt', '-days', '3650'], tls);
    fs.chmodSync(path.join(tls, 'client.key'), 0o600);
  }
  let changed = false;
  const conf = path.join(dir, 'data', 'postgresql.conf');
  if (!fs.readFileSync(conf, 'utf8').includes('# cfscale --tls')) {
    fs.appendFileSync(conf, ['# cfscale --tls', 'ssl = on', `ssl_cert_file = '${tls}/server.crt'`,
      `ssl_key_file = '${tls}/server.key'`, ''].join('\n'));
    changed = true;
  }
  if (!fs.readFileSync(conf, 'utf8').includes('# cfscale --tls client certificates')) {
    // Clients may present a certificate anywhere; CLIENT_CERT_DB takes no connection without one.
    fs.appendFileSync(conf, ['# cfscale --tls client certificates', `ssl_ca_file = '${tls}/ca.crt'`, ''].join('\n'));
    const hba = path.join(dir, 'data', 'pg_hba.conf');
    fs.writeFileSync(hba, [`hostssl ${CLIENT_CERT_DB} all 127.0.0.1/32 scram-sha-256 clientcert=verify-ca`,
      `host ${CLIENT_CERT_DB} all all reject`, fs.readFileSync(hba, 'utf8')].join('\n'));
    changed = true;
  }
  return changed;
}

/**
 * Init the cluster in DIR if needed, start it unless running; the superuser URL.
 * Without an explicit port a cluster keeps the port it was created with. tls: also serve
 * TLS with DIR/tls/ca.crt's server certificate (a running cluster reloads its settings).
 * @param {string} dir absolute
 * maxConnections: max_connections for this start (a running cluster must have it).
 * @param {{port?: number|string, tls?: boolean, maxConnections?: number}} [opts]
 */
function start(dir, { port, tls = false, maxConnections } = {}) {
  let p = port === undefined ? DEFAULT_PORT : port;
  const portFile = path.join(dir, 'port');
  if (port === undefined && fs.existsSync(portFile)) p = readTrimmed(portFile, 'port', dir);
  initCluster(dir, p);
  const tlsAdded = tls && enableTls(dir);
  if (tlsAdded && isRunning(dir)) {
    const r = runAsOwner(path.join(pgBindir(), 'pg_ctl'), ['-D', path.join(dir, 'data'), 'reload'], { stdio: 'ignore' });
    if (r.status !== 0) throw new ClusterError(`reload for --tls failed, see ${dir}/server.log`);
  }
  if (!isRunning(dir)) {
    // stdout is the URL only; pg_ctl's own words are replaced by the cause from the log.
    const log = path.join(dir, 'server.log');
    const logFrom = fileSize(log);
    const opts = maxConnections === undefined ? `-p ${p}` : `-p ${p} -c max_connections=${maxConnections}`;
    const r = runAsOwner(path.join(pgBindir(), 'pg_ctl'), ['-D', path.join(dir, 'data'), '-l', log,
      '-w', '-t', String(PG_CTL_TIMEOUT_SEC), '-o', opts, 'start'], { stdio: 'ignore' });
    if (r.status !== 0) throw new ClusterError(`start failed, see ${log}${logCause(log, logFrom)}`);
  } else if (maxConnections !== undefined) {
    const running = psql(clusterUrl(dir), 'SHOW max_connections');
    if (running !== String(maxConnections)) {
      throw new ClusterError(`cluster in ${dir} runs with max_connections ${running}, not ${maxConnections}: stop it first`);
    }
  }
  if (tls) {
    createdb(dir, CLIENT_CERT_DB);
    fs.writeFileSync(path.join(dir, 'tls', 'client-cert-database'), `${CLIENT_CERT_DB}\n`);
  }
  return clusterUrl(dir);
}

/** Fast shutdown; nothing to do when the cluster is not running. */
function stop(dir) {
  if (!isRunning(dir)) return;
  const r = runAsOwner(path.join(pgBindir(), 'pg_ctl'), ['-D', path.join(dir, 'data'), '-m', 'fast', '-w',
    '-t', String(PG_CTL_TIMEOUT_SEC), 'stop'], { stdio: ['ignore', 'ignore', 'inherit'] });
  if (r.status !== 0) throw new ClusterError(`stop failed (pg_ctl exit ${r.status}), see ${dir}/server.log`);
}

function psql(url, sql) {
  // Its arguments are visible to every user (ps): the password goes in its environment.
  const { conninfo, env } = pgTool(url);
  const r = run('psql', [conninfo, '-Atqc', sql], { env: { ...process.env, ...env } });
  if (r.status !== 0) throw new ClusterError(`psql failed: ${r.stderr.trim().split('\n').pop()}`);
  return r.stdout.trim();
}

/** Create database NAME unless it exists; its URL. */
function createdb(dir, name) {
  if (!DB_NAME_RE.test(name)) throw new ClusterError(`bad database name: ${name}`);
  if (!isRunning(dir)) throw new ClusterError(`cluster in ${dir} is not running`);
  const url = clusterUrl(dir);
  const exists = () => psql(url, `SELECT 1 FROM pg_database WHERE datname = '${name}'`) !== '';
  if (!exists()) {
    try {
      psql(url, `CREATE DATABASE "${name}"`);
    } catch (err) {
      if (!exists()) throw err; // else another caller created it meanwhile: fine
    }
  }
  return clusterUrl(dir, name);
}

/** argv → {cmd, dir, port, name, tls, maxConnections} or {help: true}; throws ClusterError on bad input. */
function parseArgs(argv) {
  if (!argv.length) return { usageError: true };
  let opts;
  try {
    opts = parse(argv, ROWS, { aliases: ALIASES, positionals: 2 });
  } catch (err) {
    throw err instanceof UsageError ? new ClusterError(err.message) : err;
  }
  const [cmd, name = ''] = opts._;
  if (opts.help || cmd === 'help') return { help: true };
  Object.assign(opts, { cmd, name });
  if (cmd === 'bindir') return opts;
  if (!opts.dir) throw new ClusterError('--dir is required');
  opts.dir = absoluteDir(opts.dir);
  return opts;
}

/** The CLI: prints what pg-cluster.sh printed; the exit code. */
function main(argv) {
  try {
    const o = parseArgs(argv);
    if (o.usageError) { process.stderr.write(usage()); return 1; }
    if (o.help) { process.stdout.write(usage()); return 0; }
    switch (o.cmd) {
      case 'start': process.stdout.write(`${start(o.dir, { port: o.port, tls: o.tls, maxConnections: o.maxConnections })}\n`); return 0;
      case 'stop': stop(o.dir); return 0;
      case 'url': process.stdout.write(`${clusterUrl(o.dir)}\n`); return 0;
      case 'status': return isRunning(o.dir) ? 0 : 1;
      case 'bindir': process.stdout.write(`${pgBindir()}\n`); return 0;
      case 'createdb':
        if (!o.name) throw new ClusterError('createdb needs a NAME');
        process.stdout.write(`${createdb(o.dir, o.name)}\n`);
        return 0;
      default: throw new ClusterError(`unknown command: ${o.cmd} (${COMMANDS.join(', ')})`);
    }
  } catch (err) {
    if (!(err instanceof ClusterError)) throw err;
    process.stderr.write(`pg-cluster: ${err.message}\n`);
    return 1;
  }
}

if (require.main === module) process.exitCode = main(process.argv.slice(2));

module.exports = { CLIENT_CERT_DB, start, stop, isRunning, clusterUrl, createdb, pgBindir, ClusterError, DEFAULT_PORT };
