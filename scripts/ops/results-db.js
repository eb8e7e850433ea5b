'use strict';
// results-db.js — connections to the results database for the round helpers and the collectors.
// The URL comes from the caller (scripts pass the local results-db's service key or
// RESULTS_DATABASE_URL) and is never logged. Its sslmode (and sslrootcert) mean what they
// mean to libpq and psql (ops/bindings.js): require encrypts without verifying the certificate.
//
// A managed PostgreSQL fails over and restarts for maintenance (the round must
// come through an outage of up to outageToleranceMs()). Connection opens a connection
// lazily, drops it when it broke, and with retryForMs > 0 runs a statement that failed
// because the connection was lost (or could not be made) again on a new one, with backoff,
// until retryForMs after the first failure. It counts the time the database was
// unreachable (downMs). Statements retried must be safe to run twice: the round helpers'
// are reads, idempotent UPDATEs and INSERT … ON CONFLICT DO NOTHING.
//
// `pg` is required when the first connection is made, not when this module loads:
// run-round loads it before its first step, and on a fresh clone that step is the one
// that installs the npm packages (ops/apps.js localPlatformUp runs scripts/setup.sh).

// The longest outage every part of a round waits out (up to 60 s, plus margin
// for the database's start and the last backoff step). CFSCALE_OUTAGE_TOLERANCE_MS (a
// positive integer, ms) sets another, for every round helper and collector alike; a
// value that is not one ends the command (CliError, exit 1). Outages longer than
// round_heartbeat_timeout() (results-schema.sql) get the round reaped meanwhile.
const OUTAGE_TOLERANCE_MS = 90000;
const OUTAGE_TOLERANCE_ENV = 'CFSCALE_OUTAGE_TOLERANCE_MS';

function outageToleranceMs() {
  const v = process.env[OUTAGE_TOLERANCE_ENV];
  if (v === undefined || v === '') return OUTAGE_TOLERANCE_MS;
  if (!/^[1-9][0-9]{0,8}$/.test(v)) throw new CliError(`${OUTAGE_TOLERANCE_ENV} must be a positive integer (ms), got "${v}"`, 1);
  return Number(v);
}
const BACKOFF_MIN_MS = 250;
const BACKOFF_MAX_MS = 2000;
// Errors after which the same statement may work on a new connection: class 08
// (connection exception), 57P01-57P03 (admin/crash shutdown, cannot connect now), 53300
// (too many connections), socket errors, and pg's own messages without a SQLSTATE
// ("Connection terminated unexpectedly", "... is not queryable", "timeout expired").
const SOCKET_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH',
  'ENOTFOUND', 'EAI_AGAIN']);
const PG_MESSAGES = /connection|not queryable|timeout expired/i;

function isConnectionError(err) {
  if (!err) return false;
  const code = err.code;
  if (!code) return PG_MESSAGES.test(err.message || '');
  return SOCKET_CODES.has(code) || /^08/.test(code) || /^57P0[123]$/.test(code) || code === '53300';
}

const { sleep } = require('./sleep');
const { CliError } = require('../../lib/arg-table');

/** A connected client (lib/results-client.js) as application cfscale-NAME; numbers: see there. */
async function connect(url, name, options = {}) {
  const { connectResults } = require('../../lib/results-client');
  return connectResults(require('pg'), url, name, options);
}

/** One connection, opened when first needed and again after it broke; see the header. */
class Connection {
  /**
   * @param {string} url  @param {string} name application_name suffix (cfscale-NAME)
   * @param {object} [o] retryForMs: how long to retry a statement after a connection error
   *   (0: never); log(msg): a line when the database goes away and when it is back
   */
  constructor(url, name, { retryForMs = 0, log = () => {} } = {}) {
    this.url = url;
    this.name = name;
    this.retryForMs = retryForMs;
    this.log = log;
    this.client = null;
    this.opening = null;
    this.downSinceMs = null; // when the current outage was first seen
    this.downMs = 0; // total of the outages that ended
    // Statements run one at a time: the heartbeat, the progress poll and the gate share
    // this connection, and pg queues concurrent queries only with a deprecation warning.
    this.queue = Promise.resolve();
  }

  async #client() {
    if (this.client) return this.client;
    if (!this.opening) {
      this.opening = connect(this.url, this.name).then((c) => {
        c.on('error', () => { if (this.client === c) this.#drop(); });
        this.client = c;
        return c;
      }).finally(() => { this.opening = null; });
    }
    return this.opening;
  }

  #drop() {
    const c = this.client;
    this.client = null;
    if (c) c.end().catch(() => {});
  }

  #queryOnce(text, params) {
    const run = async () => {
      const c = await this.#client();
      try {
        return await c.query(text, params);
      } catch (err) {
        if (isConnectionError(err) && this.client === c) this.#drop();
        throw err;
      }
    };
    const res = this.queue.then(run, run);
    this.queue = res.catch(() => {});
    return res;
  }

  /** client.query(text, params), retried after connection errors for retryForMs. */
  async query(text, params) {
    let firstMs = null;
    let delayMs = BACKOFF_MIN_MS;
    for (;;) {
      try {
        const res = await this.#queryOnce(text, params);
        this.#up();
        return res;
      } catch (err) {
        if (!isConnectionError(err)) throw err;
        const now = Date.now();
        if (this.downSinceMs === null) {
          this.downSinceMs = now;
          if (this.retryForMs > 0) this.log(`results database unreachable (${err.message}): retrying for up to ${this.retryForMs / 1000} s`);
        }
        firstMs ??= now;
        if (now + delayMs - firstMs > this.retryForMs) throw err;
        await sleep(delayMs);
        delayMs = Math.min(2 * delayMs, BACKOFF_MAX_MS);
      }
    }
  }

  #up() {
    if (this.downSinceMs === null) return;
    const ms = Date.now() - this.downSinceMs;
    this.downSinceMs = null;
    this.downMs += ms;
    this.log(`results database back after ${(ms / 1000).toFixed(1)} s`);
  }

  async end() {
    const c = this.client || (this.opening && await this.opening.catch(() => null));
    this.client = null;
    if (c) await c.end().catch(() => {});
  }
}

/**
 * fn(client) on a fresh connection, closed afterwards: { ok: true, value } or, when the
 * connection or fn failed, { ok: false, error } after `NAME: results database: MESSAGE` on
 * stderr (quiet: no message).
 */
async function tryWithClient(url, name, fn, { quiet = false } = {}) {
  let client;
  try {
    client = await connect(url, name);
    return { ok: true, value: await fn(client) };
  } catch (error) {
    if (!quiet) process.stderr.write(`${name}: results database: ${error.message}\n`);
    return { ok: false, error };
  } finally {
    if (client) await client.end().catch(() => {});
  }
}

/** Run fn(client) with a fresh connection; a failure throws CliError `NAME: results database: MESSAGE`, exit 1. */
async function withClient(url, name, fn) {
  const res = await tryWithClient(url, name, fn, { quiet: true });
  if (!res.ok) throw new CliError(`${name}: results database: ${res.error.message}`, 1);
  return res.value;
}

module.exports = {
  connect, tryWithClient, withClient, Connection, isConnectionError, outageToleranceMs, OUTAGE_TOLERANCE_MS, BACKOFF_MIN_MS, BACKOFF_MAX_MS,
};
