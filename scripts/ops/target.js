'use strict';
// target.js — the one place where cf commands run, for the cfscale Node scripts: platform
// selection, --dry-run, the look-ups (`cf app NAME --guid`, `cf curl /v3/...` JSON, never
// human tables), the results database URL and the cf preflight. Both platforms are driven
// by the real cf CLI; they differ only in where it is logged in: the local platform
// (scripts/cfl up) answers Cloud Controller's v3 API on `scripts/cfl api-url`, and its cf
// config lives in a CF_HOME of its own (LOCAL_CF_HOME), so the user's own cf target is left
// alone.
//
// API:
//   enterRepository()  for a command's entry point, before anything runs: the process moves to
//     the repository root, so printed commands read as typed there, and .tools/bin is appended
//     to PATH (where scripts/setup.sh builds the cf CLI; a cf already on PATH wins)
//   Every look-up and run below is asynchronous (a promise of what is said).
//   selectPlatform(cli, { platformOpt, dryRun }) → Promise<Platform> (cli from cli.js makeCli):
//     --platform, else PLATFORM, else cf when `cf target` succeeds on an API whose /v3/info
//     does not name the local platform (LOCAL_INFO_NAME), else local.
//   Platform: name ('local'|'cf'), cf (argv prefix ['cf']), varsFile, dryRun, cli;
//     printCmd(argv)          the command, shell-quoted, on one stdout line
//     run(argv) → code        a command that changes something: printed under --dry-run
//                             (code 0), else run with its stdout on stderr
//     mustRun(argv)           run(); a failure throws CliError with the command's code (no
//                             message: the command said why)
//     cfRun(...args)          mustRun of a cf command
//     cfQuery(...args, opts?) read-only look-up, runs even under --dry-run → {code, stdout, stderr}
//     cflRun(...args), cflQuery(...args, opts?)  the same for the local platform's own
//                             verbs (scripts/cfl up|down|status|api-url|router-url)
//     appGuid(app) → guid or ''
//     routesVia() → cf: where the API says its routes are served (/v3/info custom
//                             router_https_url: the local platform's router), '' when it
//                             names none (a foundation: DNS takes https://ROUTE to Gorouter)
//     cfCurlJson(path, { quiet }) → the document; dies on failure, a CF error document
//                             or non-JSON (quiet: no messages, throws instead)
//     resultsDbUrl()          local: the credentials of the service key RESULTS_KEY of
//                             results-db (made once); cf: RESULTS_DATABASE_URL
//     cfPreflight()           cf CLI, login, target, space, services, vars file; dies naming
//                             the command that fixes the missing piece
//   cfJsonOf(path, { code, stdout }) → the document of a finished `cf curl PATH` (throws the message)
//   wholeSecondUtc(time) → an ISO time or ms floored to the whole second, as CC's list filters
//                             (created_ats[gte]) take it; a placeholder (--dry-run) as it is
//   localCfHome() → the local platform's CF_HOME (beside `scripts/cfl home`)
//   SERVICES, ALL_APPS, CFL, RESULTS_KEY, ROOT
const fs = require('node:fs');
const path = require('node:path');
const { ROOT, MANIFEST_DIR } = require('./cli');
const { formatCmd, run, capture, onPath } = require('./exec');
const { CliError } = require('../../lib/arg-table');

const CFL = 'scripts/cfl';
// The name the local platform's /v3/info gives (local-platform/lib/cc-api/root.js): no
// foundation is called so, and the scripts never take it for one (docs/cf-platform.md §22).
const LOCAL_INFO_NAME = 'cfscale-local';
// The service key through which the scripts reach results-db on the local platform (a
// client outside the platform gets credentials from a key, as `cf service-key` shows them).
const RESULTS_KEY = 'cfscale-scripts';
// The apps of the harness, in push order (loadgen last: it is the instrument).
const ALL_APPS = ['node-app', 'java-app', 'loadgen'];
// Services every app manifest binds (manifests/*.yml).
const SERVICES = ['node-db', 'java-db', 'results-db'];

function enterRepository() {
  process.chdir(ROOT);
  const tools = path.join(ROOT, '.tools/bin');
  if (!process.env.PATH.split(':').includes(tools)) process.env.PATH = `${process.env.PATH}:${tools}`;
}

/** Has a cf target: cf installed and `cf target` exits 0. */
async function cfTargeted() {
  return (await capture(['cf', 'target'], { stderr: 'ignore' })).code === 0;
}

/** The targeted API's /v3/info (anonymous in CC), {} when it cannot be read. */
async function cfInfo() {
  try {
    return cfJsonOf('/v3/info', await capture(['cf', 'curl', '/v3/info'], { stderr: 'ignore' }));
  } catch {
    return {};
  }
}

/**
 * The document a `cf curl PATH` printed ({ code, stdout } of the run); throws an Error
 * with one line on failure, a CF API error document or non-JSON.
 */
function cfJsonOf(apiPath, { code, stdout }) {
  if (code !== 0) throw new Error(`cf curl ${apiPath} failed`);
  let doc;
  try {
    doc = JSON.parse(stdout);
  } catch {
    doc = undefined;
  }
  if (doc && typeof doc === 'object' && !Array.isArray(doc) && 'errors' in doc) {
    throw new Error(`cf curl ${apiPath}: ${apiErrors(doc)}`);
  }
  if (doc === undefined || doc === null || doc === false) {
    throw new Error(`cf curl ${apiPath}: not JSON: ${stdout.replace(/\n+$/, '').slice(0, 200)}`);
  }
  return doc;
}

/**
 * A time (ISO text or ms) floored to the whole second, as CC's list filters take it: only
 * YYYY-MM-DDThh:mm:ssZ, anything else is a 400 (docs/cf-platform.md §9). A placeholder
 * (--dry-run) stays as it is.
 */
function wholeSecondUtc(time) {
  const ms = typeof time === 'number' ? time : Date.parse(time);
  return Number.isNaN(ms) ? time : `${new Date(ms - (ms % 1000)).toISOString().slice(0, 19)}Z`;
}

/** The message of a CF API error document: each error's title, code and detail. */
function apiErrors(doc) {
  return doc.errors.map((e) => `${e.title ?? 'error'} ${e.code ?? ''}: ${e.detail ?? ''}`).join('; ');
}

class Platform {
  /** cfHome: the local platform's CF_HOME (localCfHome), for name 'local'. */
  constructor(cli, name, dryRun, cfHome = '') {
    this.cli = cli;
    this.name = name;
    this.dryRun = dryRun;
    this.cf = ['cf'];
    if (name === 'local') process.env.CF_HOME = cfHome;
    this.varsFile = process.env.CFSCALE_VARS_FILE
      || `${MANIFEST_DIR}/${name === 'local' ? 'vars-local.yml' : 'vars.yml'}`;
  }

  printCmd(argv) {
    process.stdout.write(`${formatCmd(argv)}\n`);
  }

  async run(argv) {
    if (this.dryRun) {
      this.printCmd(argv);
      return 0;
    }
    return run(argv);
  }

  async mustRun(argv) {
    const code = await this.run(argv);
    if (code !== 0) throw new CliError('', code);
  }

  cfRun(...args) {
    return this.mustRun([...this.cf, ...args]);
  }

  cfQuery(...args) {
    const opts = typeof args[args.length - 1] === 'object' ? args.pop() : {};
    return capture([...this.cf, ...args], opts);
  }

  cflRun(...args) {
    return this.mustRun([CFL, ...args]);
  }

  cflQuery(...args) {
    const opts = typeof args[args.length - 1] === 'object' ? args.pop() : {};
    return capture([CFL, ...args], opts);
  }

  async routesVia() {
    if (this.name !== 'cf') return '';
    if (this.via === undefined) this.via = (await cfInfo()).custom?.router_https_url || '';
    return this.via;
  }

  async appGuid(app) {
    const r = await this.cfQuery('app', app, '--guid', { stderr: 'ignore' });
    const out = r.stdout.replace(/\n+$/, '');
    return r.code === 0 && /^[0-9A-Za-z-]+$/.test(out) ? out : '';
  }

  async cfCurlJson(apiPath, { quiet = false } = {}) {
    const r = await this.cfQuery('curl', apiPath, { stderr: quiet ? 'ignore' : 'inherit' });
    try {
      return cfJsonOf(apiPath, r);
    } catch (err) {
      if (quiet) throw err;
      return this.cli.die(err.message);
    }
  }

  /** The local results-db's credentials URI, through its service key (made when missing). */
  async localServiceUrl(service) {
    const keyGuid = async () => {
      const r = await this.cfQuery('service-key', service, RESULTS_KEY, '--guid', { stderr: 'ignore' });
      const out = r.stdout.trim();
      return r.code === 0 && /^[0-9a-f-]+$/.test(out) ? out : '';
    };
    let guid = await keyGuid();
    if (!guid) {
      await this.cfRun('create-service-key', service, RESULTS_KEY);
      guid = await keyGuid();
      if (!guid) this.cli.die(`cf service-key ${service} ${RESULTS_KEY} --guid finds nothing after cf create-service-key`);
    }
    const uri = (await this.cfCurlJson(`/v3/service_credential_bindings/${guid}/details`)).credentials?.uri;
    if (!uri) this.cli.die(`the service key ${RESULTS_KEY} of ${service} has no credentials.uri`);
    return uri;
  }

  async resultsDbUrl() {
    if (this.name === 'local') return this.localServiceUrl('results-db');
    if (!process.env.RESULTS_DATABASE_URL) {
      this.cli.die('RESULTS_DATABASE_URL is not set: open the tunnel with scripts/tunnel.sh and export the URL it prints');
    }
    return process.env.RESULTS_DATABASE_URL;
  }

  /** The space targeted by the cf CLI, from its JSON config (cf CLI v7/v8 layout). */
  static cfSpaceGuid() {
    const config = path.join(process.env.CF_HOME || process.env.HOME || '', '.cf/config.json');
    try {
      return JSON.parse(fs.readFileSync(config, 'utf8')).SpaceFields?.GUID || '';
    } catch {
      return '';
    }
  }

  async cfPreflight() {
    const ok = async (args) => (await capture(['cf', ...args], { stderr: 'ignore' })).code === 0;
    const { die } = this.cli;
    if (!onPath('cf')) {
      die('the cf CLI is not installed: run scripts/setup.sh (builds it into .tools/bin) or install cf v8');
    }
    if (!(await ok(['oauth-token']))) die('not logged in to Cloud Foundry: run cf login -a https://api.YOUR-SYSTEM-DOMAIN');
    if (!(await ok(['target']))) die('no cf target: run cf target -o ORG -s SPACE');
    const space = Platform.cfSpaceGuid();
    if (!space) die('no space targeted: run cf target -o ORG -s SPACE');
    const found = (await this.cfCurlJson(`/v3/service_instances?names=${SERVICES.join(',')}&space_guids=${space}`))
      .resources.map((r) => r.name);
    const missing = SERVICES.filter((s) => !found.includes(s));
    if (missing.length > 0) {
      die(`missing services: ${missing.join(' ')}: create each with cf create-service OFFERING PLAN NAME (see cf marketplace)`);
    }
    if (!fs.existsSync(this.varsFile)) {
      die(`${this.varsFile} missing: cp ${MANIFEST_DIR}/vars-example.yml ${this.varsFile} and edit it`);
    }
  }
}

/** The local platform's CF_HOME: beside its state, so each CFSCALE_HOME has its own login. */
async function localCfHome() {
  const r = await capture([path.join(ROOT, CFL), 'home']);
  if (r.code !== 0) throw new CliError('', r.code);
  return path.join(r.stdout.trim(), 'cf-home');
}

async function selectPlatform(cli, { platformOpt = '', dryRun = false } = {}) {
  let name = platformOpt || process.env.PLATFORM || '';
  if (!name) name = (await cfTargeted()) && (await cfInfo()).name !== LOCAL_INFO_NAME ? 'cf' : 'local';
  if (name !== 'local' && name !== 'cf') cli.usageError(`--platform must be local or cf, got "${name}"`);
  return new Platform(cli, name, dryRun, name === 'local' ? await localCfHome() : '');
}

module.exports = { enterRepository, selectPlatform, Platform, cfJsonOf, wholeSecondUtc, localCfHome, SERVICES, ALL_APPS, CFL, RESULTS_KEY, ROOT, LOCAL_INFO_NAME };
