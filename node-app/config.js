'use strict';
// config.js — every setting of node-app, read from the environment once and validated.
//
// Names, defaults, ranges and meaning come from the settings spec shared with java-app
// (contract/settings.json, the contract README's "Settings" table).
// A bad setting is never clamped: loadConfig throws a ConfigError naming the variable and
// server.js exits 1 with that one line (a benchmark with a silently changed setting lies).

const { ConfigError } = require('./config-error');
const bindings = require('./bindings');

const APP_DEFAULT_NAME = 'node-app';
const DEFAULT_RESULTS_SERVICE_NAME = 'results-db';
// CONTROL_TOKEN: RFC 6750's b64token characters, long enough not to be guessed.
const CONTROL_TOKEN_RE = /^[A-Za-z0-9._~+/=-]{32,256}$/;

// The settings spec (name, default, range, unit, meaning) of both apps: a generated copy of
// contract/settings.json, because CF pushes node-app/ alone (config.test.js checks the copy).
const SPEC = new Map(require('./settings.json').settings.filter((s) => s.apps !== 'java').map((s) => [s.name, s]));

/** The value of an env variable, with '' treated as unset (CF manifests render empty vars so). */
function raw(env, name) {
  const v = env[name];
  return v === undefined || v === '' ? undefined : v;
}

function spec(name, type) {
  const s = SPEC.get(name);
  if (!s || s.type !== type) throw new Error(`settings.json has no ${type} setting ${name}`);
  return s;
}

function integer(env, name) {
  const { min, max, default: def, notBelow } = spec(name, 'integer');
  const v = raw(env, name);
  if (v === undefined && notBelow === undefined) return def;
  const n = v === undefined ? def : Number(v);
  if (v !== undefined && (!/^[0-9]{1,10}$/.test(v) || n < min || n > max)) {
    throw new ConfigError(`${name} must be an integer from ${min} to ${max}, got ${JSON.stringify(v)}`);
  }
  if (notBelow !== undefined && n < integer(env, notBelow)) {
    throw new ConfigError(`${name} must be >= ${notBelow} (${integer(env, notBelow)}), got ${JSON.stringify(v ?? String(def))}`);
  }
  return n;
}

function boolean(env, name) {
  const def = spec(name, 'boolean').default;
  const v = raw(env, name);
  if (v === undefined) return def;
  if (v !== 'true' && v !== 'false') throw new ConfigError(`${name} must be true or false, got ${JSON.stringify(v)}`);
  return v === 'true';
}

function choice(env, name) {
  const { choices } = spec(name, 'choice');
  const v = raw(env, name);
  if (v === undefined) return choices[0];
  if (!choices.includes(v)) {
    throw new ConfigError(`${name} must be one of ${choices.join(', ')}, got ${JSON.stringify(v)}`);
  }
  return v;
}

function appName(env) {
  const explicit = raw(env, 'APP_NAME');
  if (explicit !== undefined) return explicit;
  const vcapApp = raw(env, 'VCAP_APPLICATION');
  if (vcapApp === undefined) return APP_DEFAULT_NAME;
  let parsed;
  try {
    parsed = JSON.parse(vcapApp);
  } catch {
    throw new ConfigError('VCAP_APPLICATION is not valid JSON');
  }
  const name = parsed && parsed.application_name;
  return typeof name === 'string' && name !== '' ? name : APP_DEFAULT_NAME;
}

/**
 * The control credential (CONTROL_TOKEN), or null when unset: the app still starts (a plain
 * `cf push` sets none), its control endpoints closed unless controlOpen. Its value is never
 * part of a message.
 */
function controlToken(env) {
  const token = raw(env, 'CONTROL_TOKEN');
  if (token === undefined) return null;
  if (!CONTROL_TOKEN_RE.test(token)) {
    throw new ConfigError('CONTROL_TOKEN must be 32 to 256 characters, each a letter, a digit or one of - . _ ~ + / = '
      + `(got ${token.length} characters)`);
  }
  return token;
}

/**
 * The app and results databases (bindings.js connection settings; results may be null):
 * from VCAP_SERVICES when set (contract/README.md: DB_SERVICE_NAME by name, else by tag,
 * then label, leaving out the results binding; RESULTS_SERVICE_NAME by name), else from
 * DATABASE_URL and RESULTS_DATABASE_URL.
 */
function databases(env) {
  const resultsName = raw(env, 'RESULTS_SERVICE_NAME');
  const resultsUrl = raw(env, 'RESULTS_DATABASE_URL');
  const vcap = raw(env, 'VCAP_SERVICES');
  if (vcap === undefined) {
    const dbUrl = raw(env, 'DATABASE_URL');
    if (dbUrl === undefined) throw new ConfigError('DATABASE_URL is required when VCAP_SERVICES is absent');
    return {
      db: bindings.connectionFromUrl(dbUrl, 'DATABASE_URL'),
      results: resultsUrl ? bindings.connectionFromUrl(resultsUrl, 'RESULTS_DATABASE_URL') : null,
    };
  }
  const all = bindings.listBindings(vcap);
  const results = resultsName ?? DEFAULT_RESULTS_SERVICE_NAME;
  const dbName = raw(env, 'DB_SERVICE_NAME');
  const dbBinding = bindings.findBinding(all, { name: dbName, exclude: [results] });
  if (!dbBinding && dbName) throw new ConfigError(`DB_SERVICE_NAME: no binding named "${dbName}" in VCAP_SERVICES`);
  if (!dbBinding) {
    throw new ConfigError('DB_SERVICE_NAME: not set and VCAP_SERVICES has no postgres binding (tag or label) besides the results one');
  }
  const resultsBinding = bindings.findBinding(all, { name: results });
  if (!resultsBinding && resultsName !== undefined) {
    throw new ConfigError(`RESULTS_SERVICE_NAME: no binding named "${resultsName}" in VCAP_SERVICES`);
  }
  return {
    db: bindings.connectionFromBinding(dbBinding),
    results: resultsBinding ? bindings.connectionFromBinding(resultsBinding)
      : resultsUrl ? bindings.connectionFromUrl(resultsUrl, 'RESULTS_DATABASE_URL') : null,
  };
}

/** The validated settings from env (default process.env); throws ConfigError. */
function loadConfig(env = process.env) {
  let db;
  let results;
  try {
    ({ db, results } = databases(env));
  } catch (err) {
    throw err instanceof bindings.BindingError ? new ConfigError(err.message) : err;
  }
  const token = controlToken(env);
  return Object.freeze({
    port: integer(env, 'PORT'),
    instanceIndex: integer(env, 'CF_INSTANCE_INDEX'),
    appName: appName(env),
    db,
    results,
    dbPoolSize: integer(env, 'DB_POOL_SIZE'),
    dbPoolTimeoutMs: integer(env, 'DB_POOL_TIMEOUT_MS'),
    dbStatementTimeoutMs: integer(env, 'DB_STATEMENT_TIMEOUT_MS'),
    timingsEnabled: boolean(env, 'TIMINGS_ENABLED'),
    timingsCapacity: integer(env, 'TIMINGS_CAPACITY'),
    timingsFlushOnExit: boolean(env, 'TIMINGS_FLUSH_ON_EXIT'),
    shutdownTimeoutMs: integer(env, 'SHUTDOWN_TIMEOUT_MS'),
    httpMaxHeaderBytes: integer(env, 'HTTP_MAX_HEADER_BYTES'),
    httpHeaderTimeoutMs: integer(env, 'HTTP_HEADER_TIMEOUT_MS'),
    httpIdleTimeoutMs: integer(env, 'HTTP_IDLE_TIMEOUT_MS'),
    framework: choice(env, 'APP_FRAMEWORK'),
    // study §6.3: pg-native (libpq) is the study's driver; js is node-postgres' own.
    dbDriver: choice(env, 'DB_DRIVER'),
    webConcurrency: integer(env, 'WEB_CONCURRENCY'),
    controlToken: token,
    // LOCAL_DEV_NO_CONTROL_TOKEN=true and no token: the control endpoints open to anyone.
    controlOpen: boolean(env, 'LOCAL_DEV_NO_CONTROL_TOKEN') && token === null,
  });
}

const { describeConnection } = bindings;

/** The control credential as the settings line shows it: masked, or what its absence means. */
function describeControl(c) {
  if (c.controlToken !== null) return '***';
  return c.controlOpen ? 'none (LOCAL_DEV_NO_CONTROL_TOKEN: /timings open to anyone)' : 'none (control endpoints closed)';
}

/** The one log line of effective settings. */
function describeConfig(c) {
  return [
    `port=${c.port}`,
    `instance=${c.instanceIndex}`,
    `app=${c.appName}`,
    `framework=${c.framework}`,
    `dbDriver=${c.dbDriver}`,
    `workers=${c.webConcurrency}`,
    `db=${describeConnection(c.db)}`,
    `results=${describeConnection(c.results)}`,
    `poolSize=${c.dbPoolSize}`,
    `poolTimeoutMs=${c.dbPoolTimeoutMs}`,
    `statementTimeoutMs=${c.dbStatementTimeoutMs}`,
    `timings=${c.timingsEnabled ? 'on' : 'off'}`,
    `timingsCapacity=${c.timingsCapacity}`,
    `timingsFlushOnExit=${c.timingsFlushOnExit}`,
    `shutdownTimeoutMs=${c.shutdownTimeoutMs}`,
    `httpMaxHeaderBytes=${c.httpMaxHeaderBytes}`,
    `httpHeaderTimeoutMs=${c.httpHeaderTimeoutMs}`,
    `httpIdleTimeoutMs=${c.httpIdleTimeoutMs}`,
    `controlToken=${describeControl(c)}`,
  ].join(' ');
}

module.exports = { loadConfig, describeConfig, describeConnection, ConfigError };
