'use strict';
// Command-line options of bin/loadgen.js: one table that is both the parser's
// definition and the --help text (every option with its default and unit), and one
// validate step that turns argv into a plan or a one-line usage error naming the
// flag. Bad values stop the run; nothing is silently clamped.

const { parseDuration, parseCount } = require('./units');
const { SCENARIOS } = require('./scenario');

const DEFAULTS = {
  parallel: 10,
  durationMs: 10000,
  timeoutMs: 10000,
  scenario: 'get',
  method: 'GET',
  randomSeed: 1,
  pageLimit: 20,
  offsetMax: 0,
  loadgenIndex: 0,
  batchRows: 10000,
};

// [flag, key, type, default shown, help]. type: str|int|count|num|dur|bool|list
const OPTIONS = [
  ['--url', 'url', 'str', '(required)', 'target URL, http:// or https://'],
  ['--parallel', 'parallel', 'count', DEFAULTS.parallel, 'closed model: requests in flight; open model: connections (max in flight)'],
  ['--rate', 'rate', 'num', '(closed model)', 'open model: constant arrival rate, requests per second'],
  ['--requests', 'requests', 'count', '-', 'stop after this many requests (e.g. 10k)'],
  ['--duration', 'durationMs', 'dur', '10s', 'stop issuing after this long (500ms, 10s, 2m); default when --requests is not given'],
  ['--timeout', 'timeoutMs', 'dur', '10s', 'per-request timeout'],
  ['--no-keepalive', 'noKeepalive', 'bool', 'off', 'a new connection per request (Connection: close)'],
  ['--scenario', 'scenario', 'str', DEFAULTS.scenario, 'get (the URL as given) | read | browse | publish | hello | mix'],
  ['--weights', 'weights', 'str', 'read=8,browse=1,publish=1', 'mix weights'],
  ['--ids', 'ids', 'str', '1-1', 'id range MIN-MAX for read (overridden by --seed)'],
  ['--seed', 'seedAds', 'count', '-', 'first make sure N ads exist (X-Total-Count, else POST the missing); reads use their ids'],
  ['--seed-only', 'seedOnly', 'bool', 'off', 'with --seed N: only make sure the N ads exist, print their id range, send no load'],
  ['--random-seed', 'randomSeed', 'int', DEFAULTS.randomSeed, 'seed of the id/offset/weight random sequence'],
  ['--page-limit', 'pageLimit', 'int', DEFAULTS.pageLimit, 'browse: limit per page (1-100)'],
  ['--offset-max', 'offsetMax', 'int', DEFAULTS.offsetMax, 'browse: random offset from 0 to this'],
  ['--method', 'method', 'str', DEFAULTS.method, 'get scenario: HTTP method'],
  ['--body', 'body', 'str', '-', 'get scenario: request body (sent with Content-Length)'],
  ['--header', 'headers', 'list', '-', '"Name: value", repeatable'],
  ['--host', 'host', 'str', 'from --url', 'Host header to send'],
  ['--insecure', 'insecure', 'bool', 'off', 'https: do not verify the server certificate (a foundation with self-signed certificates; like curl -k)'],
  ['--max-error-rate', 'maxErrorRate', 'num', '-', 'exit 2 when errors/requests exceeds this fraction (0-1)'],
  ['--json', 'json', 'bool', 'off', 'print the result as one JSON object on stdout'],
  ['--no-progress', 'noProgress', 'bool', 'off', 'no live progress line on stderr (only shown on a TTY)'],
  ['--results-db', 'resultsDb', 'str', '-', 'PostgreSQL URL: persist every sample into requests (needs --round)'],
  ['--round', 'round', 'int', '-', 'rounds.id the samples belong to'],
  ['--loadgen-index', 'loadgenIndex', 'int', DEFAULTS.loadgenIndex, 'requests.loadgen_index of the samples'],
  ['--spool-dir', 'spoolDir', 'str', '$TMPDIR/cfscale-loadgen-spool-cli', 'where batches wait while the results DB is unreachable'],
  ['--help', 'help', 'bool', '', 'this text'],
];
const ALIASES = { '-c': '--parallel', '-n': '--requests', '-d': '--duration', '-H': '--header', '-h': '--help' };

class UsageError extends Error {}

function help() {
  const rows = OPTIONS.map(([flag, , type, def, text]) => {
    const arg = type === 'bool' ? '' : ' ' + ({ dur: 'DURATION', count: 'N', int: 'N', num: 'X', list: 'TEXT' }[type] || 'VALUE');
    const alias = Object.keys(ALIASES).find((a) => ALIASES[a] === flag);
    return [`  ${alias ? alias + ', ' : '    '}${flag}${arg}`, `${text}${def !== '' ? ` [default: ${def}]` : ''}`];
  });
  const width = Math.max(...rows.map((r) => r[0].length)) + 2;
  return 'Usage: loadgen --url URL [options]\n\n' +
    'HTTP/1.1 load generator of cfscale (closed model by default, open model with --rate).\n' +
    'Units: durations 500ms|10s|2m|1h (bare number = seconds), counts 1k|2.5k|1m.\n' +
    'Exit: 0 ok, 1 usage, 2 the run failed its criteria (--max-error-rate, samples not persisted)\n' +
    'or, with --seed-only, the seeding failed.\n\n' +
    rows.map((r) => r[0].padEnd(width) + r[1]).join('\n') + '\n';
}

function parseArgs(argv) {
  const raw = { headers: [] };
  for (let i = 0; i < argv.length; i++) {
    let arg = argv[i];
    let inline;
    const eq = arg.indexOf('=');
    if (arg.startsWith('--') && eq > 0) { inline = arg.slice(eq + 1); arg = arg.slice(0, eq); }
    arg = ALIASES[arg] || arg;
    const opt = OPTIONS.find((o) => o[0] === arg);
    if (!opt) throw new UsageError(`unknown option ${arg}${arg.startsWith('-') ? '' : ' (options start with --)'}`);
    const [flag, key, type] = opt;
    if (type === 'bool') { raw[key] = true; continue; }
    const value = inline !== undefined ? inline : argv[++i];
    if (value === undefined) throw new UsageError(`${flag} needs a value`);
    raw[key] = type === 'list' ? [...raw.headers, value] : convert(flag, type, value);
  }
  return raw;
}

function convert(flag, type, value) {
  if (type === 'str') return value;
  const n = type === 'dur' ? parseDuration(value) : type === 'count' ? parseCount(value) : Number(value);
  if (!Number.isFinite(n) || value === '') throw new UsageError(`${flag} must be ${describe(type)}, got "${value}"`);
  if ((type === 'int' || type === 'count') && !Number.isSafeInteger(n)) throw new UsageError(`${flag} must be a whole number, got "${value}"`);
  return n;
}

function describe(type) {
  return { dur: 'a duration like 500ms, 10s or 2m', count: 'a count like 100 or 10k', int: 'an integer', num: 'a number' }[type];
}

/** argv -> { help } | plan. Throws UsageError with a one-line message. */
function buildPlan(argv) {
  const a = parseArgs(argv);
  if (a.help) return { help: true };
  if (!a.url) throw new UsageError('--url is required');
  let u;
  try { u = new URL(a.url); } catch { throw new UsageError(`--url is not a URL: "${a.url}"`); }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') throw new UsageError('--url must start with http:// or https://');
  const plan = {
    url: a.url, host: a.host, model: a.rate !== undefined ? 'open' : 'closed',
    parallel: a.parallel !== undefined ? a.parallel : DEFAULTS.parallel, rate: a.rate,
    requests: a.requests, durationMs: a.durationMs !== undefined ? a.durationMs : (a.requests ? undefined : DEFAULTS.durationMs),
    timeoutMs: a.timeoutMs !== undefined ? a.timeoutMs : DEFAULTS.timeoutMs, keepalive: !a.noKeepalive,
    scenario: a.scenario || DEFAULTS.scenario, weights: undefined, idMin: 1, idMax: 1,
    seedAds: a.seedAds, seedOnly: Boolean(a.seedOnly), randomSeed: a.randomSeed !== undefined ? a.randomSeed : DEFAULTS.randomSeed,
    pageLimit: a.pageLimit !== undefined ? a.pageLimit : DEFAULTS.pageLimit, offsetMax: a.offsetMax || DEFAULTS.offsetMax,
    method: a.method || DEFAULTS.method, body: a.body, headers: a.headers, insecure: Boolean(a.insecure),
    maxErrorRate: a.maxErrorRate, json: Boolean(a.json), progress: !a.noProgress,
    resultsDb: a.resultsDb, round: a.round, loadgenIndex: a.loadgenIndex || DEFAULTS.loadgenIndex,
    spoolDir: a.spoolDir, batchRows: DEFAULTS.batchRows,
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

module.exports = { buildPlan, help, UsageError, DEFAULTS, OPTIONS };
