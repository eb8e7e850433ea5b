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

const { Spool } = require('./spool');
const { binaryRowsByRound, countBinaryRows, countTextRows } = require('./sample-batch');
const { ResultsDb } = require('./results-db');
const { MAX_QUEUED_BYTES, copyStatements, copyCounted, replay, merged, sameRowRun, isRejection } = require('./sink-copy');

// A COPY of batches from memory not committed this long after it started: they are written to
// the spool too, so that what a kill takes stays within its bound (250 ms of samples: a batch's
// age, 100 ms, plus this and the write; a fast database commits before, and nothing is written).
const IN_FLIGHT_SPOOL_MS = 50;
const BACKOFF_MIN_MS = 250;
const BACKOFF_MAX_MS = 5000;

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
    const { copySql, replaySql } = copyStatements(format);
    this.copySql = copySql;
    this.replaySql = replaySql;
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
    const { buf, info } = merged(this.format, bufs, infos);
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

  /** COPY into requests; with a round's counts, in one transaction with its loadgen_runs row. */
  load(client, buf, info) {
    this.copies++;
    return copyCounted(client, this.copySql, buf, info);
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

  /** A batch that may be in already, loaded without duplicates (sink-copy.js replay). */
  async replay(client, buf) {
    this.rowsLoaded += await replay(client, this.replaySql, buf, this.prepared);
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

module.exports = { Sink };
