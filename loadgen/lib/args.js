'use strict';
// Command-line options of bin/loadgen.js: one table that is both the parser's
// definition and the --help text (every option with its default and unit), and one
// validate step that turns argv into a plan or a one-line usage error naming the
// flag. Bad values stop the run; nothing is silently clamped.

const { parse, help: renderHelp, note, REQUIRED, UsageError } = require('./arg-table');
const { SCENARIOS } = require('./scenario');

const BATCH_ROWS = 10000;

// [flag, key, type, default, help] (arg-table.js). A note() default is only shown: the plan
// decides (the duration applies only without --requests).
const OPTIONS = [
  ['--url', 'url', 'str', REQUIRED, 'target URL, http:// or https://'],
  ['--parallel', 'parallel', 'count', 10, 'closed model: requests in flight; open model: connections (max in flight)'],
  ['--rate', 'rate', 'num', note('(closed model)'), 'open model: constant arrival rate, requests per second'],
  ['--requests', 'requests', 'count', undefined, 'stop after this many requests (e.g. 10k)'],
  ['--duration', 'durationMs', 'dur', note('10s'), 'stop issuing after this long (500ms, 10s, 2m); default when --requests is not given'],
  ['--timeout', 'timeoutMs', 'dur', '10s', 'per-request timeout'],
  ['--no-keepalive', 'noKeepalive', 'bool', false, 'a new connection per request (Connection: close)'],
  ['--scenario', 'scenario', 'str', 'get', 'get (the URL as given) | read | browse | publish | hello | mix'],
  ['--weights', 'weights', 'str', note('read=8,browse=1,publish=1'), 'mix weights'],
  ['--ids', 'ids', 'str', note('1-1'), 'id range MIN-MAX for read (overridden by --seed)'],
  ['--seed', 'seedAds', 'count', undefined, 'first make sure N ads exist (X-Total-Count, else POST the missing); reads use their ids'],
  ['--seed-only', 'seedOnly', 'bool', false, 'with --seed N: only make sure the N ads exist, print their id range, send no load'],
  ['--random-seed', 'randomSeed', 'int', 1, 'seed of the id/offset/weight random sequence'],
  ['--page-limit', 'pageLimit', 'int', 20, 'browse: limit per page (1-100)'],
  ['--offset-max', 'offsetMax', 'int', 0, 'browse: random offset from 0 to this'],
  ['--method', 'method', 'str', 'GET', 'get scenario: HTTP method'],
  ['--body', 'body', 'str', undefined, 'get scenario: request body (sent with Content-Length)'],
  ['--header', 'headers', 'list', undefined, '"Name: value", repeatable'],
  ['--host', 'host', 'str', note('from --url'), 'Host header to send'],
  ['--insecure', 'insecure', 'bool', false, 'https: do not verify the server certificate (a foundation with self-signed certificates; like curl -k)'],
  ['--max-error-rate', 'maxErrorRate', 'num', undefined, 'exit 2 when errors/requests exceeds this fraction (0-1)'],
  ['--json', 'json', 'bool', false, 'print the result as one JSON object on stdout'],
  ['--no-progress', 'noProgress', 'bool', false, 'no live progress line on stderr (only shown on a TTY)'],
  ['--results-db', 'resultsDb', 'str', undefined, 'PostgreSQL URL: persist every sample into requests (needs --round)'],
  ['--round', 'round', 'int', undefined, 'rounds.id the samples belong to'],
  ['--loadgen-index', 'loadgenIndex', 'int', 0, 'requests.loadgen_index of the samples'],
  ['--spool-dir', 'spoolDir', 'str', note('$TMPDIR/cfscale-loadgen-spool-cli'), 'where batches wait while the results DB is unreachable'],
  ['--help', 'help', 'bool', '', 'this text'],
];
const ALIASES = { '-c': '--parallel', '-n': '--requests', '-d': '--duration', '-H': '--header', '-h': '--help' };
const DEFAULT_DURATION_MS = 10000;

function help() {
  return renderHelp('Usage: loadgen --url URL [options]',
    'HTTP/1.1 load generator of cfscale (closed model by default, open model with --rate).\n' +
    'Units: durations 500ms|10s|2m|1h (bare number = seconds), counts 1k|2.5k|1m.\n' +
    'Exit: 0 ok, 1 usage, 2 the run failed its criteria (--max-error-rate, samples not persisted)\n' +
    'or, with --seed-only, the seeding failed.', OPTIONS, { aliases: ALIASES });
}

/** argv -> { help } | plan. Throws UsageError with a one-line message. */
function buildPlan(argv) {
  const a = parse(argv, OPTIONS, { aliases: ALIASES });
  if (a.help) return { help: true };
  let u;
  try { u = new URL(a.url); } catch { throw new UsageError(`--url is not a URL: "${a.url}"`); }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') throw new UsageError('--url must start with http:// or https://');
  const plan = {
    url: a.url, host: a.host, model: a.rate !== undefined ? 'open' : 'closed', parallel: a.parallel, rate: a.rate,
    requests: a.requests, durationMs: a.durationMs !== undefined ? a.durationMs : (a.requests ? undefined : DEFAULT_DURATION_MS),
    timeoutMs: a.timeoutMs, keepalive: !a.noKeepalive, scenario: a.scenario, weights: undefined, idMin: 1, idMax: 1,
    seedAds: a.seedAds, seedOnly: a.seedOnly, randomSeed: a.randomSeed, pageLimit: a.pageLimit, offsetMax: a.offsetMax,
    method: a.method, body: a.body, headers: a.headers, insecure: a.insecure,
    maxErrorRate: a.maxErrorRate, json: a.json, progress: !a.noProgress,
    resultsDb: a.resultsDb, round: a.round, loadgenIndex: a.loadgenIndex, spoolDir: a.spoolDir, batchRows: BATCH_ROWS,
  };
  if (!(plan.parallel >= 1 && plan.parallel <= 100000)) throw new UsageError(`--parallel must be from 1 to 100000, got ${plan.parallel}`);
  if (plan.rate !== undefined && !(plan.rate > 0)) throw new UsageError(`--rate must be above 0, got ${plan.rate}`);
  if (plan.requests !== undefined && !(plan.requests >= 1)) throw new UsageError('--requests must be at least 1');
  if (plan.durationMs !== undefined && !(plan.durationMs >= 1)) throw new UsageError('--duration must be above 0');
  if (!(plan.timeoutMs >= 1)) throw new UsageError('--timeout must be above 0');
  if (!SCENARIOS.includes(plan.scenario)) throw new UsageError(`--scenario must be one of ${SCENARIOS.join(', ')}, got "${plan.scenario}"`);
  if (a.weights !== undefined) plan.weights = parseWeights(a.weights);
  if (a.ids !== undefined) {
    const m = /^(\d+)-(\d+)$/.exec(a.ids);
    if (!m || Number(m[1]) < 1 || Number(m[2]) < Number(m[1])) throw new UsageError(`--ids must be MIN-MAX with 1 <= MIN <= MAX, got "${a.ids}"`);
    plan.idMin = Number(m[1]);
    plan.idMax = Number(m[2]);
  }
  if (!(plan.pageLimit >= 1 && plan.pageLimit <= 100)) throw new UsageError('--page-limit must be from 1 to 100');
  if (plan.maxErrorRate !== undefined && !(plan.maxErrorRate >= 0 && plan.maxErrorRate <= 1)) {
    throw new UsageError(`--max-error-rate must be a fraction from 0 to 1, got ${plan.maxErrorRate}`);
  }
  for (const h of plan.headers) if (!/^[!#$%&'*+.^_`|~0-9A-Za-z-]+:[ \t]*[^\r\n]*$/.test(h)) throw new UsageError(`--header must be "Name: value", got "${h}"`);
  if (/[\r\n]/.test(plan.method + (plan.host || ''))) throw new UsageError('--method and --host must be one line');
  if ((plan.resultsDb === undefined) !== (plan.round === undefined)) throw new UsageError('--results-db and --round go together');
  if (plan.round !== undefined && !(plan.round >= 1)) throw new UsageError('--round must be a positive integer');
  if (plan.seedOnly && !(plan.seedAds >= 1)) throw new UsageError('--seed-only needs --seed N with N >= 1');
  return plan;
}

function parseWeights(text) {
  const w = {};
  for (const part of text.split(',')) {
    const m = /^(read|browse|publish|hello|get)=(\d+(?:\.\d+)?)$/.exec(part.trim());
    if (!m) throw new UsageError(`--weights must be like read=8,browse=1,publish=1, got "${text}"`);
    w[m[1]] = Number(m[2]);
  }
  return w;
}

module.exports = { buildPlan, help, UsageError, OPTIONS };
