// cli.js — `scripts/cfl`: starts, stops and locates the local platform, and the operator verbs
// that have no cf equivalent. Everything else goes through the real cf CLI against the
// platform's Cloud Controller (`cfl api-url`). Starts the daemon on first need and hands the
// verb to it. Errors: one line `cfl: ...` on stderr, exit 1 (usage) or 2 (the operation failed).
'use strict';

const fs = require('node:fs');
const http = require('node:http');
const path = require('node:path');
const { spawn, execFileSync } = require('node:child_process');
const { loadConfig } = require('../lib/config');
const { parse, help, note, UsageError } = require('../../lib/arg-table');
const { findOnPath } = require('../../lib/process-checks');
const { USER } = require('../lib/cc-api/uaa');
const { purgeList, unsafeHome, removePurged } = require('../lib/purge');
const { ORG, SPACE } = require('../lib/cc-api/presenters');

const DAEMON_START_TIMEOUT_MS = 120000;
const PING_TIMEOUT_MS = 5000;
// Every instance gets SIGTERM at once; the grace period plus PostgreSQL's shutdown.
const DOWN_TIMEOUT_MS = 120000;

class CliError extends Error {
  constructor(msg, code = 1) { super(msg); this.code = code; }
}

// verb → [what it does, its flags (arg-table.js rows)]: the parser and `cfl help` in one. No verb
// takes positional arguments; a flag's absence leaves the choice to the daemon.
const VERBS = {
  up: ['start the platform (its daemon on first need)', []],
  down: ['stop every instance, the router and PostgreSQL', []],
  purge: ['list what the platform keeps (CFSCALE_HOME, its PostgreSQL data outside it, its cgroups); with --yes stop '
    + 'the platform, then remove them all (its apps, services and results with them)', [
    ['--yes', 'yes', 'bool', '', 'remove what is listed (without it nothing is removed, exit 1)'],
  ]],
  status: ['the daemon, its URLs, cgroups and services, and every app instance', []],
  'api-url': ['Cloud Controller v3 + UAA + log-cache, for cf login', []],
  login: ['log the cf CLI in to the running platform as its admin, org and space local, in $CFSCALE_HOME/cf-home '
    + '(or CF_HOME when it lies inside CFSCALE_HOME; never one outside); nothing when it already is. The password goes '
    + 'to `cf auth` in CF_PASSWORD, never on its command line', []],
  'router-url': ['the router (HAProxy), for requests to the apps', [
    ['--https', 'https', 'bool', '', 'its HTTPS listener instead (self-signed certificate)'],
  ]],
  home: ["the platform's state directory (CFSCALE_HOME, resolved)", []],
  cells: ['the CPUs of the system under test and of the harness, JSON {"sut_cpus": "1", "harness_cpus": "0", "app_db": "sut"} (null: no cells)', [
    ['--join PID', 'join', 'int', '', 'move a process (run-round) and its future children into the harness\'s cell', [1]],
    ['--shield SECONDS', 'shield', 'int', '', 'for SECONDS move every process of the root cpuset onto the harness\'s CPUs, '
      + 'as cset shield does (run-round: while a round measures); 0 lowers it', [0, 86400]],
  ]],
  'router-usage': ['the router\'s CPU since it started (its cgroup), JSON {"cpu_ns": N, "cpu_quota_cores": Q|null}', []],
  'front-proxies': ['TLS front proxies before the router: their URLs, one a line', [
    ['-n N', 'count', 'int', note('unchanged'), 'set how many run (0 = off)', [0]],
    ['--cpu CORES|none', 'cpu', 'str', note('unchanged'), 'with -n: the CPU quota of each'],
    ['--json', 'json', 'bool', '', 'their stats as JSON instead'],
  ]],
};

const USAGE = `${help('Usage: cfl VERB [flags]', `cfl — start, stop and locate the local platform (local-platform/README.md); drive it
with the real cf CLI: scripts/cfl login, which runs
cf api $(scripts/cfl api-url) --skip-ssl-validation && CF_USERNAME=admin CF_PASSWORD=admin cf auth && cf target -o local -s local
in the platform's own CF_HOME; then CF_HOME=$(scripts/cfl home)/cf-home cf ... (your own cf login stays as it is)`,
Object.entries(VERBS).map(([verb, [about]]) => [verb, verb, 'bool', '', about]))}
${Object.entries(VERBS).filter(([, [, rows]]) => rows.length).map(([verb, [, rows]]) => help(`cfl ${verb}:`, '', rows).replace(/^.*\n\n/, `cfl ${verb}\n`)).join('\n')}
Environment (defaults): CFSCALE_HOME (<repo>/.state/local), CFSCALE_ROUTER_PORT (8888), CFSCALE_ROUTER_TLS_PORT (4443), CFSCALE_API_PORT (8889),
CFSCALE_PG_PORT (54320), CFSCALE_INSTANCE_PORT_BASE (61000), CFSCALE_CPU_PER_GB (1.0 cores/GB),
CFSCALE_GRACEFUL_SHUTDOWN_SEC (10), CFSCALE_STATS_INTERVAL_MS (1000).`;

function parseArgs(argv) {
  const [verb, ...rest] = argv;
  if (!Object.hasOwn(VERBS, verb)) throw new CliError(`unknown command "${verb}" (cfl help; everything else: the cf CLI)`);
  let parsed;
  try {
    parsed = parse(rest, [...VERBS[verb][1], ['--help', 'help', 'bool', '', 'cfl help']], { aliases: { '-h': '--help' } });
  } catch (err) {
    if (!(err instanceof UsageError)) throw err;
    throw new CliError(`${verb}: ${err.message} (cfl help)`);
  }
  if (parsed.help) return { verb: 'help', args: {} };
  const args = Object.fromEntries(Object.entries(parsed).filter(([k, v]) => k !== '_' && v !== undefined));
  return { verb, args: normalise(args) };
}

function normalise(args) {
  if (args.cpu !== undefined && args.cpu !== 'none') {
    const n = Number(args.cpu);
    if (!Number.isFinite(n) || n < 0.01) throw new CliError(`--cpu must be a number of cores >= 0.01 or "none", got "${args.cpu}"`);
    args.cpu = n;
  }
  return args;
}

// ---------------------------------------------------------------- cf login
// The one way in for the scripts and the report: the user, org and space are the platform's
// own (lib/cc-api/uaa.js, presenters.js), so no caller keeps a copy of them. `cf login -p`
// would show the password to every user (ps): `cf auth` reads it from CF_PASSWORD instead.
const LOGIN_ENV = { CF_USERNAME: USER.name, CF_PASSWORD: USER.password };
function cfLoginSteps(api) {
  return [['api', api, '--skip-ssl-validation'], ['auth'], ['target', '-o', ORG.name, '-s', SPACE.name]];
}
const loginLine = (api) => cfLoginSteps(api).map((args) => `${args[0] === 'auth' ? `CF_USERNAME=${USER.name} CF_PASSWORD=*** ` : ''}cf ${args.join(' ')}`)
  .join(' && ');

/** The API's URL: the running daemon's port (d: its settings, or null), else the configured one. */
function apiUrl(cfg, d) {
  return `http://127.0.0.1:${d && d.apiPort ? d.apiPort : cfg.apiPort}`;
}

/** The API a CF_HOME targets ('' when it targets none). */
function targetOf(cfHome) {
  try { return JSON.parse(fs.readFileSync(path.join(cfHome, '.cf', 'config.json'), 'utf8')).Target || ''; } catch { return ''; }
}

/**
 * The CF_HOME cfl login logs in: the CF_HOME the caller names, unless it is logged in to
 * another API (a foundation: that login is never replaced), or none is named (~/.cf stays the
 * user's own); then the project's $CFSCALE_HOME/cf-home.
 */
function loginCfHome(cfg, api, env = process.env) {
  const own = env.CF_HOME ? path.resolve(env.CF_HOME) : '';
  const target = own && targetOf(own);
  return own && (!target || target === api) ? own : path.join(cfg.home, 'cf-home');
}

/** Whether the cf config in cfHome targets api with a token and the local space. */
function loggedIn(cfHome, api) {
  try {
    const c = JSON.parse(fs.readFileSync(path.join(cfHome, '.cf', 'config.json'), 'utf8'));
    return c.Target === api && !!c.RefreshToken && c.SpaceFields?.Name === SPACE.name;
  } catch {
    return false;
  }
}

function cfLogin(cfg, api) {
  const cfHome = loginCfHome(cfg, api);
  if (loggedIn(cfHome, api)) return;
  fs.mkdirSync(cfHome, { recursive: true });
  const dir = findOnPath('cf');
  const cf = dir ? path.join(dir, 'cf') : path.join(cfg.repoRoot, '.tools', 'bin', 'cf');
  process.stderr.write(`cfl: ${loginLine(api)}\ncfl: (in CF_HOME=${cfHome})\n`);
  // cf's own lines (the warning that a local API is plain http, say) are shown only when a
  // step fails.
  for (const args of cfLoginSteps(api)) {
    try {
      execFileSync(cf, args, { stdio: ['ignore', 'pipe', 'pipe'], encoding: 'utf8', env: { ...process.env, ...LOGIN_ENV, CF_HOME: cfHome } });
    } catch (e) {
      const why = e.code === 'ENOENT' ? `${cf} is missing: run scripts/setup.sh` : e.status !== null ? `exit ${e.status}` : `${e.code || e.signal}`;
      const said = `${e.stdout || ''}${e.stderr || ''}`.trim().split('\n').filter(Boolean).slice(-3).join(' / ');
      throw new CliError(`cf login to ${api} failed: cf ${args[0]} (${why})${said ? `: ${said}` : ''}`, 2);
    }
  }
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
  const pairs = [['CFSCALE_ROUTER_PORT', 'routerPort'], ['CFSCALE_ROUTER_TLS_PORT', 'routerTlsPort'], ['CFSCALE_API_PORT', 'apiPort'], ['CFSCALE_PG_PORT', 'pgPort'], ['CFSCALE_INSTANCE_PORT_BASE', 'instancePortBase'],
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
  const { Cells } = require('../lib/cells');
  new Cells({ root: cfg.cgroupRoot, group: cg.group, split: cfg.cells, log: () => {}, make: false }).removeAll();
  const deadline = Date.now() + 2000;
  let left = cg.removeAll();
  while (left.length && Date.now() < deadline) { execFileSync('sleep', ['0.1']); left = cg.removeAll(); }
  for (const f of [cfg.socketPath, cfg.pidFile, path.join(cfg.home, 'instances.pids')]) { try { fs.unlinkSync(f); } catch { /* gone */ } }
  fs.rmSync(cfg.instancesDir, { recursive: true, force: true });
  if (left.length) throw new CliError(`cgroups left behind: ${left.join(', ')}`, 2);
}

/** The platform stopped: through its daemon, or by hand when there is none (or it hangs). */
async function down(cfg) {
  if (!(await ping(cfg))) {
    offlineDown(cfg);
    return;
  }
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
}

/**
 * `cfl purge [--yes]`: what the platform keeps, one a line on stdout; with --yes it is stopped
 * and all of it removed. Nothing is removed before the whole list has been shown.
 */
async function purge(cfg, { yes }) {
  const list = purgeList(cfg);
  if (!list.length) {
    process.stdout.write(`nothing to purge for CFSCALE_HOME=${cfg.home}\n`);
    return 0;
  }
  const unsafe = unsafeHome(cfg);
  if (unsafe) throw new CliError(`purge: ${unsafe}: not removing it (set CFSCALE_HOME to the platform's own directory)`);
  process.stdout.write(`${yes ? 'removing' : 'cfl purge --yes removes'} (after stopping the platform):\n`
    + `${list.map((i) => `  ${i.path}  ${i.what}`).join('\n')}\n`);
  if (!yes) throw new CliError('nothing removed: cfl purge --yes to remove it');
  await down(cfg);
  const left = removePurged(purgeList(cfg));
  if (left.length) throw new CliError(`could not remove: ${left.join(', ')}`, 2);
  process.stdout.write('OK\n');
  return 0;
}

async function main(argv) {
  if (!argv.length || ['help', '-h', '--help'].includes(argv[0])) { process.stdout.write(`${USAGE}\n`); return argv.length ? 0 : 1; }
  const { verb, args } = parseArgs(argv);
  if (verb === 'help') { process.stdout.write(`${USAGE}\n`); return 0; }
  const cfg = loadConfig();
  switch (verb) {
    case 'router-url': {
      const d = (await ping(cfg)) ? runningSettings(cfg) : null;
      if (args.https) process.stdout.write(`https://127.0.0.1:${d && d.routerTlsPort ? d.routerTlsPort : cfg.routerTlsPort}\n`);
      else process.stdout.write(`http://127.0.0.1:${d ? d.routerPort : cfg.routerPort}\n`);
      return 0;
    }
    case 'api-url':
      process.stdout.write(`${apiUrl(cfg, (await ping(cfg)) ? runningSettings(cfg) : null)}\n`);
      return 0;
    case 'home':
      process.stdout.write(`${cfg.home}\n`);
      return 0;
    case 'login':
      if (!(await ping(cfg))) throw new CliError(`the local platform is not running (CFSCALE_HOME=${cfg.home}): scripts/cfl up first`, 2);
      cfLogin(cfg, apiUrl(cfg, runningSettings(cfg)));
      return 0;
    case 'cells':
      // The split this home's platform has, or without one running, the one it would have.
      if (args.join === undefined && args.shield === undefined && !(await ping(cfg))) {
        const { formatCpuList } = require('../lib/cells');
        const c = cfg.cells;
        process.stdout.write(`${JSON.stringify(c && { sut_cpus: formatCpuList(c.sut), harness_cpus: formatCpuList(c.harness), app_db: cfg.appDbCell })}\n`);
        return 0;
      }
      await call(cfg, verb, args);
      return 0;
    case 'status':
      if (!(await ping(cfg))) { process.stdout.write(`the local platform is not running (CFSCALE_HOME=${cfg.home})\n`); return 0; }
      await call(cfg, verb, args);
      return 0;
    case 'down':
      await down(cfg);
      process.stdout.write('OK\n');
      return 0;
    case 'purge': return purge(cfg, args);
    default: await call(cfg, verb, args); return 0;
  }
}

if (require.main === module) {
  main(process.argv.slice(2)).then((code) => process.exit(code), (e) => {
    process.stderr.write(`cfl: ${e.message}\n`);
    process.exit(e instanceof CliError ? e.code : 2);
  });
}

module.exports = { parseArgs, CliError, runningSettings, loginCfHome };
