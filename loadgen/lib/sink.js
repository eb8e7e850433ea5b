'use strict';
// Streams encoded sample batches into `requests` with COPY (pg-copy-streams) while
// the run goes on, in binary COPY format by default: PostgreSQL then parses no
// text timestamps or uuids, which doubles what one server core ingests. At most MAX_QUEUED_BYTES wait in memory; past that, and whenever
// the results database is unreachable, batches go to the local spool and the sink
// retries with backoff. A spooled batch may already be in (a COPY whose answer was
// lost), so it is replayed through a temporary table with
// INSERT ... ON CONFLICT (correlation_id) DO NOTHING: no loss, no duplicates.

const pg = require('pg');
const { from: copyFrom } = require('pg-copy-streams');
const { Spool } = require('./spool');
const { COPY_COLUMNS } = require('./sample-batch');

const MAX_QUEUED_BYTES = 8 * 1024 * 1024;
const BACKOFF_MIN_MS = 250;
const BACKOFF_MAX_MS = 5000;
const CONNECT_TIMEOUT_MS = 5000;
const COPY_TIMEOUT_MS = 30000;
const REPLAY_TABLE = 'cfscale_loadgen_replay';

class Sink {
  /** opts: { url, spoolDir, log, format: 'binary' (default, what runs write) | 'text' } */
  constructor(opts) {
    this.url = opts.url;
    const format = opts.format === 'text' ? 'text' : 'binary';
    this.copySql = `COPY requests (${COPY_COLUMNS}) FROM STDIN (FORMAT ${format})`;
    this.replaySql = `COPY ${REPLAY_TABLE} (${COPY_COLUMNS}) FROM STDIN (FORMAT ${format})`;
    this.rowCounter = format === 'text' ? countTextRows : countBinaryRows;
    this.log = opts.log || (() => {});
    this.spool = new Spool(opts.spoolDir);
    this.queue = [];
    this.queuedBytes = 0;
    this.client = null;
    this.working = false;
    this.retryTimer = null;
    this.backoffMs = BACKOFF_MIN_MS;
    this.rowsLoaded = 0;
    this.batchesLoaded = 0;
    this.batchesSpooled = 0;
    this.batchesRejected = 0;
    this.lastError = null;
    this.idleWaiters = [];
    this.releases = new Map();
    this.rows = new Map();
    this.held = [];
  }

  /**
   * Hands over one encoded batch of `rows` rows (counted from the bytes when not
   * given). Never blocks, never throws. `release(buf)`, when given, is called once the
   * sink no longer needs the bytes (loaded or spooled).
   */
  push(buf, release, rows) {
    if (release) this.releases.set(buf, release);
    if (rows !== undefined) this.rows.set(buf, rows);
    if (buf.length === 0) { this.done(buf); return; }
    if (this.queuedBytes + buf.length > MAX_QUEUED_BYTES || this.retryTimer !== null) this.toSpool(buf);
    else {
      this.queue.push(buf);
      this.queuedBytes += buf.length;
    }
    this.kick();
  }

  toSpool(buf) {
    try {
      this.spool.write(buf);
    } catch (err) {
      // No disk either: hold the batch in memory and replay it like a spooled one.
      if (this.held.length === 0) this.log(`cannot spool to ${this.spool.dir} (${err.message}); holding batches in memory`);
      this.held.push(buf);
      return;
    }
    this.batchesSpooled++;
    this.done(buf);
  }

  done(buf) {
    this.rows.delete(buf);
    const release = this.releases.get(buf);
    if (release === undefined) return;
    this.releases.delete(buf);
    release(buf);
  }

  /** True when nothing waits in memory or in the spool. */
  get idle() {
    return !this.working && this.queue.length === 0 && this.held.length === 0 && this.spool.list().length === 0;
  }

  kick() {
    if (this.working || this.retryTimer !== null) return;
    this.working = true;
    this.work().finally(() => {
      this.working = false;
      if (this.retryTimer === null && (this.queue.length > 0 || this.held.length > 0 || this.spool.list().length > 0)) this.kick();
      else if (this.retryTimer === null) this.notifyIdle();
    });
  }

  async work() {
    try {
      const client = await this.connect();
      while (this.held.length > 0) {
        await this.replay(client, this.held[0]);
        this.done(this.held.shift());
        this.batchesLoaded++;
      }
      for (const name of this.spool.list()) {
        const buf = this.spool.read(name);
        try {
          if (buf !== null) await this.replay(client, buf);
        } catch (err) {
          if (!isRejection(err)) throw err;
          // The database answered but refuses this batch (schema mismatch, bad data):
          // keep it on disk for a human, and do not let it block the others.
          this.spool.quarantine(name);
          this.batchesRejected++;
          this.log(`batch ${name} rejected by the database (${err.code} ${err.message}); kept in ${this.spool.dir}/rejected`);
          continue;
        }
        this.spool.remove(name);
        this.batchesLoaded++;
      }
      while (this.queue.length > 0) {
        const buf = this.queue[0];
        try {
          await this.copy(client, this.copySql, buf);
        } catch (err) {
          // Outcome unknown: spool it, the replay path tolerates rows already in.
          if (this.unqueue(buf)) this.toSpool(buf);
          throw err;
        }
        const rows = this.rows.get(buf);
        this.rowsLoaded += rows !== undefined ? rows : this.rowCounter(buf);
        if (this.unqueue(buf)) this.done(buf);
        this.batchesLoaded++;
      }
      this.backoffMs = BACKOFF_MIN_MS;
      this.lastError = null;
    } catch (err) {
      this.onFailure(err);
    }
  }

  /** Removes `buf` from the head of the queue unless flush() spooled it meanwhile. */
  unqueue(buf) {
    if (this.queue[0] !== buf) return false;
    this.queue.shift();
    this.queuedBytes -= buf.length;
    return true;
  }

  onFailure(err) {
    if (this.lastError === null) this.log(`results database unavailable, spooling: ${err.message}`);
    this.lastError = err;
    this.dropClient();
    while (this.queue.length > 0) this.toSpool(this.queue.shift());
    this.queuedBytes = 0;
    const delay = this.backoffMs;
    this.backoffMs = Math.min(this.backoffMs * 2, BACKOFF_MAX_MS);
    this.retryTimer = setTimeout(() => {
      this.retryTimer = null;
      this.kick();
    }, delay);
  }

  async connect() {
    if (this.client !== null) return this.client;
    const client = new pg.Client({ connectionString: this.url, connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
      keepAlive: true, application_name: 'cfscale-loadgen' });
    client.on('error', () => { if (this.client === client) this.client = null; });
    await client.connect();
    await client.query(`CREATE TEMP TABLE IF NOT EXISTS ${REPLAY_TABLE} (LIKE requests INCLUDING DEFAULTS) ON COMMIT DELETE ROWS`);
    this.client = client;
    return client;
  }

  dropClient() {
    const c = this.client;
    this.client = null;
    if (c !== null) c.end().catch(() => {});
  }

  async replay(client, buf) {
    await client.query('BEGIN');
    try {
      await this.copy(client, this.replaySql, buf);
      const r = await client.query(`INSERT INTO requests SELECT * FROM ${REPLAY_TABLE} ON CONFLICT (correlation_id) DO NOTHING`);
      await client.query('COMMIT');
      this.rowsLoaded += r.rowCount;
    } catch (err) {
      await client.query('ROLLBACK').catch(() => {});
      throw err;
    }
  }

  copy(client, sql, buf) {
    return new Promise((resolve, reject) => {
      const stream = client.query(copyFrom(sql));
      const timer = setTimeout(() => {
        stream.destroy(new Error(`COPY took over ${COPY_TIMEOUT_MS} ms`));
        if (client.connection && client.connection.stream) client.connection.stream.destroy();
      }, COPY_TIMEOUT_MS);
      const done = (err) => { clearTimeout(timer); if (err) reject(err); else resolve(); };
      stream.on('error', done);
      stream.on('finish', () => done());
      stream.end(buf);
    });
  }

  notifyIdle() {
    const w = this.idleWaiters;
    this.idleWaiters = [];
    for (const f of w) f();
  }

  /**
   * Loads what is left, waiting at most `timeoutMs`. Whatever is still in memory
   * then goes to the spool, so nothing recorded is lost. Resolves with
   * { loaded: bool, spoolPending: number of files still spooled }.
   */
  async flush(timeoutMs) {
    const deadline = Date.now() + timeoutMs;
    while (!this.idle && Date.now() < deadline) {
      if (this.retryTimer !== null && this.lastError !== null) {
        clearTimeout(this.retryTimer); // retry now, but only while time remains
        this.retryTimer = null;
        this.kick();
      }
      await new Promise((resolve) => {
        const t = setTimeout(resolve, Math.min(this.backoffMs, Math.max(1, deadline - Date.now())));
        this.idleWaiters.push(() => { clearTimeout(t); resolve(); });
        this.kick();
      });
    }
    while (this.queue.length > 0) this.toSpool(this.queue.shift());
    this.queuedBytes = 0;
    const spoolPending = this.spool.list().length + this.held.length;
    return { loaded: spoolPending === 0 && this.queue.length === 0 && !this.working, spoolPending };
  }

  async close() {
    if (this.retryTimer !== null) clearTimeout(this.retryTimer);
    this.retryTimer = null;
    const c = this.client;
    this.client = null;
    if (c !== null) await c.end().catch(() => {});
  }
}

/**
 * A server-side refusal of the data itself (SQLSTATE classes 22 data exception,
 * 23 integrity, 42 syntax/undefined column) rather than a lost connection,
 * shutdown or resource shortage, which are worth retrying.
 */
function isRejection(err) {
  return typeof err.code === 'string' && /^(22|23|42)/.test(err.code);
}

/** Rows of a binary COPY batch: walks the tuples by their field lengths. */
function countBinaryRows(buf) {
  let n = 0;
  let o = 19; // header
  while (o + 2 <= buf.length) {
    const fields = buf.readInt16BE(o);
    o += 2;
    if (fields < 0) break;
    for (let f = 0; f < fields; f++) {
      const len = buf.readInt32BE(o);
      o += 4 + (len > 0 ? len : 0);
    }
    n++;
  }
  return n;
}

function countTextRows(buf) {
  let n = 0;
  let i = -1;
  while ((i = buf.indexOf(10, i + 1)) !== -1) n++;
  return n;
}

module.exports = { Sink };
