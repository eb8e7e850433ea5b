'use strict';
// run-round-args.js — the flags of scripts/run-round.sh (help: its header), parsed and
// validated in one place. A bad flag is a
// usage error (one line, exit 1); the platform-dependent checks (--cpu) come after the
// platform is known (run-round.js).
//
// parseRunRoundArgs(argv, cli) → options (strings as given, plus the parsed durations):
//   app, instances, loadgens, parallel, rate, duration, durationMs, requests, warmupMs,
//   timeoutMs, scenario, keepalive, cpu, label, seedAds, prewarm, loadbalancing,
//   experiment, maxErrorRate, maxWaitMs, statsSource, platform, frontProxies, skipSslValidation, dryRun, and steadyGate:
//   the steady-state gate's settings { windowMs, cvMax, trendMax, maxWarmupMs }, or null
//   when it is off (--warmup given, or a --requests round). The gate's defaults live here.
const path = require('node:path');
const { usageFromHeader, isPositiveNumber } = require('../ops/cli');

const SCENARIOS = ['read', 'browse', 'publish', 'hello', 'mix'];
// warmup '' = not given: the steady-state gate decides where the measured window starts.
const DEFAULTS = {
  app: '', instances: '1', loadgens: '1', parallel: '', rate: '', duration: '', requests: '', warmup: '',
  steadyWindow: '20s', steadyCv: '0.1', steadyTrend: '0.1', maxWarmup: '60s',
  scenario: 'read', timeout: '10s', keepalive: true, cpu: '', label: '', maxErrorRate: '0.01', maxWait: '',
  statsSource: 'auto', seedAds: '1000', experiment: '', prewarm: '0', loadbalancing: '', platform: '', frontProxies: '',
};
// --flag → option name, for the flags that take a value.
const VALUE_FLAGS = {
  '--app': 'app', '--instances': 'instances', '--loadgens': 'loadgens', '--parallel': 'parallel',
  '--rate': 'rate', '--duration': 'duration', '--requests': 'requests', '--warmup': 'warmup',
  '--scenario': 'scenario', '--timeout': 'timeout', '--cpu': 'cpu', '--label': 'label',
  '--seed-ads': 'seedAds', '--prewarm': 'prewarm', '--loadbalancing': 'loadbalancing',
  '--experiment': 'experiment', '--max-error-rate': 'maxErrorRate', '--max-wait': 'maxWait',
  '--stats-source': 'statsSource', '--platform': 'platform', '--steady-window': 'steadyWindow',
  '--steady-cv': 'steadyCv', '--steady-trend': 'steadyTrend', '--max-warmup': 'maxWarmup',
  '--front-proxies': 'frontProxies',
};
const HELP_FILE = path.join(__dirname, '../run-round.sh');

function parse(argv, cli) {
  const o = { ...DEFAULTS, skipSslValidation: false, dryRun: process.env.DRY_RUN === '1' };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--no-keepalive') {
      o.keepalive = false;
    } else if (a === '--dry-run') {
      o.dryRun = true;
    } else if (a === '--skip-ssl-validation') {
      o.skipSslValidation = true;
    } else if (a === '-h' || a === '--help') {
      process.stdout.write(usageFromHeader(HELP_FILE));
      process.exit(0);
    } else if (a.startsWith('--')) {
      cli.requireValue(a, argv, i);
      if (!VALUE_FLAGS[a]) cli.usageError(`unknown option: ${a}`);
      o[VALUE_FLAGS[a]] = argv[++i];
    } else {
      cli.usageError(`unexpected argument: ${a}`);
    }
  }
  return o;
}

function validate(o, cli) {
  const { usageError } = cli;
  if (!o.app) usageError('--app is required');
  if (o.app === 'loadgen') usageError('--app loadgen: the loadgen is the instrument, not a subject');
  cli.requireKnownApp(o.app);
  cli.requirePositiveInt(o.instances, '--instances');
  cli.requirePositiveInt(o.loadgens, '--loadgens');
  if (o.parallel && o.rate) usageError('--parallel and --rate exclude each other');
  if (!o.parallel && !o.rate) o.parallel = '1';
  if (o.parallel) cli.requirePositiveInt(o.parallel, '--parallel');
  if (o.rate && !isPositiveNumber(o.rate)) usageError(`--rate must be a positive number of requests/s, got "${o.rate}"`);
  if (o.duration && o.requests) usageError('--duration and --requests exclude each other');
  if (!o.duration && !o.requests) usageError('one of --duration or --requests is required');
  o.durationMs = o.duration ? cli.durationMs(o.duration, '--duration') : null;
  if (o.durationMs !== null && o.durationMs <= 0) usageError('--duration must be above 0');
  if (o.requests) cli.requirePositiveInt(o.requests, '--requests');
  o.warmupMs = o.warmup === '' ? 0 : cli.durationMs(o.warmup, '--warmup');
  if (o.durationMs !== null && o.warmupMs >= o.durationMs) usageError('--warmup must be shorter than --duration');
  o.steadyGate = steadyGate(o, cli);
  o.timeoutMs = cli.durationMs(o.timeout, '--timeout');
  if (o.timeoutMs <= 0) usageError('--timeout must be above 0');
  if (!SCENARIOS.includes(o.scenario)) usageError(`--scenario must be one of ${SCENARIOS.join(' ')}, got "${o.scenario}"`);
  if (o.cpu) cli.requireCpu(o.cpu);
  if (!/^(0(\.[0-9]+)?|1(\.0+)?)$/.test(o.maxErrorRate)) {
    usageError(`--max-error-rate must be a fraction from 0 to 1, got "${o.maxErrorRate}"`);
  }
  if (!/^[0-9]+$/.test(o.seedAds)) usageError(`--seed-ads must be a non-negative integer, got "${o.seedAds}"`);
  if (!/^[0-9]+$/.test(o.prewarm)) usageError(`--prewarm must be a non-negative integer, got "${o.prewarm}"`);
  if (!/^(|round-robin|least-connection)$/.test(o.loadbalancing)) {
    usageError(`--loadbalancing must be round-robin or least-connection, got "${o.loadbalancing}"`);
  }
  // The local platform knows how many it can run (local-platform/lib/config.js): cfl says so.
  if (o.frontProxies !== '' && !/^[1-9][0-9]*$/.test(o.frontProxies)) {
    usageError(`--front-proxies must be a positive integer, got "${o.frontProxies}"`);
  }
  if (!/^(plugin|v3|auto)$/.test(o.statsSource)) usageError(`--stats-source must be plugin, v3 or auto, got "${o.statsSource}"`);
  o.maxWaitMs = o.maxWait ? cli.durationMs(o.maxWait, '--max-wait') : null;
  return o;
}

const FRACTION = /^(0(\.[0-9]+)?|1(\.0+)?)$/;

/** The gate's settings (validated), or null when --warmup is given or the round counts requests. */
function steadyGate(o, cli) {
  const windowMs = cli.durationMs(o.steadyWindow, '--steady-window');
  if (windowMs < 2000) cli.usageError('--steady-window must be at least 2s (a trend needs 2 seconds)');
  for (const [flag, v] of [['--steady-cv', o.steadyCv], ['--steady-trend', o.steadyTrend]]) {
    if (!FRACTION.test(v) || Number(v) === 0) cli.usageError(`${flag} must be a fraction above 0 and at most 1, got "${v}"`);
  }
  const maxWarmupMs = cli.durationMs(o.maxWarmup, '--max-warmup');
  if (maxWarmupMs < windowMs) cli.usageError('--max-warmup must be at least --steady-window');
  if (o.warmup !== '' || o.durationMs === null) return null;
  return { windowMs, cvMax: Number(o.steadyCv), trendMax: Number(o.steadyTrend), maxWarmupMs };
}

function parseRunRoundArgs(argv, cli) {
  return validate(parse(argv, cli), cli);
}

module.exports = { parseRunRoundArgs, SCENARIOS };
