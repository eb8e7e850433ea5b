'use strict';
// run-round-args.js — the flags of scripts/run-round.sh: one table (arg-table.js) that is
// their parser, their defaults and the --help text, and the checks that span flags. A bad
// flag is a usage error (one line, exit 1); the platform-dependent checks (--cpu) come after
// the platform is known (round-plan.js).
//
// parseRunRoundArgs(argv, cli) → options (a command line); roundOptions(values, cli) → the same
// options from values by key that a program holds typed (counts as numbers, durations in ms,
// cpu in cores: the experiment runner), checked by the same table and the same validate.
// The options: app, instances, loadgens, parallel, rate, durationMs,
//   requests, warmupMs, timeoutMs, scenario, keepalive, cpu, label, seedAds,
//   prewarm, loadbalancing, experiment, maxErrorRate, maxWaitMs, statsSource, platform,
//   frontProxies, skipSslValidation, dryRun, steadyGate: the steady-state gate's settings
//   { windowMs, cvMax, trendMax, maxWarmupMs }, or null when it is off (--warmup given, or a
//   --requests round), events: the --event list as round-events.js parseEvents gives it, and
//   cpu: lib/cpu-quota.js's typed quota (cores, CPU_NONE, or CPU_DEFAULT without --cpu). The
//   counts and texts are strings ('' when not given): they go into cf and loadgen command lines.
const { ROWS } = require('../ops/cli');
const { note, parseValues, REQUIRED, UsageError } = require('../../lib/arg-table');
const { CPU_DEFAULT } = require('../../lib/cpu-quota');
const { parseEvents, EventError } = require('../../lib/round-events');

const SCENARIOS = ['read', 'browse', 'publish', 'hello', 'mix'];
const STRINGS = ['instances', 'loadgens', 'parallel', 'rate', 'requests', 'seedAds', 'prewarm', 'frontProxies', 'maxErrorRate',
  'label', 'experiment', 'loadbalancing'];

const COMMAND = {
  usage: 'Usage: scripts/run-round.sh --app APP --duration DUR|--requests N [options]',
  about: 'One measured round: app and loadgen up and scaled, the round inserted into the results database (the '
    + "loadgens' control plane), stats and router logs collected, app timings flushed, crash events ingested, the "
    + 'summary printed.',
  rows: [
    ['--app APP', 'app', 'str', REQUIRED, 'node-app or java-app'],
    ['--instances N', 'instances', 'int', 1, 'app instances', [1]],
    ['--loadgens N', 'loadgens', 'int', 1, 'loadgen instances that take part; the loadgen app is scaled up to at least N, never down', [1]],
    ['--parallel N', 'parallel', 'int', note('1 without --rate'), 'closed model: requests in flight per loadgen', [1]],
    ['--rate R', 'rate', 'num', undefined, 'open model: requests/s per loadgen (excludes --parallel)'],
    ['--duration DUR', 'durationMs', 'dur', undefined, 'length of the round, e.g. 10s, 2m (one of --duration/--requests)'],
    ['--requests N', 'requests', 'int', undefined, 'requests per loadgen instead of a duration', [1]],
    ['--warmup DUR', 'warmupMs', 'dur', note('the gate decides; with --requests the gate is off and it is 0s'),
      'samples in the first DUR are left out of the summary; turns the steady-state gate off'],
    ['--steady-window DUR', 'steadyWindowMs', 'dur', '20s', 'the gate: load runs until the per-second throughput of the '
      + "last DUR is steady, then the round measures --duration more; the measured window's start and whether it was "
      + 'steady are recorded in the round'],
    ['--steady-cv F', 'steadyCv', 'num', 0.1, "steady: the window's coefficient of variation is at most F"],
    ['--steady-trend F', 'steadyTrend', 'num', 0.1, "steady: the window's least-squares trend, as a change over the window "
      + 'relative to its mean, is within ±F'],
    ['--max-warmup DUR', 'maxWarmupMs', 'dur', '60s', 'the gate gives up after DUR of warm-up: the round measures from there '
      + 'and is flagged as never steady'],
    ['--scenario NAME', 'scenario', 'str', 'read', 'read | browse | publish | hello | mix (hello: GET /hello, no database: '
      + 'measures the router or a TLS proxy)'],
    ['--timeout DUR', 'timeoutMs', 'dur', '10s', 'per-request timeout of the loadgens'],
    ['--no-keepalive', 'noKeepalive', 'bool', false, 'a new connection per request'],
    ['--cpu CORES|none', 'cpu', 'str', note("the local platform's, manifest memory in GB x CFSCALE_CPU_PER_GB cores"),
      'local only: per-instance CPU quota of the app'],
    ['--seed-ads N', 'seedAds', 'int', 1000, 'ads the app database holds before the start: posted from here before the '
      + 'round is created (`loadgen.js --seed N --seed-only`); reads pick ids among the newest N (0 = no seeding, reads '
      + 'then all ask for id 1)', [0]],
    ['--prewarm N', 'prewarm', 'int', 0, 'requests sent to each app instance before the round, pinned with X-Cf-App-Instance '
      + '(0 = none): a freshly started instance is cold (JIT, pool connections) and under a small CPU quota stays slow for '
      + 'seconds; round-robin then holds every instance to its pace. Locally under --cpu C it runs without the quota, '
      + 'C applied live after it (rounds.plan prewarm_cpu: none)', [0]],
    ['--loadbalancing ALGO', 'loadbalancing', 'str', note('the route is left as it is'), "Gorouter's algorithm for the "
      + "app's route, set before seeding with `cf update-route DOMAIN --hostname HOST -o loadbalancing=ALGO` (both "
      + "platforms). The route's option is recorded in rounds.plan (loadbalancing; absent = the router's default, "
      + 'round-robin). On CF it needs cf CLI >= 8.9.1 (checked first) and CC API >= 3.183.0, least-connection >= 3.187.0 '
      + '(docs/cf-platform.md §11)', ['round-robin', 'least-connection']],
    ['--front-proxies N', 'frontProxies', 'int', note('none, the loadgens send to the router'), 'local only: the loadgens '
      + 'send HTTPS to N TLS-terminating HAProxy front proxies before the router (`cfl front-proxies -n N`, each in its own '
      + 'cgroup with a CPU quota: study §5.2.3, local-platform/README.md), spread like round-robin DNS (loadgen i → proxy '
      + 'i mod N; rounds.plan.front_proxies, target_urls); their CPU from the end of the warm-up to the loadgens\' end goes '
      + 'to rounds.environment.front_proxy_usage and the output', [1]],
    ['--event AT:ACTION', 'events', 'list', undefined, 'repeatable: at AT into the measured window (after the gate), '
      + 'scale=N (`cf scale APP -i N`), deploy (`cf push APP --strategy rolling`, the same app at its count) or restart '
      + '(`cf restart APP --strategy rolling`); per new instance its stages to the first request it served, per stopped '
      + 'one its SIGTERM and errors, the traffic around each (round_events, round_event_stages); the app keeps the last '
      + 'count. E.g. --event 20s:scale=4'],
    ['--label TEXT', 'label', 'str', undefined, 'free text stored with the round'],
    ['--experiment NAME', 'experiment', 'str', undefined, 'the experiment (plan file) the round belongs to'],
    ['--max-error-rate F', 'maxErrorRate', 'num', 0.01, 'the round fails above this fraction of errors (0.01 = 1 %)'],
    ['--max-wait DUR', 'maxWaitMs', 'dur', note('duration + warm-up (with the gate: --max-warmup) + timeout + 15s locally / '
      + '30s on CF; 10m with --requests'), 'how long after the start to wait for the loadgens'],
    ['--stats-source S', 'statsSource', 'str', 'auto', 'see collect-stats.sh (auto: v3; plugin only when installed)',
      ['v3', 'plugin', 'auto']],
    ROWS.platform,
    ['--skip-ssl-validation', 'skipSslValidation', 'bool', false, "the workstation's own HTTPS requests (seeding, prewarm, "
      + 'timings clear and flush) skip certificate verification (loadgen --insecure, curl --insecure); default on CF: the '
      + "cf CLI's own setting (`cf api --skip-ssl-validation`, SSLDisabled in $CF_HOME/.cf/config.json, else ~/.cf; "
      + 'docs/cf-platform.md §13)'],
    ['--dry-run', 'dryRun', 'bool', ROWS.dryRun[3], 'print each platform command and app request, shell-quoted, one per '
      + 'line; run none, write nothing (the round id shows as <round>)'],
    ROWS.help,
  ],
  notes: [
    'Durations: 500ms, 10s, 2m, 1h (a bare number is seconds). One path on both platforms:',
    'the real cf CLI, logged in locally to the local platform\'s API (see push.sh). Locally the',
    'loadgen instances get no CPU quota (scale.sh --cpu none with every push and scale): they',
    'are the instrument, not the subject, and must not be throttled. On CF they get what',
    'their manifest memory buys. Results database: local the credentials of results-db\'s',
    'service key cfscale-scripts (`cf create-service-key`, made once); cf',
    'RESULTS_DATABASE_URL (open it with scripts/tunnel.sh). The round is created once every',
    'loadgen taking part is connected and idle (round/create-round.js). The last line on',
    'stdout is `round_id=N`.',
    'Exit: 0 round done, 1 usage or configuration error, 2 the round failed (errors above',
    '--max-error-rate, a loadgen that did not finish, no samples) or could not start (seeding',
    'failed, loadgens not ready in time). DEBUG=1 traces.',
  ].join('\n'),
};

function validate(o, cli) {
  const { usageError } = cli;
  if (o.app === 'loadgen') usageError('--app loadgen: the loadgen is the instrument, not a subject');
  cli.requireKnownApp(o.app);
  if (o.parallel !== undefined && o.rate !== undefined) usageError('--parallel and --rate exclude each other');
  if (o.parallel === undefined && o.rate === undefined) o.parallel = 1;
  if (o.rate !== undefined && !(o.rate > 0)) usageError(`--rate must be a positive number of requests/s, got "${o.rate}"`);
  if (o.durationMs !== undefined && o.requests !== undefined) usageError('--duration and --requests exclude each other');
  if (o.durationMs === undefined && o.requests === undefined) usageError('one of --duration or --requests is required');
  o.durationMs ??= null;
  if (o.durationMs !== null && o.durationMs <= 0) usageError('--duration must be above 0');
  o.steadyGate = steadyGate(o, cli);
  try {
    o.events = parseEvents(o.events, { instances: o.instances, durationMs: o.durationMs });
  } catch (e) {
    if (e instanceof EventError) usageError(e.message);
    throw e;
  }
  o.warmupMs ??= 0;
  if (o.durationMs !== null && o.warmupMs >= o.durationMs) usageError('--warmup must be shorter than --duration');
  if (o.timeoutMs <= 0) usageError('--timeout must be above 0');
  if (!SCENARIOS.includes(o.scenario)) usageError(`--scenario must be one of ${SCENARIOS.join(' ')}, got "${o.scenario}"`);
  o.cpu = o.cpu === undefined ? CPU_DEFAULT : cli.cpuQuota(o.cpu);
  if (!(o.maxErrorRate >= 0 && o.maxErrorRate <= 1)) usageError(`--max-error-rate must be a fraction from 0 to 1, got "${o.maxErrorRate}"`);
  o.maxWaitMs ??= null;
  o.keepalive = !o.noKeepalive;
  for (const key of STRINGS) o[key] = o[key] === undefined ? '' : String(o[key]);
  return o;
}

/** The gate's settings (validated), or null when --warmup is given or the round counts requests. */
function steadyGate(o, cli) {
  if (o.steadyWindowMs < 2000) cli.usageError('--steady-window must be at least 2s (a trend needs 2 seconds)');
  for (const [flag, v] of [['--steady-cv', o.steadyCv], ['--steady-trend', o.steadyTrend]]) {
    if (!(v > 0 && v <= 1)) cli.usageError(`${flag} must be a fraction above 0 and at most 1, got "${v}"`);
  }
  if (o.maxWarmupMs < o.steadyWindowMs) cli.usageError('--max-warmup must be at least --steady-window');
  if (o.warmupMs !== undefined || o.durationMs === null) return null;
  return { windowMs: o.steadyWindowMs, cvMax: o.steadyCv, trendMax: o.steadyTrend, maxWarmupMs: o.maxWarmupMs };
}

function parseRunRoundArgs(argv, cli) {
  return validate(cli.parse(argv, COMMAND), cli);
}

function roundOptions(values, cli) {
  let o;
  try {
    o = parseValues(values, COMMAND.rows);
  } catch (e) {
    if (e instanceof UsageError) cli.usageError(e.message);
    throw e;
  }
  return validate(o, cli);
}

module.exports = { parseRunRoundArgs, roundOptions, SCENARIOS, COMMAND };
