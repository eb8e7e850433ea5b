'use strict';
// Streams encoded sample batches into `requests` with COPY (pg-copy-streams) while
// the run goes on, in binary COPY format by default: PostgreSQL then parses no
// text timestamps or uuids, which doubles what one server core ingests.
// Only a batch handed over while nothing is being loaded waits in memory (and goes straight
// into a COPY; if that COPY is slow, IN_FLIGHT_SPOOL_MS, it is written to the spool as well, and
// its file removed after the commit). Once a COPY is in flight, the batches that follow are written to the local
// spool at once, where a kill -9 cannot take them, so that what a kill loses stays the open
// batch and the one being loaded however long a COPY takes (a slow results database made
// batches wait in memory behind it). Up to MAX_QUEUED_BYTES of them are also kept in memory,
// not to be read back. After the COPY, the spooled batches of this life, never tried, go
// together in the next one (one transaction catches up on all of them) and their files are
// removed. A batch whose COPY failed may already be in (its answer was lost), and a spool
// left by an earlier life may be, so those are replayed through a temporary table with
// INSERT ... ON CONFLICT (correlation_id) DO NOTHING: no loss, no duplicates. Whenever the
// results database is unreachable, batches go to the spool and the sink retries with backoff.
// The transaction that loads a batch of a worker's round also adds the batch's counts to
// its loadgen_runs row (sent, ok, errors, progress_at), so the row tells exactly what
// reached the database even when the instance dies mid-round (a replay counts the rows it
// inserted).

const { from: copyFrom } = require('pg-copy-streams');
const { Spool } = require('./spool');
const { COPY_COLUMNS, BINARY_HEADER, binaryRowsByRound, countBinaryRows, countTextRows } = require('./sample-batch');
const { ResultsDb } = require('./results-db');

const MAX_QUEUED_BYTES = 8 * 1024 * 1024;
// A COPY of batches from memory not committed this long after it started: they are written to
// the spool too, so that what a kill takes stays within its bound (250 ms of samples: a batch's
// age, 100 ms, plus this and the write; a fast database commits before, and nothing is written).
const IN_FLIGHT_SPOOL_MS = 50;
const BACKOFF_MIN_MS = 250;
const BACKOFF_MAX_MS = 5000;
const COPY_TIMEOUT_MS = 30000;
// At most this many batches, and MAX_QUEUED_BYTES, in one COPY (its bytes are concatenated).
const MAX_MERGED_BATCHES = 64;
const BINARY_TRAILER = Buffer.from([0xff, 0xff]);
const REPLAY_TABLE = 'cfscale_loadgen_replay';
// The rows a replay inserted, added to their loadgen_runs rows in the same statement.
const REPLAY_SQL = `WITH ins AS (
    INSERT INTO requests SELECT * FROM ${REPLAY_TABLE} ON CONFLICT (correlation_id) DO NOTHING
    RETURNING round_id, loadgen_index, error_kind
  ), c AS (
    SELECT round_id, loadgen_index, count(*) AS n, count(*) FILTER (WHERE error_kind IS NULL) AS ok
      FROM ins GROUP BY round_id, loadgen_index
  ), u AS (
    UPDATE loadgen_runs l SET sent = l.sent + c.n, ok = l.ok + c.ok, errors = l.errors + c.n - c.ok, progress_at = now()
      FROM c WHERE l.round_id = c.round_id AND l.instance_index = c.loadgen_index
  )
  SELECT coalesce(sum(n), 0)::bigint AS n FROM c`;

class Sink {
  /**
   * opts: { db (a ResultsDb to share) | url (a connection of its own), spoolDir, log,
   * format: 'binary' (default, what runs write) | 'text', onDurable(info) when a batch pushed
   * with info can no longer be lost by a kill: its COPY committed or it is in the spool
   * (bench/kill-loss.js) }
   */
  constructor(opts) {
    this.log = opts.log || (() => {});
    this.db = opts.db || new ResultsDb(opts.url, { log: this.log });
    this.ownsDb = !opts.db;
    this.onDurable = opts.onDurable || null;
    const format = opts.format === 'text' ? 'text' : 'binary';
    this.format = format;
    this.copySql = `COPY requests (${COPY_COLUMNS}) FROM STDIN (FORMAT ${format})`;
    this.replaySql = `COPY ${REPLAY_TABLE} (${COPY_COLUMNS}) FROM STDIN (FORMAT ${format})`;
    this.rowCounter = format === 'text' ? countTextRows : countBinaryRows;
    this.spool = new Spool(opts.spoolDir);
    this.queue = [];
    this.queuedBytes = 0;
    this.prepared = new WeakSet(); // clients that have the replay table
    this.working = false;
    this.retryTimer = null;
    this.backoffMs = BACKOFF_MIN_MS;
    this.rowsLoaded = 0;
    this.batchesLoaded = 0;
    this.copies = 0;
    this.batchesSpooled = 0;
    this.batchesRejected = 0;
    this.lastError = null;
    this.idleWaiters = [];
    this.releases = new Map();
    this.info = new Map();
    this.held = [];
    // Spool files of this life never tried: name -> { buf (kept in memory, or null), info, bytes }.
    this.fresh = new Map();
    this.freshBytes = 0;
    this.reported = new WeakSet(); // batch infos onDurable was told of
  }

  /**
   * Hands over one encoded batch. Never blocks, never throws. `release(buf)`, when
   * given, is called once the sink no longer needs the bytes (loaded or spooled).
   * `info` { rows, ok, roundId, loadgenIndex }, when given: the batch's counts, added to
   * that loadgen_runs row in the transaction that loads the batch (rows are otherwise
   * counted from the bytes).
   */
  push(buf, release, info) {
    if (release) this.releases.set(buf, release);
    if (info !== undefined) this.info.set(buf, info);
    if (buf.length === 0) { this.done(buf); return; }
    if (this.working || this.retryTimer !== null || this.queue.length > 0) this.toSpool(buf, true);
    else {
      this.queue.push(buf);
      this.queuedBytes += buf.length;
    }
    this.kick();
  }

  /** Writes a batch to the spool; `fresh`: never tried, so the next COPY may load it as it is. */
  toSpool(buf, fresh = false) {
    let name;
    try {
      name = this.spool.write(buf);
    } catch (err) {
      // No disk either: hold the batch in memory and replay it like a spooled one.
      if (this.held.length === 0) this.log(`cannot spool to ${this.spool.dir} (${err.message}); holding batches in memory`);
      this.held.push(buf);
      return;
    }
    this.batchesSpooled++;
    const info = this.info.get(buf);
    this.durable(info);
    if (!fresh) { this.done(buf); return; }
    const keep = this.freshBytes + buf.length <= MAX_QUEUED_BYTES;
    this.fresh.set(name, { buf: keep ? buf : null, info, bytes: buf.length });
    if (keep) this.freshBytes += buf.length;
    else this.done(buf);
  }

  /** A fresh spool file leaves the fresh set (loaded, or tried: then it is replayed). */
  unfresh(name) {
    const f = this.fresh.get(name);
    if (f === undefined) return;
    this.fresh.delete(name);
    if (f.buf !== null) { this.freshBytes -= f.buf.length; this.done(f.buf); }
  }

  done(buf) {
    this.info.delete(buf);
    const release = this.releases.get(buf);
    if (release === undefined) return;
    this.releases.delete(buf);
    release(buf);
  }

  /** Batches of this life waiting to be loaded (in memory, or spooled behind a COPY in flight). */
  get waitingBatches() {
    return this.queue.length + this.fresh.size;
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

  /** One batch at a time on the shared connection: control queries get turns in between. */
  async work() {
    try {
      while (this.held.length > 0) {
        const buf = this.held[0];
        await this.db.exclusive((client) => this.replay(client, buf));
        this.done(this.held.shift());
        this.batchesLoaded++;
      }
      const names = this.spool.list();
      for (let i = 0; i < names.length; i++) {
        if (this.fresh.has(names[i])) { i += await this.loadFresh(names, i) - 1; continue; }
        const name = names[i];
        const buf = this.spool.read(name);
        try {
          if (buf !== null) await this.db.exclusive((client) => this.replay(client, buf));
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
        const run = sameRowRun(this.queue.map((b) => this.info.get(b)), this.queue.map((b) => b.length));
        const bufs = this.queue.slice(0, run);
        const infos = bufs.map((b) => this.info.get(b));
        const written = new Map(); // buf -> its spool file, once the COPY was slow
        const slow = setTimeout(() => {
          try {
            for (const b of bufs) if (this.queue.includes(b)) written.set(b, this.spool.write(b));
          } catch { return; } // no disk: they wait in memory, as before the timer
          for (const i of infos) this.durable(i);
        }, IN_FLIGHT_SPOOL_MS);
        try {
          await this.loadRun(bufs, infos);
        } catch (err) {
          // Outcome unknown: spool them (those already written stay), the replay path
          // tolerates rows already in.
          for (const b of bufs) if (this.unqueue(b)) { if (written.has(b)) this.done(b); else this.toSpool(b); }
          throw err;
        } finally {
          clearTimeout(slow);
        }
        for (const name of written.values()) this.spool.remove(name);
        for (const b of bufs) if (this.unqueue(b)) this.done(b);
      }
      this.backoffMs = BACKOFF_MIN_MS;
      this.lastError = null;
    } catch (err) {
      this.onFailure(err);
    }
  }

  /**
   * Loads the run of fresh spool files that starts at names[i] in one COPY, then removes
   * them; returns how many names it covered. A failure leaves them for the replay path.
   */
  async loadFresh(names, i) {
    const rest = names.slice(i).map((n) => this.fresh.get(n) || { info: null, bytes: 0 });
    const group = names.slice(i, i + sameRowRun(rest.map((f) => f.info), rest.map((f) => f.bytes)));
    const bufs = [];
    const infos = [];
    for (const name of group) {
      const f = this.fresh.get(name);
      const buf = f.buf !== null ? f.buf : this.spool.read(name);
      if (buf === null) { this.unfresh(name); continue; } // replayed meanwhile by another sink
      bufs.push(buf);
      infos.push(f.info);
    }
    try {
      if (bufs.length > 0) await this.loadRun(bufs, infos, false);
    } finally {
      for (const name of group) this.unfresh(name);
    }
    for (const name of group) this.spool.remove(name);
    return group.length;
  }

  /** COPYs a run of batches as one and counts them; `report`: tell onDurable (not yet in the spool). */
  async loadRun(bufs, infos, report = true) {
    const { buf, info } = this.merged(bufs, infos);
    await this.db.exclusive((client) => this.load(client, buf, info));
    this.rowsLoaded += info !== undefined ? info.rows : this.rowCounter(buf);
    this.batchesLoaded += bufs.length;
    if (report) for (const bi of infos) this.durable(bi);
  }

  /** Tells onDurable, once per batch, that a kill can no longer take it. */
  durable(info) {
    if (info === undefined || this.onDurable === null || this.reported.has(info)) return;
    this.reported.add(info);
    this.onDurable(info);
  }

  /** One COPY's bytes and counts for a run of batches (binary: one header and one trailer). */
  merged(run, infos) {
    const info = infos[0];
    if (run.length === 1) return { buf: run[0], info };
    const buf = this.format === 'text' ? Buffer.concat(run)
      : Buffer.concat([run[0].subarray(0, run[0].length - 2),
        ...run.slice(1).map((b) => b.subarray(BINARY_HEADER.length, b.length - 2)), BINARY_TRAILER]);
    if (info === undefined) return { buf, info };
    return { buf, info: { ...info, rows: infos.reduce((a, i) => a + i.rows, 0), ok: infos.reduce((a, i) => a + i.ok, 0) } };
  }

  /** COPY into requests; with a round's counts, in one transaction with its loadgen_runs row. */
  async load(client, buf, info) {
    this.copies++;
    if (info === undefined || info.roundId === undefined) {
      await this.copy(client, this.copySql, buf);
      return;
    }
    const n = [info.rows, info.ok, info.roundId, info.loadgenIndex];
    if (!n.every(Number.isSafeInteger)) throw new Error(`bad batch counts ${JSON.stringify(info)}`);
    await client.query('BEGIN');
    try {
      await this.copy(client, this.copySql, buf);
      await client.query(`UPDATE loadgen_runs SET sent = sent + ${n[0]}, ok = ok + ${n[1]}, errors = errors + ${n[0] - n[1]},
        progress_at = now() WHERE round_id = ${n[2]} AND instance_index = ${n[3]}; COMMIT`);
    } catch (err) {
      await client.query('ROLLBACK').catch(() => {});
      throw err;
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
    while (this.queue.length > 0) this.toSpool(this.queue.shift());
    this.queuedBytes = 0;
    const delay = this.backoffMs;
    this.backoffMs = Math.min(this.backoffMs * 2, BACKOFF_MAX_MS);
    this.retryTimer = setTimeout(() => {
      this.retryTimer = null;
      this.kick();
    }, delay);
  }

  async replay(client, buf) {
    if (!this.prepared.has(client)) {
      await client.query(`CREATE TEMP TABLE IF NOT EXISTS ${REPLAY_TABLE} (LIKE requests INCLUDING DEFAULTS) ON COMMIT DELETE ROWS`);
      this.prepared.add(client);
    }
    await client.query('BEGIN');
    try {
      await this.copy(client, this.replaySql, buf);
      const r = await client.query(REPLAY_SQL);
      await client.query('COMMIT');
      this.rowsLoaded += Number(r.rows[0].n);
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

  /**
   * Samples recorded but not in the database: the batches still in memory or in the
   * spool, as a Map round id -> rows (binary batches; text ones count under 0).
   */
  pendingRowsByRound() {
    const byRound = new Map();
    const add = (buf) => {
      if (this.format !== 'binary') { byRound.set(0, (byRound.get(0) || 0) + countTextRows(buf)); return; }
      for (const [round, n] of binaryRowsByRound(buf)) byRound.set(round, (byRound.get(round) || 0) + n);
    };
    for (const buf of this.queue) add(buf);
    for (const buf of this.held) add(buf);
    for (const name of this.spool.list()) {
      const buf = this.spool.read(name);
      if (buf !== null) add(buf);
    }
    return byRound;
  }

  async close() {
    if (this.retryTimer !== null) clearTimeout(this.retryTimer);
    this.retryTimer = null;
    if (this.ownsDb) await this.db.close();
  }
}

/**
 * How many batches at the head of `infos` (their sizes in `bytes`) load in one COPY: at least
 * 1, at most MAX_MERGED_BATCHES and MAX_QUEUED_BYTES; of one round and loadgen (one row's
 * counts), or all without counts; a null info (not a batch that may merge) ends the run.
 */
function sameRowRun(infos, bytes) {
  const first = infos[0];
  let n = 1;
  let total = bytes[0];
  for (; n < infos.length && n < MAX_MERGED_BATCHES && total + bytes[n] <= MAX_QUEUED_BYTES; total += bytes[n], n++) {
    const info = infos[n];
    const same = first === undefined ? info === undefined
      : info !== undefined && info !== null && info.roundId === first.roundId && info.loadgenIndex === first.loadgenIndex;
    if (!same) break;
  }
  return n;
}

/**
 * A server-side refusal of the data itself (SQLSTATE classes 22 data exception,
 * 23 integrity, 42 syntax/undefined column) rather than a lost connection,
 * shutdown or resource shortage, which are worth retrying.
 */
function isRejection(err) {
  return typeof err.code === 'string' && /^(22|23|42)/.test(err.code);
}

module.exports = { Sink };
