'use strict';
// apps.js — pushing, scaling and addressing the apps, the same command sequence on both
// platforms. Every function takes the
// Platform of platform.js (p) and honours its --dry-run: mutating commands are printed,
// look-ups still run.
//
// API (every function returns a promise):
//   localPlatformUp(p)             `cfl up` (installing first on a fresh machine: setup.sh,
//                                  which builds the cf CLI), then `cfl login` (the cf login to
//                                  its API, unless the local CF_HOME is logged in there already)
//   localServices(p)               `cf create-service postgres local NAME` for each service
//   buildJavaIfStale(p)            mvn package when java-app.jar is missing or older than its sources
//   pushApp(p, app, instances?)    push from manifests/APP.yml with the platform's vars file
//                                  (on cf a Node app's node_modules must be installed: node-modules.js);
//                                  an app with /timings gets a fresh CONTROL_TOKEN first (control-token.js)
//   scaleApp(p, app, instances, cpu?, guid?)  cpu: the local CPU quota (setCpuQuota; undefined: unchanged)
//   setCpuQuota(p, guid, cpu)      local: the process annotation the local Cloud Controller
//                                  reads as the instances' CPU quota (lib/cpu-quota.js: cores,
//                                  CPU_NONE, or CPU_DEFAULT, which removes it)
//   appAction(p, guid, action)     the v3 start or restart: returns at once, waitRunning waits
//   waitRunning(p, app, guid, n, sinceMs?)  until the process has n instances, all RUNNING; dies
//                                  at the timeout, or at once when a crash since sinceMs (default:
//                                  now) repeats, with the instance's last error line (instance-crashes.js)
//   ensureApp(p, app, n, { cpu, atLeast }) → guid ('' under --dry-run when just pushed);
//                                  an existing app without the CONTROL_TOKEN it takes gets one and a restart
//   instanceStates(p, guid)        one state per instance, index order (v3 process stats)
//   appRoute(p, app, guid) → the first route resource; appBaseUrl(p, app, guid, route?),
//   appHostHeader(p, app, route) (route: appRoute's)
const fs = require('node:fs');
const path = require('node:path');
const { MANIFEST_DIR } = require('./cli');
const { SERVICES, cfJsonOf } = require('./target');
const { onPath, capture } = require('./exec');
const { sleep } = require('./sleep');
const { CliError } = require('../../lib/arg-table');
const { annotationOf, CPU_ANNOTATION, CPU_DEFAULT, CPU_NONE } = require('../../lib/cpu-quota');
const { requireNodeModules } = require('./node-modules');
const { pgBindir } = require('../../local-platform/lib/pg-cluster.js');
const { takesControlToken, setControlToken, giveMissingControlToken } = require('./control-token');
const { findRepeatedCrash, crashReport } = require('./instance-crashes');

const JAVA_DIR = 'java-app';
const JAVA_JAR = `${JAVA_DIR}/target/java-app.jar`;
// Longest wait for instances to be RUNNING after a scale (cf pushes wait by themselves).
const RUNNING_TIMEOUT_SEC = Number(process.env.CFSCALE_RUNNING_TIMEOUT_SEC || 180);
const RUNNING_POLL_MS = 500;
// How often the wait looks for repeated crashes (audit events) while no instance shows CRASHED.
const CRASH_POLL_MS = 2000;
// Locally the loadgen instances get no CPU quota: they are the instrument, not the subject,
// and a throttled generator would measure itself (a quota given explicitly still wins).
const LOADGEN_LOCAL_CPU = CPU_NONE;

/** What a local round needs that a fresh clone lacks: HAProxy, PostgreSQL, npm dependencies. */
function localInstallNeeded() {
  if (!onPath('haproxy')) return true;
  // Where the local platform's PostgreSQL (pg-cluster.js) will look for pg_ctl.
  try { pgBindir(); } catch { return true; }
  return ['node-app', 'loadgen', 'local-platform', 'scripts'].some((part) => !fs.existsSync(path.join(part, 'node_modules')));
}

async function localPlatformUp(p) {
  // The cf CLI is the client of the local platform too: setup.sh builds it (Go tools).
  const tools = onPath('cf') ? ['--no-tools'] : [];
  if (tools.length === 0 || localInstallNeeded()) {
    p.cli.log(`first local run on this machine: installing what it needs (${['scripts/setup.sh', ...tools].join(' ')})`);
    await p.mustRun(['scripts/setup.sh', ...tools]);
  }
  await p.cflRun('up');
  // The platform logs the cf CLI in with its own user, org and space (nothing when it is).
  await p.cflRun('login');
}

async function localServices(p) {
  for (const s of SERVICES) await p.cfRun('create-service', 'postgres', 'local', s);
}

/** The quota set; `cf curl` exits 0 on an HTTP error, so its answer is checked (cfJsonOf): a refusal dies. */
async function setCpuQuota(p, guid, cpu) {
  const body = JSON.stringify({ metadata: { annotations: { [CPU_ANNOTATION]: annotationOf(cpu) } } });
  const argv = [...p.cf, 'curl', '-X', 'PATCH', `/v3/processes/${guid}`, '-d', body];
  if (p.dryRun) {
    p.printCmd(argv);
    return;
  }
  try {
    cfJsonOf(`/v3/processes/${guid}`, await capture(argv, { stderr: 'pipe' }));
  } catch (err) {
    p.cli.die(`the CPU quota of ${guid}: ${err.message}`);
  }
}

/** The CPU quota annotation of an app's web process ('' without one: the default quota). */
async function cpuAnnotation(p, guid) {
  return (await p.cfCurlJson(`/v3/processes/${guid}`)).metadata?.annotations?.[CPU_ANNOTATION] ?? '';
}

/** Any file or directory under dir (or dir itself) modified after mtimeNs (find -newer). */
function newerThan(dir, mtimeNs) {
  let st;
  try {
    st = fs.statSync(dir, { bigint: true });
  } catch {
    return false;
  }
  if (st.mtimeNs > mtimeNs) return true;
  if (!st.isDirectory()) return false;
  return fs.readdirSync(dir).some((e) => newerThan(path.join(dir, e), mtimeNs));
}

async function buildJavaIfStale(p) {
  if (fs.existsSync(JAVA_JAR)) {
    const jar = fs.statSync(JAVA_JAR, { bigint: true }).mtimeNs;
    if (!newerThan(`${JAVA_DIR}/src`, jar) && !newerThan(`${JAVA_DIR}/pom.xml`, jar)) return;
  }
  p.cli.log('building java-app (mvn package)');
  await p.mustRun(['mvn', '-q', '-B', '-f', `${JAVA_DIR}/pom.xml`, '-DskipTests', 'package']);
}

/**
 * A fresh control credential for an app whose /timings take one (control-token.js), set before
 * `cf push` starts it: without one its control endpoints stay closed. An app not there yet is
 * created empty first (`cf create-app`), so the push finds the variable; one there without a
 * token (a plain `cf push`) is said to get one.
 */
async function setFreshControlToken(p, app) {
  if (!takesControlToken(app)) return;
  let guid = await p.appGuid(app);
  if (!guid) {
    await p.cfRun('create-app', app);
    guid = await guidOrPlaceholder(p, app);
  } else if (await giveMissingControlToken(p, app, guid, 'pushing it')) {
    return;
  }
  await setControlToken(p, guid);
}

async function pushApp(p, app, instances = '') {
  if (app === 'java-app') await buildJavaIfStale(p);
  if (p.name === 'cf') requireNodeModules(p, app);
  await setFreshControlToken(p, app);
  const args = ['push', app, '-f', `${MANIFEST_DIR}/${app}.yml`, '--vars-file', p.varsFile];
  // cf push prints the manifest diff, and CONTROL_TOKEN, absent from the manifest, in it as a
  // removal, in full, unless the env values are redacted (docs/cf-platform.md §20).
  if (takesControlToken(app)) args.push('--redact-env');
  if (instances) args.push('-i', String(instances));
  await p.cfRun(...args);
  // A local CPU quota: CF has none (CPU follows memory there, docs/cf-platform.md §7).
  if (p.name === 'local' && app === 'loadgen') await setCpuQuota(p, await guidOrPlaceholder(p, app), LOADGEN_LOCAL_CPU);
}

async function guidOrPlaceholder(p, app) {
  return (await p.appGuid(app)) || (p.dryRun ? `<${app}-guid>` : p.cli.die(`${app}: cf app ${app} --guid finds nothing`));
}

/** scaleApp — cpu (lib/cpu-quota.js) is a local-platform quota, set before the count changes. */
async function scaleApp(p, app, instances, cpu = undefined, guid = '') {
  const quota = cpu === undefined && p.name === 'local' && app === 'loadgen' ? LOADGEN_LOCAL_CPU : cpu;
  if (quota !== undefined) await setCpuQuota(p, guid || await guidOrPlaceholder(p, app), quota);
  await p.cfRun('scale', app, '-i', String(instances));
}

async function instanceStates(p, guid, opts) {
  const doc = await p.cfCurlJson(`/v3/apps/${guid}/processes/web/stats`, opts);
  return [...doc.resources].sort((a, b) => a.index - b.index).map((r) => r.state);
}

/**
 * The v3 app action start or restart (stop, then start): unlike `cf start` and `cf restart`,
 * which poll until an instance runs and fail on a crash with a message of their own, it returns
 * at once, so that waitRunning waits, and stops at a repeated crash.
 */
async function appAction(p, guid, action) {
  const argv = [...p.cf, 'curl', '-X', 'POST', `/v3/apps/${guid}/actions/${action}`];
  if (p.dryRun) {
    p.printCmd(argv);
    return;
  }
  try {
    cfJsonOf(argv[argv.length - 1], await capture(argv, { stderr: 'pipe' }));
  } catch (err) {
    p.cli.die(err.message);
  }
}

async function waitRunning(p, app, guid, want, sinceMs = Date.now()) {
  if (p.dryRun) return;
  const deadline = Date.now() + RUNNING_TIMEOUT_SEC * 1000;
  let crashCheckAt = 0;
  for (;;) {
    // A failed look-up right after a push or scale is retried until the deadline.
    let states;
    try {
      states = await instanceStates(p, guid, { quiet: true });
    } catch (err) {
      states = [`look-up failed: ${err.message}`];
    }
    const running = states.filter((s) => s === 'RUNNING').length;
    if (states.length === Number(want) && running === Number(want)) return;
    if (states.includes('CRASHED') || Date.now() >= crashCheckAt) {
      crashCheckAt = Date.now() + CRASH_POLL_MS;
      const crash = await findRepeatedCrash(p, guid, sinceMs);
      if (crash) {
        const lines = await crashReport(p, app, crash);
        for (const line of lines.slice(0, -1)) p.cli.log(line);
        p.cli.die(lines[lines.length - 1]);
      }
    }
    if (Date.now() >= deadline) {
      p.cli.die(`instances not running after ${RUNNING_TIMEOUT_SEC}s: ${running} of ${want} RUNNING (${states.map((s) => `${s} `).join('')})`);
    }
    await sleep(RUNNING_POLL_MS);
  }
}

/** The v3 app state (STARTED | STOPPED), '' when the look-up failed (it says why). */
async function appState(p, guid) {
  try {
    return (await p.cfCurlJson(`/v3/apps/${guid}`, { quiet: true })).state || '';
  } catch (err) {
    p.cli.log(err.message);
    return '';
  }
}

/**
 * Push when absent, else start/scale. Exactly n instances, and the cpu quota (local, typed as
 * lib/cpu-quota.js; undefined: left as it is) applied every time; atLeast: scale up only when
 * fewer run. CPU_DEFAULT: a quota an earlier call left is taken back to the default, so no
 * round inherits another's. An app without the CONTROL_TOKEN it takes (a plain `cf push`) gets one and is
 * restarted to start with it. Waits until all are RUNNING; returns the guid. The usual case
 * (already right) costs two look-ups, one more for an app with a token, one more with CPU_DEFAULT.
 */
async function ensureApp(p, app, n, { cpu: asked = undefined, atLeast = false } = {}) {
  // A CPU quota is the local platform's: CF has none (CPU follows memory, docs/cf-platform.md §7).
  const cpu = p.name === 'local' ? asked : undefined;
  const setQuota = cpu !== undefined && cpu !== CPU_DEFAULT;
  let want = Number(n);
  let guid = await p.appGuid(app);
  const sinceMs = Date.now();
  if (!guid) {
    if (p.name === 'local') await localServices(p);
    await pushApp(p, app, want);
    if (setQuota) await setCpuQuota(p, await guidOrPlaceholder(p, app), cpu);
    if (p.dryRun) return '';
    guid = await p.appGuid(app);
    if (!guid) p.cli.die(`${app}: pushed, but cf app ${app} --guid finds nothing`);
  } else {
    const restart = await giveMissingControlToken(p, app, guid, 'restarting it');
    const states = await instanceStates(p, guid);
    const have = states.length;
    if (atLeast && have >= want) want = have;
    const reset = cpu === CPU_DEFAULT && (await cpuAnnotation(p, guid)) !== '';
    if (have !== want || (setQuota && !atLeast) || reset) {
      await scaleApp(p, app, want, setQuota || reset ? cpu : undefined, guid);
    } else if (!restart && states.filter((s) => s === 'RUNNING').length === want) {
      return guid;
    }
    if (restart) await appAction(p, guid, 'restart');
    else if ((await appState(p, guid)) !== 'STARTED') await appAction(p, guid, 'start');
  }
  await waitRunning(p, app, guid, want, sinceMs);
  return guid;
}

/** An app's first route (the v3 route resource: host, url, options); dies when it has none. */
async function appRoute(p, app, guid) {
  const route = (await p.cfCurlJson(`/v3/apps/${guid}/routes`)).resources?.[0];
  if (!route?.url) p.cli.die(`${app} has no route (cf curl /v3/apps/${guid}/routes)`);
  return route;
}

/**
 * The base URL of an app's route: local → the router (Host header appHostHeader); cf →
 * https://ROUTE, of the route given (appRoute) or looked up, unless the API names where its
 * routes are served (p.routesVia(): the local platform's router, reached as a cf target).
 */
async function appBaseUrl(p, app, guid, route = null) {
  if (p.name === 'local') {
    const r = await p.cflQuery('router-url');
    if (r.code !== 0) throw new CliError('', r.code);
    return r.stdout.replace(/\n+$/, '');
  }
  const via = await p.routesVia();
  if (via) return via;
  if (p.dryRun && guid.startsWith('<')) return `https://<${app}-route>`;
  return `https://${(route ?? await appRoute(p, app, guid)).url}`;
}

/**
 * The Host header a router reached by address needs (local, or cf with routesVia): the
 * app's route as the API gives it back (the host is a manifest var, not the app's name);
 * '' on a foundation, where the URL carries the host.
 */
async function appHostHeader(p, app, route) {
  if (p.name !== 'local' && !(await p.routesVia())) return '';
  return route ? route.url.split('/')[0] : `<${app}-route>`;
}

module.exports = {
  localPlatformUp, localServices, setCpuQuota, buildJavaIfStale, pushApp, scaleApp, appAction, waitRunning, ensureApp,
  instanceStates, appRoute, appBaseUrl, appHostHeader, LOADGEN_LOCAL_CPU,
};
