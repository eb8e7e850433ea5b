'use strict';
// ingest-cli.js — what the three ingest commands share: flags, the batched writer that
// holds its rows while the results database is away, and reading stdin to the end or to
// SIGTERM/SIGINT without losing what was read.
//
// Flags (flag → environment → default): ROWS below, plus a command's own (arg-table.js).
// Exit codes: 0 ok, 1 usage/config, 2 rows could not be written to the database (it stayed
// away longer than results-db.js outageToleranceMs(), or refused them). Nothing here exits:
// runMain gives the command the code its entry point exits with.

const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { Connection, isConnectionError, outageToleranceMs, BACKOFF_MAX_MS } = require('../ops/results-db');
const { parse, help, convert, note, REQUIRED, UsageError, CliError, cliExitCode } = require('../../lib/arg-table');

const FLUSH_ROWS = 500; // rows per INSERT statement
const FLUSH_INTERVAL_MS = 1000; // flush at least this often while input trickles in
// While the database is away rows are held: up to MEMORY_ROWS in memory, then written to
// a spool file of their own in a directory under TMPDIR, up to SPOOL_MAX_ROWS on disk (then
// the newest are dropped and counted as not written). A router-log collector at 2,000
// records/s fills memory in 10 s and holds a 60 s outage in 6 files of ~3 MB.
const MEMORY_ROWS = 20000;
const SPOOL_MAX_ROWS = 5000000;
const RETRY_MIN_MS = 250;

// The flags every ingest command takes, and the results database's URL, which holds a
// password: from the environment only, never a flag (`ps` shows every argument).
const PLATFORM_ROW = ['--platform P', 'platform', 'str', note('PLATFORM, else local'), 'local | cf', ['local', 'cf']];
const ROWS = [
  ['RESULTS_DATABASE_URL URL', 'db', 'str', REQUIRED, 'results database'],
  ['--round ID', 'round', 'int', REQUIRED, 'the round the rows belong to', [1]],
  ['--app APP', 'app', 'str', REQUIRED, 'app name as in its manifest'],
  PLATFORM_ROW,
];

/**
 * argv by ROWS and `command.rows` (a command's own flags); --help throws CliError with
 * `command.usage`, `command.about` and the flags for stdout, exit 0.
 */
function parseArgs(argv, command = {}) {
  const all = [...ROWS, ...(command.rows || []), ['--help', 'help', 'bool', '', 'this help']];
  const aliases = { '-h': '--help' };
  const opts = parse(argv, all, { aliases });
  if (opts.help) throw new CliError('', 0, { stdout: help(command.usage || '', command.about || '', all, { aliases }) });
  opts.platform ??= convert(PLATFORM_ROW, process.env.PLATFORM || 'local');
  return opts;
}

/**
 * Batched multi-row INSERT … ON CONFLICT DO NOTHING that survives a database outage: what
 * could not be written is held (memory, then spool files) and written, oldest first, once
 * the database answers again; reconnecting is tried with backoff (RETRY_MIN_MS doubling to
 * results-db.js BACKOFF_MAX_MS). A spool file partly written before the database went away again
 * is read again from where it stopped.
 */
class BatchWriter {
  constructor({ db, table, columns, log }) {
    this.db = db;
    this.table = table;
    this.columns = columns;
    this.log = log;
    this.pending = [];
    this.files = []; // spool files, oldest first: { path, rows, done }
    // A new name per file: files.length shrinks as they are written, and a name used again would
    // overwrite a file still held and be deleted with the one written before it.
    this.spoolSeq = 0;
    this.spoolDir = null;
    this.spooledRows = 0; // rows in spool files not yet written
    this.inserted = 0;
    this.duplicates = 0;
    this.dropped = 0;
    this.failing = false;
    this.lastError = null; // the last failure's message, logged again only when it changes
    this.queued = false;
    this.retryAtMs = 0;
    this.retryDelayMs = RETRY_MIN_MS;
    this.busy = Promise.resolve();
  }

  /** Rows read but not written (held in memory or on disk). */
  get held() {
    return this.pending.length + this.spooledRows;
  }

  add(row) {
    this.pending.push(this.columns.map((c) => (row[c] === undefined ? null : row[c])));
    if (this.pending.length >= MEMORY_ROWS) this.#spill();
    if (this.pending.length >= FLUSH_ROWS && !this.failing && !this.queued) {
      this.queued = true;
      this.flush().then(() => { this.queued = false; });
    }
  }

  /** The rows in memory to a spool file of their own (or dropped past SPOOL_MAX_ROWS). */
  #spill() {
    const rows = this.pending;
    this.pending = [];
    if (this.spooledRows + rows.length > SPOOL_MAX_ROWS) {
      this.dropped += rows.length;
      return;
    }
    if (!this.spoolDir) {
      this.spoolDir = fs.mkdtempSync(path.join(os.tmpdir(), `cfscale-${this.table}-`));
      this.log(`holding rows on disk in ${this.spoolDir} ${this.failing ? 'until the database is back' : 'while the inserts catch up with the input'}`);
    }
    const file = path.join(this.spoolDir, `${String(this.spoolSeq++).padStart(6, '0')}.json`);
    fs.writeFileSync(file, JSON.stringify(rows));
    this.files.push({ path: file, rows: rows.length, done: 0 });
    this.spooledRows += rows.length;
  }

  /** Flushes everything held; serialised. Resolves true when nothing is left. */
  flush() {
    this.busy = this.busy.then(() => this.#flushNow());
    return this.busy;
  }

  async #insert(batch) {
    const params = [];
    const tuples = batch.map((values) => {
      const ph = values.map((v) => `$${params.push(v)}`);
      return `(${ph.join(',')})`;
    });
    const sql = `INSERT INTO ${this.table} (${this.columns.join(',')}) VALUES ${tuples.join(',')} ON CONFLICT DO NOTHING`;
    const res = await this.db.query(sql, params);
    this.inserted += res.rowCount;
    this.duplicates += batch.length - res.rowCount;
  }

  async #flushNow() {
    if (this.failing && Date.now() < this.retryAtMs) return false;
    try {
      // Files first (oldest rows), then memory, until both are empty: rows keep arriving and
      // may spill to a new file while a batch is in flight, so both are looked at again after
      // every batch, and the spool directory goes only once nothing in it is still held.
      while (this.files.length > 0 || this.pending.length > 0) {
        if (this.files.length > 0) {
          const f = this.files[0];
          const rows = JSON.parse(fs.readFileSync(f.path, 'utf8'));
          while (f.done < f.rows) {
            const batch = rows.slice(f.done, f.done + FLUSH_ROWS);
            await this.#insert(batch);
            f.done += batch.length;
            this.spooledRows -= batch.length;
          }
          fs.rmSync(f.path, { force: true });
          this.files.shift();
          continue;
        }
        // The batch leaves memory while it is written, so a spill meanwhile neither writes it
        // to a file again nor loses rows that arrived after it; on failure it goes back first.
        const batch = this.pending.splice(0, FLUSH_ROWS);
        try {
          await this.#insert(batch);
        } catch (err) {
          this.pending.unshift(...batch);
          throw err;
        }
      }
    } catch (err) {
      if (!this.failing || err.message !== this.lastError) {
        this.log(`insert into ${this.table} failed, holding ${this.held} rows: ${err.message}`);
      }
      this.lastError = err.message;
      this.failing = true;
      this.retryAtMs = Date.now() + this.retryDelayMs;
      this.retryDelayMs = Math.min(2 * this.retryDelayMs, BACKOFF_MAX_MS);
      if (!isConnectionError(err)) this.retryDelayMs = BACKOFF_MAX_MS;
      return false;
    }
    if (this.failing) this.log('database writes work again');
    this.failing = false;
    this.retryDelayMs = RETRY_MIN_MS;
    if (this.spoolDir) {
      fs.rmSync(this.spoolDir, { recursive: true, force: true });
      this.spoolDir = null;
    }
    return true;
  }
}

/**
 * The results database connection (results-db.js Connection, opened now and again after it broke).
 * A database that cannot be reached now is no error: rows are held until it is back. Any
 * other failure (a wrong password, no such database) rejects with one line's message.
 */
async function openConnection(url, log, { retryForMs = 0 } = {}) {
  const db = new Connection(url, 'ingest', { retryForMs, log });
  try {
    await db.query('SELECT 1');
  } catch (err) {
    if (!isConnectionError(err)) {
      await db.end();
      throw new Error(`cannot connect to the results database: ${err.message}`);
    }
    log(`results database unreachable for now, holding rows: ${err.message}`);
  }
  return db;
}

/** The results database cannot be used at all (not merely away): the command ends, exit 2. */
class ConnectError extends Error {}

/** openConnection for a CLI: a failure throws ConnectError (runMain: one line, exit 2). */
async function connect(url, log, opts) {
  try {
    return await openConnection(url, log, opts);
  } catch (err) {
    throw new ConnectError(err.message);
  }
}

/**
 * Reads stdin as text to EOF or SIGTERM/SIGINT; resolves then, once.
 * @param {(text: string) => void} onText
 * @returns {Promise<void>}
 */
function readInput(onText) {
  return new Promise((resolve) => {
    let done = false;
    const end = () => {
      if (done) return;
      done = true;
      process.stdin.pause();
      resolve();
    };
    process.stdin.setEncoding('utf8');
    process.stdin.on('data', (text) => {
      if (!done) onText(text);
    });
    process.stdin.on('end', end);
    process.stdin.on('error', end);
    process.on('SIGTERM', end);
    process.on('SIGINT', end);
  });
}

/**
 * Final flush: tried again with backoff while the database is away, for up to results-db.js
 * outageToleranceMs(); resolves the exit code: 0 when everything is written, else 2 (NOT WRITTEN n).
 */
async function finalFlush(writers, db, log, summary) {
  const list = [].concat(writers);
  const t0 = Date.now();
  for (const writer of list) {
    while (!(await writer.flush())) {
      const waitMs = Math.max(writer.retryAtMs - Date.now(), RETRY_MIN_MS);
      if (Date.now() + waitMs - t0 > outageToleranceMs()) break;
      await new Promise((r) => setTimeout(r, waitMs));
    }
  }
  const sum = (k) => list.reduce((s, w) => s + w[k], 0);
  const lost = sum('held') + sum('dropped');
  const spooled = list.filter((w) => w.spoolDir);
  log(`${summary()}; inserted ${sum('inserted')}, already in db ${sum('duplicates')}${lost ? `, NOT WRITTEN ${lost}` : ''}`
    + `${spooled.length ? ` (${sum('spooledRows')} of them kept in ${spooled.map((w) => w.spoolDir).join(', ')})` : ''}`);
  await db.end();
  return lost > 0 ? 2 : 0;
}

/**
 * Runs main(log) → the exit code the command's entry point exits with: main's own; a usage
 * error one line and 1; ConnectError one line and 2; CliError as it says; anything else its
 * stack and 2.
 */
async function runMain(name, main) {
  const log = (msg) => process.stderr.write(`${name}: ${msg}\n`);
  try {
    return await main(log);
  } catch (err) {
    if (err instanceof CliError) return cliExitCode(err);
    const usage = err instanceof UsageError;
    log(usage || err instanceof ConnectError ? err.message : err.stack || String(err));
    return usage ? 1 : 2;
  }
}

/** Calls writer.flush() every FLUSH_INTERVAL_MS; returns the timer (unref'd). */
function flushTimer(writer) {
  const t = setInterval(() => writer.flush(), FLUSH_INTERVAL_MS);
  t.unref();
  return t;
}

module.exports = {
  parseArgs, BatchWriter, openConnection, connect, readInput, finalFlush, runMain, flushTimer, UsageError,
  FLUSH_ROWS, MEMORY_ROWS,
};
