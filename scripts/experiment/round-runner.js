// round-runner.js — run one round with run-round (scripts/round/run-round.js, the program of
// scripts/run-round.sh, started with this node) and apply the round's app settings on the
// platform first (and restart the app when the plan restarts it every round). run-round's exit codes: 0 ok,
// 1 usage/config (the experiment stops: the plan is wrong), 2 the round failed its own
// criteria (recorded, the experiment goes on; a resumed run retries it).
// The round id is read back from `rounds` by the unique label we pass, so nothing
// depends on run-round's output format (a final `round_id=N` line is used when present).
'use strict';
const { spawn, spawnSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');
const YAML = require('yaml');
const { REPO_ROOT, localCfEnv } = require('../ops/results-url.js');
const { CONTROL_SETTINGS } = require('../../plans/plan.js');

const EXIT_USAGE = 1;
const EXIT_ROUND_FAILED = 2;

/** The argv that runs FILE: a .js file with node (this one; no shell between two Node programs), else the file itself. */
const commandOf = (file, node = process.execPath) => (file.endsWith('.js') ? [node, file] : [file]);

/**
 * The flags run-round takes, read from its --help: { ok, flags: Set of "--name" } or
 * { ok: false, reason }. A round needs every flag it is given (unsupportedFlags).
 */
function runRoundFlags(runRound) {
  const [cmd, ...pre] = commandOf(runRound);
  const r = spawnSync(cmd, [...pre, '--help'], { encoding: 'utf8', timeout: 30_000 });
  if (r.error || r.status !== 0) {
    return { ok: false, reason: r.error ? r.error.message : `exit ${r.status}: ${(r.stderr || '').trim().split('\n')[0]}` };
  }
  return { ok: true, flags: new Set(`${r.stdout}\n${r.stderr}`.match(/--[a-z][a-z0-9-]*/g)) };
}

/** The flags of args that run-round's --help does not list (a round is never run without one of them). */
function unsupportedFlags(args, flags) {
  return [...new Set(args.filter((a) => a.startsWith('--') && !flags.has(a)))];
}

const ms = (v) => `${v}ms`;

/** The steady-state gate's settings a plan gives (`steady`), as run-round.sh flags; none for its defaults. */
function steadyArgs(st) {
  if (!st) return [];
  const a = [];
  if (st.windowMs !== null) a.push('--steady-window', ms(st.windowMs));
  if (st.cv !== null) a.push('--steady-cv', String(st.cv));
  if (st.trend !== null) a.push('--steady-trend', String(st.trend));
  if (st.maxWarmupMs !== null) a.push('--max-warmup', ms(st.maxWarmupMs));
  return a;
}

/** run-round.sh arguments for a round spec (order.js roundSpec); its settings are applied apart (makeSettingsApplier). */
function runRoundArgs(spec) {
  const a = ['--app', spec.app, '--instances', String(spec.instances), '--loadgens', String(spec.loadgens)];
  if (spec.rate !== null && spec.rate !== undefined) a.push('--rate', String(spec.rate));
  else a.push('--parallel', String(spec.parallel));
  if (spec.requests) a.push('--requests', String(spec.requests));
  else a.push('--duration', ms(spec.durationMs));
  if (spec.warmupMs !== null && spec.warmupMs !== undefined) a.push('--warmup', ms(spec.warmupMs));
  else a.push(...steadyArgs(spec.steady));
  a.push('--timeout', ms(spec.timeoutMs), '--scenario', spec.scenario, '--label', spec.label, '--platform', spec.platform);
  if (spec.keepalive === false) a.push('--no-keepalive');
  if (spec.frontProxies) a.push('--front-proxies', String(spec.frontProxies));
  if (spec.cpu) a.push('--cpu', String(spec.cpu));
  if (spec.prewarm) a.push('--prewarm', String(spec.prewarm));
  if (spec.loadbalancing) a.push('--loadbalancing', spec.loadbalancing);
  for (const e of spec.events || []) a.push('--event', e);
  a.push('--experiment', spec.experiment, '--max-error-rate', String(spec.maxErrorRate));
  return a;
}

// The cf CLI on both platforms (locally logged in to the local platform: localCfEnv);
// CFSCALE_PLATFORM_CLI overrides (tests).
function platformCli() {
  return process.env.CFSCALE_PLATFORM_CLI || 'cf';
}

function run(cmd, args, log, env = process.env) {
  // Look-ups (cf app, cf curl) are not logged: only what changes the app.
  if (!['app', 'curl'].includes(args[0])) log(`$ ${[cmd, ...args].join(' ')}`);
  const r = spawnSync(cmd, args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], timeout: 600_000, env });
  return { status: r.error ? 127 : r.status, stdout: r.stdout || '', stderr: (r.stderr || r.error?.message || '').trim() };
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
  const cfEnv = () => {
    if (!env) env = platform === 'local' && !process.env.CFSCALE_PLATFORM_CLI ? localCfEnv() : process.env;
    return env;
  };
  const cf = (args) => run(cli, args, log, cfEnv());
  const state = new Map(); // app → { env: {name: value}, memoryMb }
  const ensurePushed = (app) => {
    if (cf(['app', app, '--guid']).status === 0) return;
    const p = run(process.execPath, [path.join(REPO_ROOT, 'scripts/ops/push.js'), app, '--platform', platform], log);
    if (p.status !== 0) throw new Error(`cannot push ${app}: ${p.stderr.split('\n').pop()}`);
  };
  const must = (args, what) => {
    const r = cf(args);
    if (r.status !== 0) throw new Error(`${what} failed: ${r.stderr.split('\n').pop()}`);
    return r.stdout;
  };
  const current = (app) => {
    if (!state.has(app)) {
      ensurePushed(app);
      const guid = must(['app', app, '--guid'], `cf app ${app} --guid`).trim();
      const vars = JSON.parse(must(['curl', `/v3/apps/${guid}/environment_variables`], `cf curl ${app} env`)).var ?? {};
      const web = JSON.parse(must(['curl', `/v3/apps/${guid}/processes/web`], `cf curl ${app} process`));
      state.set(app, {
        env: Object.fromEntries(Object.entries(vars).filter(([k]) => SETTING_NAMES.has(k)).map(([k, v]) => [k, String(v)])),
        memoryMb: web.memory_in_mb ?? null,
      });
    }
    return state.get(app);
  };
  // restart: restart the app even when nothing changed (plan `restart: round`: every round a fresh process).
  return (app, settings, memoryMb = null, { restart: always = false } = {}) => {
    const base = manifestDefaults(app, platform);
    const want = { ...base.env, ...settings };
    const have = current(app);
    let restart = always;
    for (const k of new Set([...Object.keys(want), ...Object.keys(have.env)])) {
      if (want[k] === have.env[k]) continue;
      if (want[k] === undefined) must(['unset-env', app, k], `unset-env ${app} ${k}`);
      else must(['set-env', app, k, want[k]], `set-env ${app} ${k}`);
      restart = true;
    }
    have.env = want;
    const mem = memoryMb ?? base.memoryMb;
    if (mem !== null && mem !== have.memoryMb) {
      must(['scale', app, '-m', `${mem}M`, '-f'], `scale ${app} -m ${mem}M`);
      have.memoryMb = mem;
      restart = false; // the scale restarted it
    }
    if (restart) must(['restart', app], `restart ${app}`);
  };
}

/** Run run-round for a spec; resolves {code, roundId} (roundId from a round_id=N line). */
function runRoundProcess(runRound, args, { onLine = () => {} } = {}) {
  return new Promise((resolve) => {
    const [cmd, ...pre] = commandOf(runRound);
    const child = spawn(cmd, [...pre, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    let roundId = null;
    const lines = (chunk, stream) => {
      for (const line of chunk.toString().split('\n')) {
        if (!line) continue;
        const m = /^round_id=(\d+)\s*$/.exec(line);
        if (m) roundId = Number(m[1]);
        onLine(line, stream);
      }
    };
    child.stdout.on('data', (c) => lines(c, 'stdout'));
    child.stderr.on('data', (c) => lines(c, 'stderr'));
    child.on('error', (e) => resolve({ code: 127, roundId, error: e.message }));
    child.on('close', (code) => resolve({ code: code ?? 128, roundId }));
  });
}

// scripts/run-round.sh's Node program, run with this node.
const DEFAULT_RUN_ROUND = path.join(REPO_ROOT, 'scripts/round/run-round.js');

module.exports = { runRoundFlags, unsupportedFlags, runRoundArgs, makeSettingsApplier, manifestDefaults, runRoundProcess, commandOf, EXIT_USAGE, EXIT_ROUND_FAILED, DEFAULT_RUN_ROUND };
