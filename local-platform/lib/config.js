// config.js — the local platform's settings, read once from the environment and validated.
// Every CFSCALE_* variable is documented (default, unit) in local-platform/README.md.
'use strict';

const os = require('node:os');
const path = require('node:path');
const crypto = require('node:crypto');
const fs = require('node:fs');
const { splitCpus, onlineCpus } = require('./cells');

const REPO_ROOT = path.resolve(__dirname, '..', '..');

// name → [default, kind]; kinds: port, number, string.
const DEFAULTS = {
  CFSCALE_HOME: [path.join(REPO_ROOT, '.state', 'local'), 'string'],
  CFSCALE_ROUTER_PORT: [8888, 'port'],
  // The router's HTTPS listener (self-signed), as Gorouter's TLS port on a dev foundation.
  CFSCALE_ROUTER_TLS_PORT: [4443, 'port'],
  // Cloud Controller v3 + UAA token endpoint for the real cf CLI (cc-api/).
  CFSCALE_API_PORT: [8889, 'port'],
  CFSCALE_PG_PORT: [54320, 'port'],
  CFSCALE_INSTANCE_PORT_BASE: [61000, 'port'],
  // CF hands out CPU shares in proportion to memory (docs/cf-platform.md §7);
  // locally the default quota is memory GB × this, in cores.
  CFSCALE_CPU_PER_GB: [1.0, 'number'],
  // quota: a hard CFS quota per instance (default); shares: CF's cpu.shares, no quota.
  CFSCALE_CPU_MODE: ['quota', 'string'],
  // CFS period of the quota: the kernel's 100 ms. A throttled instance waits for the next
  // period (0.05 core = 5 ms of CPU, then 95 ms throttled), but shorter periods spread every
  // longer burst of work over many of them: measured closest to CF's shares
  // (bench/rounds/cfs-period.sh, local-platform/README.md).
  CFSCALE_CPU_PERIOD_US: [100000, 'number'],
  // Diego waits 10 s between SIGTERM and SIGKILL (docs/cf-platform.md §4).
  CFSCALE_GRACEFUL_SHUTDOWN_SEC: [10, 'number'],
  CFSCALE_STATS_INTERVAL_MS: [1000, 'number'],
  CFSCALE_CGROUP_ROOT: ['/sys/fs/cgroup', 'string'],
  // TLS-terminating front proxies in front of the router (front-proxy.js; study §5.2.3):
  // how many at start (0 = off; `cfl front-proxies -n N` changes it), the first one's port,
  // and each one's CPU quota in cores, like a small proxy VM.
  CFSCALE_FRONT_PROXIES: [0, 'number'],
  CFSCALE_FRONT_PROXY_PORT_BASE: [8443, 'port'],
  CFSCALE_FRONT_PROXY_CPU: [0.25, 'number'],
  // The local org's quota (quota.js, docs/cf-platform.md §17), sized from this machine: its
  // memory in MB, and 64 instances per core (each instance is a process on these cores).
  // Instance ports run from CFSCALE_INSTANCE_PORT_BASE, one per instance the quota allows.
  CFSCALE_QUOTA_MEMORY_MB: [Math.floor(os.totalmem() / (1024 * 1024)), 'number'],
  CFSCALE_QUOTA_INSTANCES: [64 * os.cpus().length, 'number'],
  // The cells (cells.js): the CPUs of the system under test, a list like 1 or 2-3 ('' = the
  // upper half of the online CPUs, 'off' = none); the harness gets the rest. The apps that are
  // the harness (comma-separated names) run in its cell, every other app in the SUT's; an app
  // database's backends go where the apps bound to it run: 'sut', or 'harness' to keep every
  // database beside the results database.
  CFSCALE_SUT_CPUS: ['', 'string'],
  CFSCALE_HARNESS_APPS: ['loadgen,chisel', 'string'],
  CFSCALE_APP_DB_CELL: ['sut', 'string'],
  // Whether `cfl cells --shield` moves the machine's other processes off the SUT's CPUs while
  // a round measures ('on'), or answers and moves nothing ('off': the test suite, whose lanes
  // run side by side, turns it off so that one lane's round does not crowd the others).
  CFSCALE_SHIELD: ['on', 'string'],
};

// A proxy per port from CFSCALE_FRONT_PROXY_PORT_BASE; more than this would be a typo.
const MAX_FRONT_PROXIES = 16;

// The ports of a platform. Under scripts/test.sh (CFSCALE_PIN_PORTS=1) a platform must be
// given each of them: a default would meet the user's own platform on this machine.
const PORT_VARIABLES = ['CFSCALE_ROUTER_PORT', 'CFSCALE_ROUTER_TLS_PORT', 'CFSCALE_API_PORT', 'CFSCALE_PG_PORT', 'CFSCALE_INSTANCE_PORT_BASE',
  'CFSCALE_FRONT_PROXY_PORT_BASE'];

// As root, PostgreSQL runs as postgres, which cannot enter a home under a directory only root
// may enter (a clone in /root). Its data then goes here, one directory per CFSCALE_HOME,
// and the user's directories keep their permissions.
const OUTSIDE_PG_ROOT = '/var/lib/cfscale';

function readValue(env, name) {
  const [def, kind] = DEFAULTS[name];
  const raw = env[name];
  if (raw === undefined || raw === '') return def;
  if (kind === 'string') return raw;
  const n = Number(raw);
  if (!Number.isFinite(n) || n < 0) throw new Error(`${name} must be a non-negative number, got "${raw}"`);
  if (kind === 'port' && (!Number.isInteger(n) || n < 1 || n > 65535)) {
    throw new Error(`${name} must be a port number 1-65535, got "${raw}"`);
  }
  return n;
}

/** The uid and gids of a user from /etc/passwd and /etc/group, or null. */
function userIds(name) {
  try {
    const pw = fs.readFileSync('/etc/passwd', 'utf8').split('\n').map((l) => l.split(':')).find((f) => f[0] === name);
    if (!pw) return null;
    const gids = new Set([Number(pw[3])]);
    for (const f of fs.readFileSync('/etc/group', 'utf8').split('\n').map((l) => l.split(':'))) {
      if ((f[3] || '').split(',').includes(name)) gids.add(Number(f[2]));
    }
    return { uid: Number(pw[2]), gids };
  } catch {
    return null;
  }
}

/** Whether user `ids` may pass through every existing directory above and at dir (search bit). */
function canEnter(ids, dir) {
  for (let d = path.resolve(dir); ; d = path.dirname(d)) {
    let st = null;
    try { st = fs.statSync(d); } catch { /* not made yet: its parent decides */ }
    if (st) {
      const bit = st.uid === ids.uid ? 0o100 : ids.gids.has(st.gid) ? 0o010 : 0o001;
      if (!(st.mode & bit)) return false;
    }
    if (d === path.dirname(d)) return true;
  }
}

/**
 * The platform PostgreSQL's directory: HOME/pg, or as root, when postgres cannot reach HOME,
 * OUTSIDE_PG_ROOT/<home hash>/pg. The platform opens HOME itself to 0711 (platform.js boot),
 * so only the directories above it decide. A cluster already made in either place stays there.
 */
function pgDirOf(home, homeHash, isRoot = process.getuid?.() === 0) {
  const inside = path.join(home, 'pg');
  const outside = path.join(OUTSIDE_PG_ROOT, homeHash, 'pg');
  if (!isRoot || fs.existsSync(path.join(inside, 'data'))) return inside;
  if (fs.existsSync(path.join(outside, 'data'))) return outside;
  const ids = userIds('postgres');
  return !ids || canEnter(ids, path.dirname(home)) ? inside : outside;
}

/** Under CFSCALE_PIN_PORTS=1 (scripts/test.sh), a platform about to start must have every port set. */
function requirePinnedPorts(env = process.env) {
  if (env.CFSCALE_PIN_PORTS !== '1') return;
  const unset = PORT_VARIABLES.filter((name) => !env[name]);
  if (unset.length) throw new Error(`${unset.join(', ')} not set: under scripts/test.sh a platform pins every port (ports.json), never the defaults a user's own platform has`);
}

function loadConfig(env = process.env) {
  const home = path.resolve(readValue(env, 'CFSCALE_HOME'));
  const cfg = {
    home,
    routerPort: readValue(env, 'CFSCALE_ROUTER_PORT'),
    routerTlsPort: readValue(env, 'CFSCALE_ROUTER_TLS_PORT'),
    apiPort: readValue(env, 'CFSCALE_API_PORT'),
    pgPort: readValue(env, 'CFSCALE_PG_PORT'),
    instancePortBase: readValue(env, 'CFSCALE_INSTANCE_PORT_BASE'),
    cpuPerGb: readValue(env, 'CFSCALE_CPU_PER_GB'),
    cpuMode: readValue(env, 'CFSCALE_CPU_MODE'),
    cpuPeriodUs: readValue(env, 'CFSCALE_CPU_PERIOD_US'),
    gracefulShutdownSec: readValue(env, 'CFSCALE_GRACEFUL_SHUTDOWN_SEC'),
    statsIntervalMs: readValue(env, 'CFSCALE_STATS_INTERVAL_MS'),
    cgroupRoot: readValue(env, 'CFSCALE_CGROUP_ROOT'),
    frontProxies: readValue(env, 'CFSCALE_FRONT_PROXIES'),
    frontProxyPortBase: readValue(env, 'CFSCALE_FRONT_PROXY_PORT_BASE'),
    frontProxyCpu: readValue(env, 'CFSCALE_FRONT_PROXY_CPU'),
    quotaMemoryMb: readValue(env, 'CFSCALE_QUOTA_MEMORY_MB'),
    quotaInstances: readValue(env, 'CFSCALE_QUOTA_INSTANCES'),
    harnessApps: readValue(env, 'CFSCALE_HARNESS_APPS').split(',').map((s) => s.trim()).filter(Boolean),
    appDbCell: readValue(env, 'CFSCALE_APP_DB_CELL'),
    shield: readValue(env, 'CFSCALE_SHIELD'),
    repoRoot: REPO_ROOT,
    // Short hash of the home dir: cgroup names of two CFSCALE_HOMEs never collide.
    homeHash: crypto.createHash('sha1').update(home).digest('hex').slice(0, 8),
  };
  if (cfg.statsIntervalMs < 100) throw new Error(`CFSCALE_STATS_INTERVAL_MS must be >= 100, got ${cfg.statsIntervalMs}`);
  if (!['quota', 'shares'].includes(cfg.cpuMode)) throw new Error(`CFSCALE_CPU_MODE must be quota or shares, got "${cfg.cpuMode}"`);
  if (!Number.isInteger(cfg.cpuPeriodUs) || cfg.cpuPeriodUs < 1000 || cfg.cpuPeriodUs > 1000000) {
    throw new Error(`CFSCALE_CPU_PERIOD_US must be an integer from 1000 to 1000000, got ${cfg.cpuPeriodUs}`);
  }
  if (!Number.isInteger(cfg.frontProxies) || cfg.frontProxies > MAX_FRONT_PROXIES) {
    throw new Error(`CFSCALE_FRONT_PROXIES must be an integer from 0 to ${MAX_FRONT_PROXIES}, got ${cfg.frontProxies}`);
  }
  if (cfg.frontProxyCpu < 0.01) throw new Error(`CFSCALE_FRONT_PROXY_CPU must be >= 0.01 cores, got ${cfg.frontProxyCpu}`);
  for (const [name, v] of [['CFSCALE_QUOTA_MEMORY_MB', cfg.quotaMemoryMb], ['CFSCALE_QUOTA_INSTANCES', cfg.quotaInstances]]) {
    if (!Number.isInteger(v) || v < 1) throw new Error(`${name} must be a positive integer, got ${v}`);
  }
  if (cfg.instancePortBase + cfg.quotaInstances > 65536) {
    throw new Error(`CFSCALE_INSTANCE_PORT_BASE ${cfg.instancePortBase} + CFSCALE_QUOTA_INSTANCES ${cfg.quotaInstances} ports pass 65535`);
  }
  if (!['sut', 'harness'].includes(cfg.appDbCell)) throw new Error(`CFSCALE_APP_DB_CELL must be sut or harness, got "${cfg.appDbCell}"`);
  if (!['on', 'off'].includes(cfg.shield)) throw new Error(`CFSCALE_SHIELD must be on or off, got "${cfg.shield}"`);
  cfg.cells = splitCpus(readValue(env, 'CFSCALE_SUT_CPUS'), onlineCpus());
  if (cfg.cpuPerGb <= 0) throw new Error(`CFSCALE_CPU_PER_GB must be > 0, got ${cfg.cpuPerGb}`);
  cfg.socketPath = path.join(home, 'cfl.sock');
  cfg.pidFile = path.join(home, 'daemon.pid');
  cfg.stateFile = path.join(home, 'state.json');
  cfg.logDir = path.join(home, 'logs');
  cfg.pgDir = pgDirOf(home, cfg.homeHash);
  cfg.haproxyDir = path.join(home, 'haproxy');
  cfg.routerCertFile = path.join(cfg.haproxyDir, 'cert.pem');
  cfg.frontProxyDir = path.join(home, 'front-proxy');
  // Per-instance disk (TMPDIR): instances/<app>/<index>/tmp.
  cfg.instancesDir = path.join(home, 'instances');
  return cfg;
}

module.exports = { loadConfig, requirePinnedPorts, pgDirOf, canEnter, DEFAULTS, REPO_ROOT, MAX_FRONT_PROXIES, PORT_VARIABLES, OUTSIDE_PG_ROOT };
