// round-runner.js — one round of a plan: its options, typed as runRound takes them
// (scripts/round/round.js, run in this process; run-round-args.js roundOptions checks them),
// and the round's app settings applied on the platform first (and the app restarted when the
// plan restarts it every round). A round's outcome: code 0 ok, 1 usage/config (the experiment
// stops: the plan is wrong), 2 the round failed its own criteria (recorded, the experiment goes
// on; a resumed run retries it).
'use strict';
const { execFile } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');
const YAML = require('yaml');
const { REPO_ROOT, localCfEnv } = require('../ops/results-url.js');
const { CONTROL_SETTINGS } = require('../../plans/plan.js');
const { COMMAND } = require('../round/run-round-args.js');
const { shellQuote } = require('../ops/exec.js');

const EXIT_USAGE = 1;
const EXIT_ROUND_FAILED = 2;

/** The steady-state gate's settings a plan gives (`steady`), as round options; none for its defaults. */
function steadyValues(st) {
  if (!st) return {};
  return {
    steadyWindowMs: st.windowMs ?? undefined, steadyCv: st.cv ?? undefined,
    steadyTrend: st.trend ?? undefined, maxWarmupMs: st.maxWarmupMs ?? undefined,
  };
}

/**
 * The round options (values by run-round-args.js key, typed: counts, ms, cores) for a round
 * spec (order.js roundSpec); its settings are applied apart (makeSettingsApplier).
 */
function roundValues(spec) {
  const given = (v) => (v === null || v === '' || v === 0 ? undefined : v);
  const open = spec.rate !== null && spec.rate !== undefined;
  return {
    app: spec.app, instances: spec.instances, loadgens: spec.loadgens,
    ...(open ? { rate: spec.rate } : { parallel: spec.parallel }),
    ...(spec.requests ? { requests: spec.requests } : { durationMs: spec.durationMs }),
    ...(spec.warmupMs !== null && spec.warmupMs !== undefined ? { warmupMs: spec.warmupMs } : steadyValues(spec.steady)),
    timeoutMs: spec.timeoutMs, scenario: spec.scenario, label: spec.label, platform: spec.platform,
    noKeepalive: spec.keepalive === false ? true : undefined,
    frontProxies: given(spec.frontProxies), cpu: given(spec.cpu), prewarm: given(spec.prewarm),
    loadbalancing: given(spec.loadbalancing), events: spec.events ?? [],
    experiment: spec.experiment, maxErrorRate: spec.maxErrorRate,
  };
}

/** The run-round.sh command line that runs the same round by hand (the dry run's listing). */
function roundCommandLine(values) {
  const words = ['scripts/run-round.sh'];
  for (const [key, v] of Object.entries(values)) {
    const row = COMMAND.rows.find((r) => r[1] === key);
    if (v === undefined || !row) continue;
    const flag = row[0].split(' ')[0];
    if (row[2] === 'bool') words.push(...(v ? [flag] : []));
    else if (row[2] === 'list') for (const x of v) words.push(flag, String(x));
    else words.push(flag, row[2] === 'dur' ? `${v}ms` : String(v));
  }
  return words.map(shellQuote).join(' ');
}

// The cf CLI on both platforms (locally logged in to the local platform: localCfEnv);
// CFSCALE_PLATFORM_CLI overrides (tests).
function platformCli() {
  return process.env.CFSCALE_PLATFORM_CLI || 'cf';
}

// The longest a cf command of the applier may take (a push or restart that stages the app).
const CF_TIMEOUT_MS = 600_000;

/** A command run to its end → { status, stdout, stderr }: 127 when it could not start. */
function run(cmd, args, log, env = process.env) {
  // Look-ups (cf app, cf curl) are not logged: only what changes the app.
  if (!['app', 'curl'].includes(args[0])) log(`$ ${[cmd, ...args].join(' ')}`);
  return new Promise((resolve) => {
    execFile(cmd, args, { encoding: 'utf8', timeout: CF_TIMEOUT_MS, env, maxBuffer: 64 * 1024 * 1024 }, (err, stdout, stderr) => {
      const status = !err ? 0 : typeof err.code === 'number' ? err.code : 127;
      resolve({ status, stdout: stdout || '', stderr: (stderr || (status === 127 ? err.message : '') || '').trim() });
    });
  });
}

// The apps' settings, the variables of their one settings spec (contract/settings.json): the
// applier sets, restores and unsets these and no other variable of the app; not the control
// credential, which push sets and no plan may (plan.js CONTROL_SETTINGS).
const SETTING_NAMES = new Set(require('../../contract/settings.json').settings.map((x) => x.name).filter((n) => !CONTROL_SETTINGS.includes(n)));

/**
 * What a round that sets nothing runs with: the app's manifest env (settings only) and memory
 * (MB), with the vars file its push takes (scripts/ops/push.js: vars-local.yml locally).
 */
function manifestDefaults(app, platform, root = REPO_ROOT) {
  const file = path.join(root, 'manifests', `${app}.yml`);
  if (!fs.existsSync(file)) return { env: {}, memoryMb: null }; // an app of the user's own: nothing to restore
  const vars = YAML.parse(fs.readFileSync(path.join(root, 'manifests', platform === 'local' ? 'vars-local.yml' : 'vars.yml'), 'utf8')) ?? {};
  const text = fs.readFileSync(file, 'utf8')
    .replace(/\(\(([\w-]+)\)\)/g, (m, k) => (k in vars ? String(vars[k]) : m));
  const a = YAML.parse(text).applications[0];
  const env = Object.fromEntries(Object.entries(a.env ?? {}).filter(([k]) => SETTING_NAMES.has(k)).map(([k, v]) => [k, String(v)]));
  const m = /^(\d+)\s*(M|G)B?$/i.exec(String(a.memory ?? ''));
  return { env, memoryMb: m ? Number(m[1]) * (m[2].toUpperCase() === 'G' ? 1024 : 1) : null };
}

/**
 * The settings (environment variables) and memory of a round, applied exactly: the plan's
 * settings over the manifest's, the plan's memory or the manifest's, so no round inherits what
 * a round of another variant or plan set. The app's state is read once (cf curl), then
 * followed; a change is `set-env`/`unset-env` + `restart`, and `scale APP -m NM -f` (which
 * restarts). An app that does not exist yet is pushed first (scripts/push.sh).
 */
function makeSettingsApplier({ platform, log, cli = platformCli() }) {
  let env = null;
  const cfEnv = async () => {
    if (!env) env = platform === 'local' && !process.env.CFSCALE_PLATFORM_CLI ? await localCfEnv() : process.env;
    return env;
  };
  const cf = async (args) => run(cli, args, log, await cfEnv());
  const state = new Map(); // app → { env: {name: value}, memoryMb }
  const ensurePushed = async (app) => {
    if ((await cf(['app', app, '--guid'])).status === 0) return;
    const p = await run(process.execPath, [path.join(REPO_ROOT, 'scripts/ops/push.js'), app, '--platform', platform], log);
    if (p.status !== 0) throw new Error(`cannot push ${app}: ${p.stderr.split('\n').pop()}`);
  };
  const must = async (args, what) => {
    const r = await cf(args);
    if (r.status !== 0) throw new Error(`${what} failed: ${r.stderr.split('\n').pop()}`);
    return r.stdout;
  };
  const current = async (app) => {
    if (!state.has(app)) {
      await ensurePushed(app);
      const guid = (await must(['app', app, '--guid'], `cf app ${app} --guid`)).trim();
      const vars = JSON.parse(await must(['curl', `/v3/apps/${guid}/environment_variables`], `cf curl ${app} env`)).var ?? {};
      const web = JSON.parse(await must(['curl', `/v3/apps/${guid}/processes/web`], `cf curl ${app} process`));
      state.set(app, {
        env: Object.fromEntries(Object.entries(vars).filter(([k]) => SETTING_NAMES.has(k)).map(([k, v]) => [k, String(v)])),
        memoryMb: web.memory_in_mb ?? null,
      });
    }
    return state.get(app);
  };
  // restart: restart the app even when nothing changed (plan `restart: round`: every round a fresh process).
  return async (app, settings, memoryMb = null, { restart: always = false } = {}) => {
    const base = manifestDefaults(app, platform);
    const want = { ...base.env, ...settings };
    const have = await current(app);
    let restart = always;
    for (const k of new Set([...Object.keys(want), ...Object.keys(have.env)])) {
      if (want[k] === have.env[k]) continue;
      if (want[k] === undefined) await must(['unset-env', app, k], `unset-env ${app} ${k}`);
      else await must(['set-env', app, k, want[k]], `set-env ${app} ${k}`);
      restart = true;
    }
    have.env = want;
    const mem = memoryMb ?? base.memoryMb;
    if (mem !== null && mem !== have.memoryMb) {
      await must(['scale', app, '-m', `${mem}M`, '-f'], `scale ${app} -m ${mem}M`);
      have.memoryMb = mem;
      restart = false; // the scale restarted it
    }
    if (restart) await must(['restart', app], `restart ${app}`);
  };
}

module.exports = { roundValues, roundCommandLine, makeSettingsApplier, manifestDefaults, EXIT_USAGE, EXIT_ROUND_FAILED };
