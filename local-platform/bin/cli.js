// cli.js — `scripts/cfl`, a cf-CLI look-alike for the local platform: parses the verb and
// its flags like the cf CLI, starts the daemon on first need and hands the verb to it.
// `logs` and `statistics` stream on the client side (tail of the app's log; one poll a
// second). Errors: one line `cfl: ...` on stderr, exit 1 (usage) or 2 (the operation failed).
'use strict';

const fs = require('node:fs');
const http = require('node:http');
const path = require('node:path');
const { spawn, execFileSync } = require('node:child_process');
const { loadConfig } = require('../lib/config');
const { recentLines } = require('../lib/app-log');
const { parseMegabytes } = require('../lib/manifest');

const DAEMON_START_TIMEOUT_MS = 120000;
const STATS_POLL_MS = 1000;
const PING_TIMEOUT_MS = 5000;
// Every instance gets SIGTERM at once; the grace period plus PostgreSQL's shutdown.
const DOWN_TIMEOUT_MS = 120000;

const USAGE = `cfl — the local platform, driven like the cf CLI (local-platform/README.md)

  cfl up | down | status
  cfl push [APP] -f MANIFEST [--vars-file F]... [--var k=v]... [-i N] [--no-start]
  cfl scale APP [-i N] [--cpu CORES|none] [-m MEMORY [-f]]
  cfl start|stop|restart APP          cfl restart-app-instance APP INDEX
  cfl delete APP [-f]                 cfl apps | app APP [--guid] | env APP
  cfl update-route DOMAIN [--hostname HOST] (-o loadbalancing=round-robin|least-connection | -r loadbalancing)
  cfl set-env APP NAME VALUE          cfl logs APP [--recent]
  cfl statistics APP --debug [--full] cfl curl [-i] PATH
  cfl create-service postgres local NAME   cfl delete-service NAME [-f]   cfl services
  cfl bind-service APP NAME           cfl unbind-service APP NAME
  cfl router-url                      cfl service-url NAME
  cfl router-usage                    the router's CPU since it started (its cgroup), JSON {"cpu_ns": N, "cpu_quota_cores": Q|null}
  cfl front-proxies [-n N] [--cpu CORES|none] [--json]   TLS front proxies before the router (0 = off)
  cfl api-url                         (Cloud Controller v3 + UAA for the real cf CLI)
  cfl home                            the platform's state directory (CFSCALE_HOME, resolved)

Environment (defaults): CFSCALE_HOME (<repo>/.state/local), CFSCALE_ROUTER_PORT (8888), CFSCALE_API_PORT (8889),
CFSCALE_PG_PORT (54320), CFSCALE_INSTANCE_PORT_BASE (61000), CFSCALE_CPU_PER_GB (1.0 cores/GB),
CFSCALE_GRACEFUL_SHUTDOWN_SEC (10), CFSCALE_STATS_INTERVAL_MS (1000).`;

class CliError extends Error {
  constructor(msg, code = 1) { super(msg); this.code = code; }
}

// verb → {pos: [names], min, val: flags with a value, multi: repeatable, bool: switches}
const SPECS = {
  up: { pos: [] }, down: { pos: [] }, status: { pos: [] }, apps: { pos: [] }, services: { pos: [] },
  'router-url': { pos: [] }, 'api-url': { pos: [] }, home: { pos: [] },
  push: { pos: ['appName'], min: 0, val: { '-f': 'manifest', '-i': 'instances' }, multi: { '--vars-file': 'varsFiles', '--var': 'vars' }, bool: { '--no-start': 'noStart' } },
  scale: { pos: ['appName'], val: { '-i': 'instances', '--cpu': 'cpu', '-m': 'memory' }, bool: { '-f': 'force' } },
  'router-usage': { pos: [] },
  'front-proxies': { pos: [], val: { '-n': 'count', '--cpu': 'cpu' }, bool: { '--json': 'json' } },
  start: { pos: ['appName'] }, stop: { pos: ['appName'] }, restart: { pos: ['appName'] },
  'restart-app-instance': { pos: ['appName', 'index'] },
  delete: { pos: ['appName'], bool: { '-f': 'force' } },
  'update-route': {
    pos: ['domain'], val: { '--hostname': 'hostname', '-n': 'hostname', '--path': 'path' },
    multi: { '-o': 'options', '--option': 'options', '-r': 'removeOptions', '--remove-option': 'removeOptions' },
  },
  app: { pos: ['appName'], bool: { '--guid': 'guid' } },
  env: { pos: ['appName'] },
  'set-env': { pos: ['appName', 'name', 'value'] },
  logs: { pos: ['appName'], bool: { '--recent': 'recent' } },
  statistics: { pos: ['appName'], bool: { '--debug': 'debug', '--full': 'full' } },
  curl: { pos: ['path'], bool: { '-i': 'include' } },
  'create-service': { pos: ['offering', 'plan', 'name'] },
  'delete-service': { pos: ['name'], bool: { '-f': 'force' } },
  'bind-service': { pos: ['appName', 'name'] },
  'unbind-service': { pos: ['appName', 'name'] },
  'service-url': { pos: ['name'] },
};
SPECS.stats = SPECS.statistics;

function parseArgs(argv) {
  const [verb0, ...rest] = argv;
  const verb = verb0 === 'stats' ? 'statistics' : verb0;
  const spec = SPECS[verb];
  if (!spec) throw new CliError(`unknown command "${verb0}" (cfl help)`);
  const args = {};
  const pos = [];
  for (let i = 0; i < rest.length; i++) {
    const a = rest[i];
    if (spec.val && spec.val[a]) {
      if (i + 1 >= rest.length) throw new CliError(`${a} needs a value`);
      args[spec.val[a]] = rest[++i];
    } else if (spec.multi && spec.multi[a]) {
      if (i + 1 >= rest.length) throw new CliError(`${a} needs a value`);
      (args[spec.multi[a]] = args[spec.multi[a]] || []).push(rest[++i]);
    } else if (spec.bool && spec.bool[a]) {
      args[spec.bool[a]] = true;
    } else if (a.startsWith('-') && a.length > 1 && !/^-\d/.test(a)) {
      throw new CliError(`unknown flag ${a} for ${verb}`);
    } else {
      pos.push(a);
    }
  }
  const min = spec.min ?? spec.pos.length;
  if (pos.length < min || pos.length > spec.pos.length) {
    throw new CliError(`${verb} takes ${spec.pos.map((p) => p.toUpperCase()).join(' ') || 'no arguments'} (cfl help)`);
  }
  spec.pos.forEach((name, i) => { if (pos[i] !== undefined) args[name] = pos[i]; });
  return { verb, args: normalise(verb, args) };
}

function normalise(verb, args) {
  const int = (v, what) => {
    if (!/^\d+$/.test(String(v))) throw new CliError(`${what} must be a non-negative integer, got "${v}"`);
    return Number(v);
  };
  if (args.instances !== undefined) args.instances = int(args.instances, '-i');
  if (args.index !== undefined) args.index = int(args.index, 'INDEX');
  if (args.count !== undefined) args.count = int(args.count, '-n');
  if (args.cpu !== undefined && args.cpu !== 'none') {
    const n = Number(args.cpu);
    if (!Number.isFinite(n) || n < 0.01) throw new CliError(`--cpu must be a number of cores >= 0.01 or "none", got "${args.cpu}"`);
    args.cpu = n;
  }
  if (args.memory !== undefined) {
    try { args.memoryMb = parseMegabytes(args.memory, '-m'); } catch (e) { throw new CliError(e.message); }
    delete args.memory;
  }
  delete args.force; // cf scale's -f skips its confirmation; cfl asks none
  if (verb === 'scale' && args.instances === undefined && args.cpu === undefined && args.memoryMb === undefined) {
    throw new CliError('scale needs -i N, --cpu CORES|none and/or -m MEMORY');
  }
  // Like cf push: without -f, ./manifest.yml when there is one.
  if (verb === 'push' && !args.manifest && fs.existsSync('manifest.yml')) args.manifest = 'manifest.yml';
  if (args.manifest) args.manifest = path.resolve(args.manifest);
  if (args.varsFiles) args.varsFiles = args.varsFiles.map((f) => path.resolve(f));
  return args;
}

// ---------------------------------------------------------------- daemon client
function request(cfg, verb, args = {}, timeoutMs = 0) {
  return new Promise((resolve, reject) => {
    const req = http.request({ socketPath: cfg.socketPath, method: 'POST', path: '/', timeout: timeoutMs }, (res) => {
      let body = '';
      res.on('data', (d) => { body += d; });
      res.on('end', () => { try { resolve(JSON.parse(body)); } catch (e) { reject(e); } });
    });
    req.on('error', reject);
    req.on('timeout', () => req.destroy(new Error(`no answer from the daemon within ${timeoutMs / 1000}s`)));
    req.end(JSON.stringify({ verb, args }));
  });
}

async function ping(cfg) {
  try { return (await request(cfg, 'ping', {}, PING_TIMEOUT_MS)).code === 0; } catch { return false; }
}

async function ensureDaemon(cfg) {
  if (await ping(cfg)) return;
  fs.mkdirSync(cfg.home, { recursive: true });
  const logFile = path.join(cfg.home, 'daemon.log');
  const out = fs.openSync(logFile, 'a');
  const child = spawn(process.execPath, [path.join(__dirname, 'daemon.js')], { detached: true, stdio: ['ignore', out, out], env: process.env });
  fs.closeSync(out);
  let exited = null;
  child.on('exit', (code) => { exited = code; });
  child.unref();
  const until = Date.now() + DAEMON_START_TIMEOUT_MS;
  while (Date.now() < until) {
    if (await ping(cfg)) return;
    if (exited !== null) {
      const lines = fs.readFileSync(logFile, 'utf8').trim().split('\n');
      const tail = lines.reverse().find((l) => /boot failed|Error/.test(l)) || lines[0];
      throw new CliError(`the platform did not start: ${tail}`, 2);
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new CliError(`the platform did not start within ${DAEMON_START_TIMEOUT_MS / 1000}s, see ${logFile}`, 2);
}

// The running daemon's settings win over this client's environment: say so when they differ
// (write: where the warnings go).
function runningSettings(cfg, env = process.env, write = (s) => process.stderr.write(s)) {
  let d;
  try { d = JSON.parse(fs.readFileSync(path.join(cfg.home, 'daemon.json'), 'utf8')); } catch { return null; }
  const pairs = [['CFSCALE_ROUTER_PORT', 'routerPort'], ['CFSCALE_API_PORT', 'apiPort'], ['CFSCALE_PG_PORT', 'pgPort'], ['CFSCALE_INSTANCE_PORT_BASE', 'instancePortBase'],
    ['CFSCALE_CPU_MODE', 'cpuMode'], ['CFSCALE_CPU_PERIOD_US', 'cpuPeriodUs']];
  for (const [name, key] of pairs) {
    if (env[name] && key in d && d[key] !== cfg[key]) write(`cfl: warning: the running platform uses ${name}=${d[key]}, not ${cfg[key]} (cfl down to change it)\n`);
  }
  return d;
}

async function call(cfg, verb, args) {
  await ensureDaemon(cfg);
  if (verb === 'up') runningSettings(cfg);
  const r = await request(cfg, verb, args);
  if (r.out) process.stdout.write(`${r.out}\n`);
  if (r.code !== 0) throw new CliError(r.err || 'failed', r.code);
}

// Without a daemon: stop what a dead one may have left (PostgreSQL, HAProxy, instances).
function offlineDown(cfg) {
  const { Cgroups } = require('../lib/cgroups');
  const kill = (pid, group) => { try { process.kill(group ? -pid : pid, 'SIGKILL'); } catch { /* gone */ } };
  const readList = (f) => { try { return fs.readFileSync(f, 'utf8').split('\n').filter(Boolean).map(Number); } catch { return []; } };
  for (const pid of readList(path.join(cfg.home, 'instances.pids'))) kill(pid, true);
  for (const pid of readList(path.join(cfg.haproxyDir, 'haproxy.pid'))) kill(pid, false);
  let fronts = [];
  try { fronts = fs.readdirSync(cfg.frontProxyDir).filter((n) => /^\d+$/.test(n)); } catch { /* none */ }
  for (const n of fronts) for (const pid of readList(path.join(cfg.frontProxyDir, n, 'haproxy.pid'))) kill(pid, false);
  const cg = new Cgroups(cfg.cgroupRoot, cfg.homeHash, () => {});
  if (cg.available) {
    const top = path.join(cfg.cgroupRoot, 'memory', `cfscale-${cfg.homeHash}`);
    for (const d of fs.readdirSync(top)) for (const pid of cg.pids(d)) kill(pid, false);
  }
  try { execFileSync(process.execPath, [path.join(__dirname, '..', 'lib', 'pg-cluster.js'), 'stop', '--dir', cfg.pgDir], { stdio: 'ignore' }); } catch { /* not there */ }
  const deadline = Date.now() + 2000;
  let left = cg.removeAll();
  while (left.length && Date.now() < deadline) { execFileSync('sleep', ['0.1']); left = cg.removeAll(); }
  for (const f of [cfg.socketPath, cfg.pidFile, path.join(cfg.home, 'instances.pids')]) { try { fs.unlinkSync(f); } catch { /* gone */ } }
  fs.rmSync(cfg.instancesDir, { recursive: true, force: true });
  if (left.length) throw new CliError(`cgroups left behind: ${left.join(', ')}`, 2);
}

// ---------------------------------------------------------------- streaming verbs
async function logs(cfg, args) {
  await ensureDaemon(cfg);
  const r = await request(cfg, 'log-file', args);
  if (r.code !== 0) throw new CliError(r.err, r.code);
  const file = r.out;
  // The cf CLI's header line (parsers skip it on both platforms).
  process.stdout.write(`Retrieving logs for app ${args.appName} in org local / space local as admin...\n\n`);
  if (args.recent) {
    for (const l of recentLines(file)) process.stdout.write(`${l}\n`);
    return;
  }
  let pos = fs.existsSync(file) ? fs.statSync(file).size : 0;
  let partial = '';
  for (;;) {
    await new Promise((res) => setTimeout(res, 200));
    let size;
    try { size = fs.statSync(file).size; } catch { continue; }
    if (size < pos) pos = 0; // rotated
    if (size === pos) continue;
    const fd = fs.openSync(file, 'r');
    const buf = Buffer.alloc(size - pos);
    fs.readSync(fd, buf, 0, buf.length, pos);
    fs.closeSync(fd);
    pos = size;
    const text = partial + buf.toString('utf8');
    const cut = text.lastIndexOf('\n') + 1;
    process.stdout.write(text.slice(0, cut));
    partial = text.slice(cut);
  }
}

// Like the plugin: one poll a second, JSON lines; errors as "\nERROR: ..." and exit 1.
async function statistics(cfg, args) {
  await ensureDaemon(cfg);
  for (;;) {
    let r;
    try { r = await request(cfg, 'statistics', args); } catch (e) { r = { code: 2, err: e.message }; }
    if (r.code !== 0) { process.stdout.write(`\nERROR: ${r.err}\n`); process.exit(1); }
    if (r.out) process.stdout.write(`${r.out}\n`);
    await new Promise((res) => setTimeout(res, STATS_POLL_MS));
  }
}

async function main(argv) {
  if (!argv.length || ['help', '-h', '--help'].includes(argv[0])) { process.stdout.write(`${USAGE}\n`); return argv.length ? 0 : 1; }
  const { verb, args } = parseArgs(argv);
  const cfg = loadConfig();
  switch (verb) {
    case 'router-url': {
      const d = (await ping(cfg)) ? runningSettings(cfg) : null;
      process.stdout.write(`http://127.0.0.1:${d ? d.routerPort : cfg.routerPort}\n`);
      return 0;
    }
    case 'api-url': {
      const d = (await ping(cfg)) ? runningSettings(cfg) : null;
      process.stdout.write(`http://127.0.0.1:${d && d.apiPort ? d.apiPort : cfg.apiPort}\n`);
      return 0;
    }
    case 'home':
      process.stdout.write(`${cfg.home}\n`);
      return 0;
    case 'status':
      if (!(await ping(cfg))) { process.stdout.write(`the local platform is not running (CFSCALE_HOME=${cfg.home})\n`); return 0; }
      await call(cfg, verb, args);
      return 0;
    case 'down':
      if (await ping(cfg)) {
        let r;
        try {
          r = await request(cfg, 'down', {}, DOWN_TIMEOUT_MS);
        } catch (e) {
          // A daemon that does not finish: kill it and clean up after it.
          process.stderr.write(`cfl: ${e.message}; killing it\n`);
          try { process.kill(Number(fs.readFileSync(cfg.pidFile, 'utf8')), 'SIGKILL'); } catch { /* gone */ }
          offlineDown(cfg);
          r = { code: 0 };
        }
        for (let i = 0; i < 50 && fs.existsSync(cfg.pidFile); i++) await new Promise((res) => setTimeout(res, 100));
        if (r.code !== 0) throw new CliError(r.err, r.code);
      } else {
        offlineDown(cfg);
      }
      process.stdout.write('OK\n');
      return 0;
    case 'logs': await logs(cfg, args); return 0;
    case 'statistics': await statistics(cfg, args); return 0;
    default: await call(cfg, verb, args); return 0;
  }
}

if (require.main === module) {
  // A reader that went away (`cfl statistics ... | head -1`) ends a stream quietly.
  process.stdout.on('error', (e) => process.exit(e.code === 'EPIPE' ? 0 : 2));
  main(process.argv.slice(2)).then((code) => process.exit(code), (e) => {
    process.stderr.write(`cfl: ${e.message}\n`);
    process.exit(e instanceof CliError ? e.code : 2);
  });
}

module.exports = { parseArgs, CliError, runningSettings };
