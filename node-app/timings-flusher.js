'use strict';
// timings-flusher.js — the timing operations of one process: state, flush, clear,
// recording on/off. Every operation answers a plain object (it may travel over cluster
// IPC); a failure is { error: 'results-unavailable' | 'internal' }, never a throw.
// Flush and clear run one at a time; the buffer keeps whatever was not written. The records
// go into server_timings (results-schema.sql) with COPY FROM STDIN in text format
// (pg-copy-streams needs the pure-JS pg Client), one transaction per batch that also records
// the batch's flush id in server_timings_flushes. A batch that failed is tried first, with
// the same id and the same records, by the next flush: when its commit had happened and only
// the answer was lost, the id is there and the records are dropped instead of written twice.
// A flush for a round files its rows under it only while the round is running or just
// finished for this app (round_takes_timings in results-schema.sql); any other round is
// refused ({ error: 'round-refused' }, 409) and nothing is written.

const { randomUUID } = require('node:crypto');
const { Readable } = require('node:stream');
const { pipeline } = require('node:stream/promises');
const pg = require('pg');
const { from: copyFrom } = require('pg-copy-streams');
const { pgConfig } = require('./bindings');
const { ROUTE_LABELS } = require('./timing-buffer');
const { resultsDatabaseUnavailable, roundRefused } = require('./http-error');
const { isConnectionError } = require('./ad-store');
const { log, logError } = require('./log');

const FLUSH_BATCH_ROWS = 10000;
// A COPY batch (FLUSH_BATCH_ROWS rows, ~1.5 MB; well under a second normally) that takes
// longer fails the flush: node-postgres' client-side query_timeout ends the COPY even when
// the results database does not answer at all, the connection is destroyed, the flush
// answers `503 results database unavailable` and the unwritten records stay in the buffer.
// Not DB_STATEMENT_TIMEOUT_MS: that bounds the app's short queries, a COPY is bulk work.
const FLUSH_BATCH_TIMEOUT_MS = 30000;

const COPY_SERVER_TIMINGS =
  'COPY server_timings (round_id, app, instance_index, correlation_id, route, status, ' +
  'started_at, handler_us, pool_wait_us, db_us) FROM STDIN';
const RECORD_FLUSH =
  'INSERT INTO server_timings_flushes (flush_id, round_id, app, instance_index, rows) ' +
  'VALUES ($1, $2, $3, $4, $5) ON CONFLICT (flush_id) DO NOTHING';
const ROUND_TAKES_TIMINGS = 'SELECT round_takes_timings(r) AS takes FROM rounds r WHERE r.id = $1 AND r.app = $2';
const ROWS_PER_CHUNK = 1000;
const NULL = '\\N';

/** A value escaped for COPY text format (backslash, tab, newline, carriage return). */
function copyText(s) {
  return /[\\\t\n\r]/.test(s) ? s.replace(/[\\\t\n\r]/g, (c) => ({ '\\': '\\\\', '\t': '\\t', '\n': '\\n', '\r': '\\r' })[c]) : s;
}

/** Epoch microseconds as an ISO timestamp with microseconds, UTC. */
function isoMicros(epochUs) {
  const whole = Math.floor(epochUs);
  const iso = new Date(Math.floor(whole / 1000)).toISOString(); // ...HH:MM:SS.mmmZ
  return iso.slice(0, 23) + String(whole % 1000).padStart(3, '0') + 'Z';
}

/** COPY text lines for buffer records [from, to). */
function copyLines(buffer, from, to, round, app, instanceIndex) {
  const prefix = `${round === null ? NULL : round}\t${copyText(app)}\t${instanceIndex}\t`;
  let text = '';
  for (let i = from; i < to; i++) {
    text +=
      prefix +
      `${copyText(buffer.correlationIds[i])}\t${ROUTE_LABELS[buffer.routes[i]]}\t${buffer.statuses[i]}\t` +
      `${isoMicros(buffer.startedUs[i])}\t${Math.round(buffer.handlerUs[i])}\t` +
      `${Math.round(buffer.poolWaitUs[i])}\t${Math.round(buffer.dbUs[i])}\n`;
  }
  return text;
}

/** COPY buffer records [from, to) over client (a connected pure-JS pg Client). */
async function copyTimings(client, buffer, from, to, { round, app, instanceIndex }) {
  function* chunks() {
    for (let i = from; i < to; i += ROWS_PER_CHUNK) {
      yield copyLines(buffer, i, Math.min(i + ROWS_PER_CHUNK, to), round, app, instanceIndex);
    }
  }
  await pipeline(Readable.from(chunks()), client.query(copyFrom(COPY_SERVER_TIMINGS)));
}

/**
 * Buffer records [from, from + batch.rows) as batch batch.id, in one transaction; false when
 * the id was already recorded (an earlier try committed: nothing written).
 */
async function writeBatch(client, buffer, from, batch, { round, app, instanceIndex }) {
  await client.query('BEGIN');
  const { rowCount } = await client.query(RECORD_FLUSH, [batch.id, round, app, instanceIndex, batch.rows]);
  if (rowCount === 0) {
    await client.query('ROLLBACK');
    return false;
  }
  await copyTimings(client, buffer, from, from + batch.rows, { round, app, instanceIndex });
  await client.query('COMMIT');
  return true;
}

/** Whether round (a bigint string) is running or just finished for app. */
async function roundTakesTimings(client, round, app) {
  const { rows } = await client.query(ROUND_TAKES_TIMINGS, [round, app]);
  return rows.length === 1 && rows[0].takes === true;
}

/** The answer of a timings operation, or the error it stands for (for the /timings handlers). */
function unwrap(result) {
  if (result.error === 'results-unavailable') throw resultsDatabaseUnavailable();
  if (result.error === 'round-refused') throw roundRefused();
  if (result.error) throw new Error('timings operation failed (see the log line before)');
  return result;
}

/**
 * Writes the buffer's timings through client (for round, or null), a batch at a time, then
 * releases client; batch.pending is the batch being written until it is known written.
 */
async function flushOn(client, { buffer, round, appName, instanceIndex, batch }) {
  // A connection that breaks during a statement also emits 'error' on the client, which
  // the pool listens to only while the client is idle: unheard it would end the process.
  // The statement's own rejection is what the flush answers.
  const ignore = () => {};
  client.on('error', ignore);
  const total = buffer.count;
  let flushed = 0;
  let already = 0;
  try {
    if (round !== null && !(await roundTakesTimings(client, round, appName))) {
      client.removeListener('error', ignore);
      client.release();
      logError(`flush refused: round ${round} is neither running nor just finished for ${appName}`);
      return { error: 'round-refused' };
    }
    while (flushed < total) {
      batch.pending ??= { id: randomUUID(), rows: Math.min(FLUSH_BATCH_ROWS, total - flushed) };
      if (!(await writeBatch(client, buffer, flushed, batch.pending, { round, app: appName, instanceIndex }))) {
        already += batch.pending.rows;
      }
      flushed += batch.pending.rows;
      batch.pending = null;
    }
    client.removeListener('error', ignore);
    client.release();
    buffer.dropped = 0;
    const before = already === 0 ? '' : ` (${already} of them written by an earlier flush whose answer was lost)`;
    log(`flushed ${flushed} timings${round === null ? '' : ` for round ${round}`}${before}`);
    return { flushed };
  } catch (err) {
    client.release(err);
    logError(`flush failed after ${flushed} of ${total} timings: ${err.message}`);
    return { error: isConnectionError(err) ? 'results-unavailable' : 'internal' };
  } finally {
    if (flushed > 0) buffer.removeFirst(flushed);
  }
}

/**
 * @param {object} o
 * @param {import('./timing-buffer').TimingBuffer} o.buffer
 * @param {object|null} o.results connection settings of the results database, or null
 * @param {string} o.appName  @param {number} o.instanceIndex
 * @param {number} o.connectTimeoutMs longest wait for a results-database connection
 */
function createTimingsService({ buffer, results, appName, instanceIndex, connectTimeoutMs }) {
  let pool = null;
  let queue = Promise.resolve();
  // The batch being written, { id, rows } (the buffer's first rows), until it is known
  // written: after a failure, whether it committed is not known.
  const batch = { pending: null };

  function resultsPool() {
    if (pool === null) {
      pool = new pg.Pool({ ...pgConfig(results), max: 1, connectionTimeoutMillis: connectTimeoutMs, query_timeout: FLUSH_BATCH_TIMEOUT_MS });
      pool.on('error', (err) => logError(`idle results-database connection failed: ${err.message}`));
    }
    return pool;
  }

  /** Run fn after every earlier flush/clear has finished. */
  function serialized(fn) {
    const done = queue.then(fn);
    queue = done.catch(() => {});
    return done;
  }

  async function flush(round) {
    if (!results) {
      logError('flush: no results database configured (RESULTS_SERVICE_NAME binding or RESULTS_DATABASE_URL)');
      return { error: 'results-unavailable' };
    }
    let client;
    try {
      client = await resultsPool().connect();
    } catch (err) {
      logError(`flush: results database unavailable: ${err.message}`);
      return { error: 'results-unavailable' };
    }
    return flushOn(client, { buffer, round, appName, instanceIndex, batch });
  }

  const ops = {
    state: () => ({
      recording: buffer.recording,
      count: buffer.count,
      dropped: buffer.dropped,
      capacity: buffer.capacity,
    }),
    flush: (round) => serialized(() => flush(round)),
    clear: () => serialized(() => {
      batch.pending = null;
      return { cleared: buffer.clear() };
    }),
    recording: (on) => {
      buffer.recording = on;
      return { recording: on };
    },
  };

  /** Run operation op ('state' | 'flush' | 'clear' | 'recording') with arg. */
  async function run(op, arg) {
    try {
      return await ops[op](arg);
    } catch (err) {
      logError(`timings ${op} failed: ${err.stack}`);
      return { error: 'internal' };
    }
  }

  async function end() {
    if (pool !== null) await pool.end();
  }

  return { run, end };
}

module.exports = { createTimingsService, unwrap, copyLines, copyTimings, isoMicros, FLUSH_BATCH_ROWS, FLUSH_BATCH_TIMEOUT_MS };
