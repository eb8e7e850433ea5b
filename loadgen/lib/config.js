'use strict';
// The worker's configuration, read from the environment once, validated, logged
// once with the password masked; and the translation of a `rounds` row into a run
// plan. A bad setting stops the worker with exit 1 and a line naming the variable.
//
// Results database (bindings.js, docs/bindings.md): the VCAP_SERVICES binding named
// RESULTS_SERVICE_NAME (default results-db); with that name unset and no
// RESULTS_DATABASE_URL, the first postgres binding by tag, then label; else
// RESULTS_DATABASE_URL. Either way one URL with the sslmode the broker asks for, in
// libpq's meaning (require encrypts without verifying).

const os = require('node:os');
const path = require('node:path');
const { SCENARIOS } = require('./scenario');
const bindings = require('./bindings');

const DEFAULT_RESULTS_SERVICE = 'results-db';
const DEFAULT_POLL_MS = 5000;
const DEFAULT_BATCH_ROWS = 10000;
// CF sends SIGTERM and kills 10 s later (docs/cf-platform.md §4):
// everything must be flushed well before.
const DEFAULT_SHUTDOWN_MS = 8000;
const DEFAULT_OPEN_CONNECTIONS = 100;
const LATE_START_LIMIT_MS = 60000; // a count-based round is joined at most this late

class ConfigError extends Error {}

function intVar(env, name, def, min, max) {
  const raw = env[name];
  if (raw === undefined || raw === '') return def;
  const n = Number(raw);
  if (!/^\d+$/.test(raw) || n < min || n > max) {
    throw new ConfigError(`${name} must be an integer from ${min} to ${max}, got "${raw}"`);
  }
  return n;
}

function boolVar(env, name, def) {
  const raw = env[name];
  if (raw === undefined || raw === '') return def;
  if (raw !== 'true' && raw !== 'false') throw new ConfigError(`${name} must be true or false, got "${raw}"`);
  return raw === 'true';
}

function resultsConnection(env) {
  const name = env.RESULTS_SERVICE_NAME || DEFAULT_RESULTS_SERVICE;
  if (env.VCAP_SERVICES) {
    const all = bindings.listBindings(env.VCAP_SERVICES);
    const fallback = !env.RESULTS_SERVICE_NAME && !env.RESULTS_DATABASE_URL;
    const b = bindings.findBinding(all, { name }) ?? (fallback ? bindings.findBinding(all) : null);
    if (b) return bindings.connectionFromBinding(b);
    if (!env.RESULTS_DATABASE_URL) {
      throw new ConfigError(`RESULTS_SERVICE_NAME: no binding named "${name}"${fallback ? ' nor a postgres one (tag or label)' : ''} in VCAP_SERVICES`);
    }
  }
  if (env.RESULTS_DATABASE_URL) return bindings.connectionFromUrl(env.RESULTS_DATABASE_URL, 'RESULTS_DATABASE_URL');
  throw new ConfigError('RESULTS_DATABASE_URL or a VCAP_SERVICES binding "results-db" is required');
}

/** The results database as a URL node-postgres reads with libpq's sslmode meaning. */
function resultsUrl(env) {
  try {
    return bindings.toUrl(resultsConnection(env), { libpqCompat: true });
  } catch (err) {
    throw err instanceof bindings.BindingError ? new ConfigError(err.message) : err;
  }
}

function loadConfig(env = process.env) {
  const instanceIndex = intVar(env, 'CF_INSTANCE_INDEX', 0, 0, 100000);
  return {
    instanceIndex,
    instanceGuid: env.CF_INSTANCE_GUID || null,
    // The cell's address (docs/cf-platform.md §4): a loadgen on an app instance's cell is flagged.
    instanceHost: env.CF_INSTANCE_IP || null,
    resultsUrl: resultsUrl(env),
    pollMs: intVar(env, 'LOADGEN_POLL_MS', DEFAULT_POLL_MS, 100, 600000),
    batchRows: intVar(env, 'LOADGEN_BATCH_ROWS', DEFAULT_BATCH_ROWS, 100, 1000000),
    shutdownMs: intVar(env, 'LOADGEN_SHUTDOWN_MS', DEFAULT_SHUTDOWN_MS, 1000, 600000),
    spoolDir: env.LOADGEN_SPOOL_DIR || path.join(os.tmpdir(), `cfscale-loadgen-spool-${instanceIndex}`),
    // https targets with a self-signed certificate (cf api --skip-ssl-validation foundations).
    tlsInsecure: boolVar(env, 'LOADGEN_TLS_INSECURE', false),
  };
}

function maskUrl(url) {
  return String(url).replace(/(\/\/[^:/@]+:)[^@]*@/, '$1***@');
}

/**
 * How long a duration round runs, ms (null for a --requests round). A round with a
 * steady-state gate runs until the stop_at the control plane sets once the load is steady
 * (worker.js), at most the maximum warm-up + the duration.
 */
function runLengthMs(r) {
  if (r.duration_ms === null || r.duration_ms === undefined) return null;
  return Number(r.duration_ms) + (r.steady_gate ? Number(r.steady_gate.max_warmup_ms) : 0);
}

/**
 * The URL instance `index` sends to: `plan.target_urls` is a DNS-like list of equivalent
 * entry points (the local platform's TLS front proxies), spread round-robin over the
 * instances as round-robin DNS spreads clients; without it, `target_url`.
 */
function targetUrl(r, p, index) {
  const urls = p.target_urls;
  if (urls === undefined || urls === null) return r.target_url;
  if (!Array.isArray(urls) || urls.length === 0) throw new ConfigError('rounds.plan.target_urls must be a non-empty list of URLs');
  return urls[index % urls.length];
}

/** A `rounds` row -> run plan for instance `index`. Throws ConfigError on a bad plan. */
function planFromRound(r, index) {
  const p = r.plan || {};
  const num = (v) => (v === null || v === undefined ? undefined : Number(v));
  const scenario = r.scenario || 'read';
  if (!SCENARIOS.includes(scenario)) throw new ConfigError(`rounds.scenario must be one of ${SCENARIOS.join(', ')}, got "${scenario}"`);
  const plan = {
    url: targetUrl(r, p, index),
    host: r.host_header || undefined,
    model: r.model,
    parallel: r.model === 'open' ? num(r.parallel) || num(p.connections) || DEFAULT_OPEN_CONNECTIONS : num(r.parallel),
    rate: num(r.rate),
    durationMs: runLengthMs(r) ?? undefined,
    gated: Boolean(r.steady_gate) && r.duration_ms !== null,
    requests: num(r.requests),
    timeoutMs: num(r.timeout_ms),
    keepalive: r.keepalive !== false,
    scenario,
    weights: p.weights,
    idMin: num(p.id_min) || 1,
    idMax: num(p.id_max) || num(p.id_min) || 1,
    seedAds: num(p.seed_ads),
    randomSeed: (num(p.seed) || 1) + index,
    pageLimit: num(p.page_limit) || 20,
    offsetMax: num(p.offset_max) || 0,
    method: p.method,
    headers: Array.isArray(p.headers) ? p.headers : [],
    body: p.body,
  };
  if (!/^https?:\/\//.test(plan.url || '')) throw new ConfigError(`rounds.target_url must be an http(s) URL, got "${plan.url}"`);
  if (!(plan.parallel >= 1)) throw new ConfigError('rounds.parallel must be at least 1');
  return plan;
}

module.exports = { loadConfig, planFromRound, runLengthMs, maskUrl, ConfigError, LATE_START_LIMIT_MS, DEFAULT_OPEN_CONNECTIONS };
