// round-runner.js — run one round with scripts/run-round.sh (another part of cfscale) and
// apply the round's app settings on the platform first. run-round's exit codes: 0 ok,
// 1 usage/config (the experiment stops: the plan is wrong), 2 the round failed its own
// criteria (recorded, the experiment goes on; a resumed run retries it).
// The round id is read back from `rounds` by the unique label we pass, so nothing
// depends on run-round's output format (a final `round_id=N` line is used when present).
'use strict';
const { spawn, spawnSync } = require('node:child_process');
const path = require('node:path');
const { REPO_ROOT, localCfEnv } = require('../results-db.js');

const EXIT_USAGE = 1;
const EXIT_ROUND_FAILED = 2;

/** The flags run-round.sh supports, read from its --help (optional ones are used only then). */
function runRoundFeatures(runRound) {
  const r = spawnSync(runRound, ['--help'], { encoding: 'utf8', timeout: 30_000 });
  if (r.error || r.status !== 0) {
    return { ok: false, reason: r.error ? r.error.message : `exit ${r.status}: ${(r.stderr || '').trim().split('\n')[0]}` };
  }
  const help = `${r.stdout}\n${r.stderr}`;
  return {
    ok: true,
    experiment: /--experiment\b/.test(help),
    setting: /--setting\b/.test(help),
    cpu: /--cpu\b/.test(help),
    prewarm: /--prewarm\b/.test(help),
    loadbalancing: /--loadbalancing\b/.test(help),
    maxErrorRate: /--max-error-rate\b/.test(help),
    frontProxies: /--front-proxies\b/.test(help),
  };
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

/** run-round.sh arguments for a round spec (order.js roundSpec). */
function runRoundArgs(spec, features = {}) {
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
  if (spec.cpu && features.cpu !== false) a.push('--cpu', String(spec.cpu));
  if (spec.prewarm && features.prewarm !== false) a.push('--prewarm', String(spec.prewarm));
  if (spec.loadbalancing && features.loadbalancing !== false) a.push('--loadbalancing', spec.loadbalancing);
  if (features.experiment) a.push('--experiment', spec.experiment);
  if (features.maxErrorRate) a.push('--max-error-rate', String(spec.maxErrorRate));
  if (features.setting) for (const [k, v] of Object.entries(spec.settings)) a.push('--setting', `${k}=${v}`);
  return a;
}

// The cf CLI on both platforms (locally logged in to the local platform: localCfEnv);
// CFSCALE_PLATFORM_CLI overrides (tests).
function platformCli() {
  return process.env.CFSCALE_PLATFORM_CLI || 'cf';
}

function run(cmd, args, log, env = process.env) {
  log(`$ ${[cmd, ...args].join(' ')}`);
  const r = spawnSync(cmd, args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], timeout: 600_000, env });
  return { status: r.error ? 127 : r.status, stderr: (r.stderr || r.error?.message || '').trim() };
}

/**
 * Applies app settings (environment variables) with `set-env` + `restart`, and a variant's
 * memory with `scale APP -m NM -f` (which restarts the app), each only when it differs from
 * what this runner applied last to that app. When the app does not exist yet it is pushed
 * first (scripts/push.sh).
 */
function makeSettingsApplier({ platform, log, cli = platformCli() }) {
  const applied = new Map();
  let env = null;
  const cfEnv = () => {
    if (!env) env = platform === 'local' && !process.env.CFSCALE_PLATFORM_CLI ? localCfEnv() : process.env;
    return env;
  };
  const memory = new Map();
  // A command on the app; when it fails the first time the app may not exist: push it, try again.
  const pushed = new Set();
  const onApp = (app, args, what) => {
    let r = run(cli, args, log, cfEnv());
    if (r.status !== 0 && !pushed.has(app)) {
      const p = run(path.join(REPO_ROOT, 'scripts/push.sh'), [app, '--platform', platform], log);
      if (p.status !== 0) throw new Error(`cannot push ${app}: ${p.stderr.split('\n').pop()}`);
      pushed.add(app);
      r = run(cli, args, log, cfEnv());
    }
    if (r.status !== 0) throw new Error(`${what} failed: ${r.stderr.split('\n').pop()}`);
  };
  return (app, settings, memoryMb = null) => {
    const want = JSON.stringify(Object.entries(settings).sort());
    if (Object.keys(settings).length && applied.get(app) !== want) {
      for (const [k, v] of Object.entries(settings)) onApp(app, ['set-env', app, k, v], `set-env ${app} ${k}`);
      onApp(app, ['restart', app], `restart ${app}`);
      applied.set(app, want);
    }
    if (memoryMb !== null && memory.get(app) !== memoryMb) {
      onApp(app, ['scale', app, '-m', `${memoryMb}M`, '-f'], `scale ${app} -m ${memoryMb}M`);
      memory.set(app, memoryMb);
    }
  };
}

/** Run run-round.sh for a spec; resolves {code, roundId} (roundId from a round_id=N line). */
function runRoundProcess(runRound, args, { onLine = () => {} } = {}) {
  return new Promise((resolve) => {
    const child = spawn(runRound, args, { stdio: ['ignore', 'pipe', 'pipe'] });
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

const DEFAULT_RUN_ROUND = path.join(REPO_ROOT, 'scripts/run-round.sh');

module.exports = { runRoundFeatures, runRoundArgs, makeSettingsApplier, runRoundProcess, EXIT_USAGE, EXIT_ROUND_FAILED, DEFAULT_RUN_ROUND };
