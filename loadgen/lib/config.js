'use strict';
// The worker's configuration, read from the environment once, validated, logged
// once with the password masked; and the translation of a `rounds` row into a run
// plan. A bad setting stops the worker with exit 1 and a line naming the variable.
//
// Results database: the VCAP_SERVICES binding named RESULTS_SERVICE_NAME (same
// credential rules as contract/README.md: `uri` first, else hostname|host, port,
// name|dbname|database, username|user, password), else RESULTS_DATABASE_URL.

const os = require('node:os');
const path = require('node:path');
const { SCENARIOS } = require('./scenario');

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

function credentialsUrl(c, label) {
  if (c.uri) return c.uri;
  const host = c.hostname || c.host;
  const db = c.name || c.dbname || c.database;
  const user = c.username || c.user;
  if (!host || !db || !user) throw new ConfigError(`VCAP_SERVICES binding ${label} has neither uri nor host/name/username`);
  const port = c.port ? `:${Number(c.port)}` : '';
  const pw = c.password ? ':' + encodeURIComponent(c.password) : '';
  return `postgres://${encodeURIComponent(user)}${pw}@${host}${port}/${encodeURIComponent(db)}`;
}

function resultsUrl(env) {
  const name = env.RESULTS_SERVICE_NAME || DEFAULT_RESULTS_SERVICE;
  if (env.VCAP_SERVICES) {
    let services;
    try { services = JSON.parse(env.VCAP_SERVICES); } catch { throw new ConfigError('VCAP_SERVICES is not valid JSON'); }
    for (const list of Object.values(services || {})) {
      for (const b of Array.isArray(list) ? list : []) {
        if (b && b.name === name) return credentialsUrl(b.credentials || {}, name);
      }
    }
    if (!env.RESULTS_DATABASE_URL) throw new ConfigError(`RESULTS_SERVICE_NAME: no binding named "${name}" in VCAP_SERVICES`);
  }
  if (env.RESULTS_DATABASE_URL) return env.RESULTS_DATABASE_URL;
  throw new ConfigError('RESULTS_DATABASE_URL or a VCAP_SERVICES binding "results-db" is required');
}

function loadConfig(env = process.env) {
  const instanceIndex = intVar(env, 'CF_INSTANCE_INDEX', 0, 0, 100000);
  return {
    instanceIndex,
    instanceGuid: env.CF_INSTANCE_GUID || null,
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
