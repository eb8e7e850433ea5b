#!/usr/bin/env node
'use strict';
// tunnel.js — open a chisel tunnel to the results database and prove it works; the work
// behind scripts/tunnel.sh. COMMAND is its help (options, state, exit codes) and its flags.
//
// cf: the chisel app is pushed when absent and bound to results-db when it lacks the
// binding; its credentials, key and binding come from `cf curl /v3/apps/GUID/env`
// (tunnel-info.js), its route from `cf curl /v3/apps/GUID/routes`; the client dials
// https://ROUTE, or, when /v3/info names where the routes are served (the local platform
// as a cf target, ops/target.js routesVia), that address with the route as Host. local: the same chisel
// server runs in front of the local results-db (its URL from the service key the scripts
// keep, ops/target.js resultsDbUrl) with fresh random credentials. Either way
// the chisel client is pinned to the server's fingerprint, and psql SELECT 1 through the
// tunnel must answer before the URL is printed. The chisel processes are started
// detached (orphaned, so any later run can stop them by pid); every exit before the
// tunnel is up stops what this run started.

const crypto = require('node:crypto');
const fs = require('node:fs');
const net = require('node:net');
const os = require('node:os');
const path = require('node:path');
const { execFile } = require('node:child_process');
const { makeCli, MANIFEST_DIR, ROWS } = require('../ops/cli');
const { enterRepository, selectPlatform, CFL, RESULTS_KEY, ROOT } = require('../ops/target');
const { shellQuote, formatCmd, capture, run, isExecutable, onPath, processAlive } = require('../ops/exec');
const { sleep } = require('../ops/sleep');
const { tunnelInfo } = require('./tunnel-info');
const { localPlatformUp } = require('../ops/apps');
const { skipSslValidation } = require('../ops/tls');
const { pgTool, maskCredentials } = require('../../lib/credentials');
const { CliError, cliExitCode } = require('../../lib/arg-table');

const APP = 'chisel';
const SERVICE = 'results-db';
const DEFAULT_LOCAL_PORT = 15432;
const STATE_DIR = process.env.CFSCALE_TUNNEL_DIR || '.state/tunnel';
const BIN_DIR = '.tools/bin'; // relative: the scripts run from the repository root (ops/target.js)
const PROVE_TIMEOUT_SEC = Number(process.env.CFSCALE_TUNNEL_TIMEOUT_SEC || 20); // longest wait for psql through the tunnel
const PROVE_RETRY_MS = 500;
const PSQL_CONNECT_TIMEOUT_SEC = 3;
// Gorouter drops idle WebSockets; a keepalive under its idle timeout keeps psql sessions
// open (chisel's client flag; docs/cf-platform.md §6).
const KEEPALIVE = '25s';
const SERVER_PORT_MIN = 47000;
const SERVER_PORT_SPAN = 1000;
const STOP_WAIT_MS = 5000; // SIGTERM, then SIGKILL after this long
const CLIENT_ERROR = /Connection error|Invalid|denied|Authentication failed/;

const cli = makeCli('tunnel');
const { log, die } = cli;
const stateFile = (name) => path.join(STATE_DIR, name);

/** The pid in a pid file; null when missing or not a pid (never 0 or -1: kill(0) is our group). */
function readPid(file) {
  let text = '';
  try { text = fs.readFileSync(file, 'utf8').trim(); } catch { return null; }
  return /^[1-9][0-9]*$/.test(text) && Number(text) > 1 ? Number(text) : null;
}

const pidAlive = (file) => { const pid = readPid(file); return pid !== null && processAlive(pid); };

async function stopPidfile(file, quiet) {
  const pid = readPid(file);
  if (pid === null || !processAlive(pid)) { fs.rmSync(file, { force: true }); return; }
  try { process.kill(pid); } catch { /* gone meanwhile */ }
  for (let waited = 0; waited < STOP_WAIT_MS && processAlive(pid); waited += 100) await sleep(100);
  if (processAlive(pid)) try { process.kill(pid, 'SIGKILL'); } catch { /* gone meanwhile */ }
  if (!quiet) log(`stopped pid ${pid} (${path.basename(file, '.pid')})`);
  fs.rmSync(file, { force: true });
}

/** End the tunnel (client, local server) and remove the state. */
async function stopTunnel(quiet = false) {
  if (!fs.existsSync(STATE_DIR)) {
    if (!quiet) log('no tunnel running');
    return;
  }
  await stopPidfile(stateFile('client.pid'), quiet);
  await stopPidfile(stateFile('server.pid'), quiet);
  fs.rmSync(STATE_DIR, { recursive: true, force: true });
}

/** The chisel client and server from .tools/bin, built from chisel/ (vendored modules) when missing. */
async function ensureChisel() {
  if (isExecutable(path.join(BIN_DIR, 'chisel')) && isExecutable(path.join(BIN_DIR, 'chisel-server'))) return;
  if (!onPath('go')) die('chisel is not built and go is missing: run scripts/setup.sh');
  log(`building chisel into ${BIN_DIR}`);
  const out = path.join(ROOT, BIN_DIR);
  fs.mkdirSync(out, { recursive: true });
  for (const args of [['-o', `${out}/chisel`, 'github.com/jpillora/chisel'], ['-o', `${out}/chisel-server`, '.']]) {
    const code = await run(['env', '-C', path.join(ROOT, 'chisel'), 'GOFLAGS=-mod=vendor', 'go', 'build', ...args]);
    if (code !== 0) die(`building chisel failed: go build ${args.join(' ')}`);
  }
}

/** Whether something accepts connections on 127.0.0.1:PORT (what bash's /dev/tcp probe asked). */
function portInUse(port) {
  return new Promise((resolve) => {
    const s = net.connect({ host: '127.0.0.1', port });
    s.once('connect', () => { s.destroy(); resolve(true); });
    s.once('error', () => resolve(false));
  });
}

async function freeServerPort(localPort) {
  for (let i = 0; i < 100; i++) {
    const p = SERVER_PORT_MIN + crypto.randomInt(SERVER_PORT_SPAN);
    if (p !== localPort && !(await portInUse(p))) return p;
  }
  return die(`no free port in ${SERVER_PORT_MIN}-${SERVER_PORT_MIN + SERVER_PORT_SPAN - 1}`);
}

/** 24 random bytes as base64 without / + =. */
const randomSecret = () => crypto.randomBytes(24).toString('base64').replace(/[/+=]/g, '');

/**
 * Start BIN with ARGS in the background, detached and orphaned (nohup, output to LOG);
 * its pid into PIDFILE. Secrets travel in ENV, never in argv (ps shows argv).
 */
async function startDetached(bin, args, env, log, pidFile) {
  if (process.env.DEBUG === '1') process.stderr.write(`+ ${formatCmd([bin, ...args])} &\n`);
  const r = await execText('sh', ['-c', 'nohup "$@" >"$TUNNEL_LOG" 2>&1 </dev/null & echo $!', 'sh', bin, ...args],
    { ...env, TUNNEL_LOG: log });
  const pid = r.stdout.trim();
  if (r.code !== 0 || !/^\d+$/.test(pid)) die(`could not start ${bin}`);
  fs.writeFileSync(pidFile, `${pid}\n`);
}

/** A command's stdout, its environment extended by env (secrets: never argv); stderr passed on. */
function execText(bin, args, env) {
  return new Promise((resolve) => {
    const child = execFile(bin, args, { env: { ...process.env, ...env }, encoding: 'utf8' },
      (err, stdout) => resolve({ code: err ? (typeof err.code === 'number' ? err.code : 127) : 0, stdout: stdout || '' }));
    child.stderr.pipe(process.stderr);
  });
}

async function fingerprint(key) {
  const r = await execText(path.join(BIN_DIR, 'chisel-server'), ['fingerprint'], { CHISEL_KEY: key });
  const fp = r.stdout.trim();
  if (r.code !== 0 || !fp) die(`${BIN_DIR}/chisel-server fingerprint failed`);
  return fp;
}

/**
 * The chisel client's flags; insecure: --tls-skip-verify (docs/cf-platform.md §6, §13);
 * hostname: the route as Host and TLS server name, for a router dialled by address.
 */
function clientFlags(fp, insecure, hostname = '') {
  return ['--fingerprint', fp, '--keepalive', KEEPALIVE, ...(insecure ? ['--tls-skip-verify'] : []),
    ...(hostname ? ['--hostname', hostname] : [])];
}

function startClient(localPort, auth, fp, server, target, insecure, hostname = '') {
  return startDetached(path.join(BIN_DIR, 'chisel'),
    ['client', ...clientFlags(fp, insecure, hostname), server, `127.0.0.1:${localPort}:${target}`],
    { AUTH: auth }, stateFile('client.log'), stateFile('client.pid'));
}

/** Whether psql SELECT 1 through URL answers 1 (async: a signal can end the wait). */
function psqlAnswers(url) {
  return new Promise((resolve) => {
    // Its arguments are visible to every user (ps): the password goes in its environment.
    const { conninfo, env } = pgTool(url);
    execFile('psql', [conninfo, '-Atqc', 'SELECT 1'], {
      encoding: 'utf8', env: { ...process.env, ...env, PGCONNECT_TIMEOUT: String(PSQL_CONNECT_TIMEOUT_SEC) },
    }, (err, stdout) => resolve(!err && stdout.trim() === '1'));
  });
}

/** psql SELECT 1 through the tunnel, retried; CliError exit 2 with the client's own words. */
async function proveTunnel(url) {
  const deadline = Date.now() + PROVE_TIMEOUT_SEC * 1000;
  let exited = false;
  while (Date.now() < deadline) {
    if (await psqlAnswers(url)) return;
    if ((exited = !pidAlive(stateFile('client.pid')))) break;
    await new Promise((r) => { setTimeout(r, PROVE_RETRY_MS); });
  }
  let lines = [];
  try { lines = fs.readFileSync(stateFile('client.log'), 'utf8').split('\n').filter(Boolean); } catch { /* no log */ }
  // A client that exited says why in its last line (a local port in use); one still retrying, in its first error.
  const last = lines[lines.length - 1] || '';
  const why = exited ? `exited: ${last}` : lines.find((l) => CLIENT_ERROR.test(l)) || last;
  await stopTunnel();
  throw new CliError(`tunnel: the tunnel does not carry traffic: psql SELECT 1 failed (client: ${why})`, 2);
}

let tunnelUp = false;
// The stop a signal started: the proof, seeing its client gone, must not exit 2 before it ends in 128+N.
let signalled = null;

function report(localPort, url, via) {
  tunnelUp = true;
  fs.writeFileSync(stateFile('url'), `${url}\n`, { mode: 0o600 }); // it holds the password
  log(`tunnel up: 127.0.0.1:${localPort} -> ${via} (psql SELECT 1 through it works); stop: scripts/tunnel.sh --stop`);
  process.stdout.write(`psql ${shellQuote(url)}\nexport RESULTS_DATABASE_URL=${shellQuote(url)}\n`);
}

async function tunnelLocal(p, localPort) {
  await localPlatformUp(p);
  if (!(await p.cfCurlJson(`/v3/service_instances?names=${SERVICE}`)).resources?.length) {
    die(`no local ${SERVICE}: scripts/push.sh APP creates it, or cf create-service postgres local ${SERVICE}`);
  }
  const dbUrl = await p.resultsDbUrl();
  const port = await freeServerPort(localPort);
  const auth = `tunnel:${randomSecret()}`;
  const key = randomSecret();
  const vcap = { postgres: [{ name: SERVICE, label: 'postgres', tags: ['postgres', 'postgresql'], credentials: { uri: dbUrl } }] };
  // The same look-up as on CF, from the document CF would answer.
  const info = tunnelInfo({ environment_variables: { CHISEL_AUTH: auth, CHISEL_KEY: key }, system_env_json: { VCAP_SERVICES: vcap } },
    { service: SERVICE, localPort });
  await startDetached(path.join(BIN_DIR, 'chisel-server'), [],
    { PORT: String(port), HOST: '127.0.0.1', CHISEL_AUTH: auth, CHISEL_KEY: key, VCAP_SERVICES: JSON.stringify(vcap) },
    stateFile('server.log'), stateFile('server.pid'));
  const fp = await fingerprint(key);
  await startClient(localPort, auth, fp, `http://127.0.0.1:${port}`, info.target, false);
  await proveTunnel(info.url);
  report(localPort, info.url, `${info.target} via the local chisel server on 127.0.0.1:${port} (fingerprint ${fp})`);
}

/** Under --dry-run every command is printed, look-ups included, and none runs. */
function dryRun(p, localPort, insecure) {
  const lines = p.name === 'cf' ? [
    `cf app ${APP} --guid`,
    `# when ${APP} is not pushed yet:`,
    formatCmd(['cf', 'push', '-f', `${MANIFEST_DIR}/${APP}.yml`, '--vars-file', p.varsFile]),
    `# when ${APP} lacks the ${SERVICE} binding:`,
    formatCmd(['cf', 'bind-service', APP, SERVICE]),
    formatCmd(['cf', 'restart', APP]),
    'cf curl /v3/apps/GUID/env',
    'cf curl /v3/apps/GUID/routes',
    `CHISEL_KEY=KEY ${BIN_DIR}/chisel-server fingerprint`,
    formatCmd(['AUTH=USER:PASS', `${BIN_DIR}/chisel`, 'client', ...clientFlags('FINGERPRINT', insecure), 'https://ROUTE', `127.0.0.1:${localPort}:DBHOST:DBPORT`]),
  ] : [
    `${CFL} up`,
    `${CFL} login`,
    `cf service-key ${SERVICE} ${RESULTS_KEY} --guid`,
    `# when the key is missing: cf create-service-key ${SERVICE} ${RESULTS_KEY}`,
    'cf curl /v3/service_credential_bindings/GUID/details',
    `PORT=PORT HOST=127.0.0.1 CHISEL_AUTH=tunnel:RANDOM CHISEL_KEY=RANDOM VCAP_SERVICES='{"postgres":[{"name":"${SERVICE}","credentials":{"uri":"URL"}}]}' ${BIN_DIR}/chisel-server`,
    `AUTH=tunnel:RANDOM ${BIN_DIR}/chisel client --fingerprint FINGERPRINT --keepalive ${KEEPALIVE} http://127.0.0.1:PORT 127.0.0.1:${localPort}:DBHOST:DBPORT`,
  ];
  lines.push(`psql postgres://DBUSER:DBPASS@127.0.0.1:${localPort}/DBNAME -Atqc 'SELECT 1'`);
  process.stdout.write(`${lines.join('\n')}\n`);
}

async function tunnelCf(p, localPort, insecure) {
  if (!onPath('cf')) die('the cf CLI is not installed: run scripts/setup.sh (builds it into .tools/bin)');
  if ((await capture(['cf', 'oauth-token'], { stderr: 'ignore' })).code !== 0) {
    die('not logged in to Cloud Foundry: run cf login -a https://api.YOUR-SYSTEM-DOMAIN');
  }
  let guid = await p.appGuid(APP);
  if (!guid) {
    if (!fs.existsSync(p.varsFile)) {
      die(`${p.varsFile} missing: cp ${MANIFEST_DIR}/vars-example.yml ${p.varsFile} and set chisel-auth and chisel-key`);
    }
    log(`pushing ${APP}`);
    await p.cfRun('push', '-f', `${MANIFEST_DIR}/${APP}.yml`, '--vars-file', p.varsFile);
    guid = await p.appGuid(APP);
    if (!guid) die(`cf push ${APP} did not create the app`);
  }
  let envDoc = await p.cfCurlJson(`/v3/apps/${guid}/env`);
  const vcap = (envDoc.system_env_json && envDoc.system_env_json.VCAP_SERVICES) || {};
  if (!Object.values(vcap).some((bs) => Array.isArray(bs) && bs.some((b) => b && b.name === SERVICE))) {
    log(`binding ${SERVICE} to ${APP}`);
    await p.cfRun('bind-service', APP, SERVICE);
    await p.cfRun('restart', APP);
    envDoc = await p.cfCurlJson(`/v3/apps/${guid}/env`);
  }
  const info = tunnelInfo(envDoc, { service: SERVICE, localPort });
  const routes = await p.cfCurlJson(`/v3/apps/${guid}/routes`);
  const route = (routes.resources && routes.resources[0] && routes.resources[0].url) || '';
  if (!route) die(`${APP} has no route: cf map-route ${APP} DOMAIN --hostname HOST (chisel-host of the vars file)`);
  const fp = await fingerprint(info.key);
  // The local platform as a target names its router (no DNS here knows the apps domain).
  const via = await p.routesVia();
  const server = via || `https://${route}`;
  await startClient(localPort, info.auth, fp, server, info.target, insecure, via ? route : '');
  await proveTunnel(info.url);
  report(localPort, info.url, `${info.target} via https://${route}${via ? ` (at ${via})` : ''} (fingerprint ${fp})`);
}

const COMMAND = {
  usage: 'Usage: scripts/tunnel.sh [--platform local|cf] [--local-port N] [--skip-ssl-validation] [--dry-run]\n'
    + '       scripts/tunnel.sh --stop',
  about: 'Open a chisel tunnel to the results database and prove it works.',
  rows: [
    ROWS.platform,
    ['--local-port N', 'localPort', 'str', String(DEFAULT_LOCAL_PORT), 'local end of the tunnel on 127.0.0.1'],
    ['--skip-ssl-validation', 'skipSslValidation', 'bool', false, "cf: the chisel client skips TLS verification of the app's "
      + "route (--tls-skip-verify); default: the cf CLI's own setting (SSLDisabled in $CF_HOME/.cf/config.json, else ~/.cf; "
      + 'docs/cf-platform.md §13)'],
    ['--dry-run', 'dryRun', 'bool', ROWS.dryRun[3], 'print the exact commands, one per line; run none (also DRY_RUN=1)'],
    ['--stop', 'stop', 'bool', false, 'end the tunnel this script started (and the local chisel server)'],
    ROWS.help,
  ],
  notes: [
    'cf: pushes the chisel app when absent (cf push -f manifests/chisel.yml --vars-file',
    'manifests/vars.yml; the manifest binds results-db) and binds results-db when the app',
    'lacks it; reads the tunnel credentials, the key and the results-db binding with',
    '`cf curl /v3/apps/GUID/env` and the route with `cf curl /v3/apps/GUID/routes`; starts',
    'the chisel client pinned to the server\'s fingerprint (computed from the key).',
    'local: runs the same chisel server (chisel/) as a background process in front of the',
    'local results-db (its service key cfscale-scripts, through the cf CLI logged in to the',
    'local platform as by push.sh), with fresh random credentials.',
    'Either way psql SELECT 1 through the tunnel must work before the script says so; then',
    'it prints the psql command and `export RESULTS_DATABASE_URL=...` for run-round.sh',
    '(stdout). State (pids, logs) in .state/tunnel (CFSCALE_TUNNEL_DIR); the proof waits at most',
    'CFSCALE_TUNNEL_TIMEOUT_SEC (20) seconds.',
    'Exit: 0 ok, 1 usage/configuration, 2 the tunnel does not carry traffic. DEBUG=1 traces.',
  ].join('\n'),
};

function parseArgs(argv) {
  const o = cli.parse(argv, COMMAND);
  // A port, not any integer: "08" or "1e3" are typos.
  if (!/^[1-9][0-9]{0,4}$/.test(o.localPort) || Number(o.localPort) > 65535) {
    cli.usageError(`--local-port must be a port number, got "${o.localPort}"`);
  }
  o.localPort = Number(o.localPort);
  return o;
}

async function main(argv) {
  enterRepository();
  const o = parseArgs(argv);
  if (o.stop) { await stopTunnel(); return; }
  const p = await selectPlatform(cli, { platformOpt: o.platform, dryRun: o.dryRun });
  const insecure = skipSslValidation(p, o.skipSslValidation);
  if (o.dryRun) { dryRun(p, o.localPort, insecure); return; }
  if (pidAlive(stateFile('client.pid'))) {
    let what = STATE_DIR;
    try { what = maskCredentials(fs.readFileSync(stateFile('url'), 'utf8').trim()); } catch { /* no url yet */ }
    die(`a tunnel is already running (${what}): scripts/tunnel.sh --stop first`);
  }
  if (fs.existsSync(STATE_DIR)) await stopTunnel(); // leftovers of a run that died (a stale server pid, say)
  fs.mkdirSync(STATE_DIR, { recursive: true });
  // Any end before report() (die, a failed cf command, exit 2) ends what this run started.
  // A signal (Ctrl-C while the proof waits, say) does the same, then exits as a shell reports it.
  for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
    process.on(sig, () => { signalled ??= stopTunnel(true).finally(() => process.exit(128 + os.constants.signals[sig])); });
  }
  try {
    if (await portInUse(o.localPort)) die(`127.0.0.1:${o.localPort} is in use: pick another with --local-port`);
    if (!onPath('psql')) die('psql is missing: run scripts/setup.sh');
    await ensureChisel();
    if (p.name === 'local') await tunnelLocal(p, o.localPort);
    else await tunnelCf(p, o.localPort, insecure);
  } finally {
    if (!tunnelUp) await stopTunnel(true);
  }
}

if (require.main === module) {
  main(process.argv.slice(2)).catch(async (err) => {
    if (signalled) await signalled;
    process.exit(cliExitCode(err));
  });
}
