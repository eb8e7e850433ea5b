'use strict';
// ingest-cli.js — what the three ingest commands share: flags, the batched writer, and
// reading stdin to the end or to SIGTERM/SIGINT without losing what was read.
//
// Flags (flag → environment → default):
//   --db URL          results database (RESULTS_DATABASE_URL)
//   --round ID        round id, a positive integer
//   --app APP         app name as in its manifest
//   --platform P      local | cf (PLATFORM, default local)
// Exit codes: 0 ok, 1 usage/config, 2 rows could not be written to the database.

const { Client } = require('pg');
const { connectionFromUrl, pgConfig } = require('../cf/bindings');

const FLUSH_ROWS = 500; // rows per INSERT statement
const FLUSH_INTERVAL_MS = 1000; // flush at least this often while input trickles in
const MAX_PENDING_ROWS = 200000; // bound while the database is unreachable (then oldest dropped)
const FINAL_FLUSH_ATTEMPTS = 5;
const FINAL_FLUSH_RETRY_MS = 1000;

class UsageError extends Error {}

/**
 * @param {string[]} argv arguments after the script name
 * @param {string[]} [extraFlags] further flags taking a value (e.g. ['since'])
 */
function parseArgs(argv, extraFlags = []) {
  const known = new Set(['db', 'round', 'app', 'platform', ...extraFlags]);
  const opts = {};
  for (let i = 0; i < argv.length; i++) {
    const m = /^--([a-z-]+)(?:=(.*))?$/.exec(argv[i]);
    if (!m || !known.has(m[1])) throw new UsageError(`unknown argument: ${argv[i]}`);
    const value = m[2] !== undefined ? m[2] : argv[++i];
    if (value === undefined) throw new UsageError(`--${m[1]} needs a value`);
    opts[m[1]] = value;
  }
  opts.db = opts.db || process.env.RESULTS_DATABASE_URL;
  opts.platform = opts.platform || process.env.PLATFORM || 'local';
  if (!opts.db) throw new UsageError('--db URL (or RESULTS_DATABASE_URL) is required');
  if (!/^[1-9][0-9]{0,17}$/.test(opts.round || '')) {
    throw new UsageError(`--round must be a positive integer, got "${opts.round ?? ''}"`);
  }
  if (!opts.app) throw new UsageError('--app is required');
  if (!['local', 'cf'].includes(opts.platform)) {
    throw new UsageError(`--platform must be local or cf, got "${opts.platform}"`);
  }
  return opts;
}

/** Batched multi-row INSERT … ON CONFLICT DO NOTHING that survives a database outage. */
class BatchWriter {
  constructor({ client, table, columns, log }) {
    this.client = client;
    this.table = table;
    this.columns = columns;
    this.log = log;
    this.pending = [];
    this.inserted = 0;
    this.duplicates = 0;
    this.dropped = 0;
    this.failing = false;
    this.queued = false;
    this.busy = Promise.resolve();
  }

  add(row) {
    this.pending.push(this.columns.map((c) => (row[c] === undefined ? null : row[c])));
    if (this.pending.length > MAX_PENDING_ROWS) {
      this.pending.shift();
      this.dropped++;
    }
    if (this.pending.length >= FLUSH_ROWS && !this.failing && !this.queued) {
      this.queued = true;
      this.flush().then(() => { this.queued = false; });
    }
  }

  /** Flushes everything pending; serialised. Resolves true when nothing is left. */
  flush() {
    this.busy = this.busy.then(() => this.#flushNow());
    return this.busy;
  }

  async #flushNow() {
    while (this.pending.length > 0) {
      const batch = this.pending.slice(0, FLUSH_ROWS);
      const params = [];
      const tuples = batch.map((values) => {
        const ph = values.map((v) => `$${params.push(v)}`);
        return `(${ph.join(',')})`;
      });
      const sql = `INSERT INTO ${this.table} (${this.columns.join(',')}) VALUES ${tuples.join(',')} ON CONFLICT DO NOTHING`;
      try {
        const res = await this.client.query(sql, params);
        this.inserted += res.rowCount;
        this.duplicates += batch.length - res.rowCount;
        this.pending.splice(0, batch.length);
        if (this.failing) this.log('database writes work again');
        this.failing = false;
      } catch (err) {
        if (!this.failing) this.log(`insert into ${this.table} failed, keeping ${this.pending.length} rows: ${err.message}`);
        this.failing = true;
        return false;
      }
    }
    return true;
  }
}

/** Connects; a clear one-line error (exit 2) when the database cannot be reached. */
async function connect(url, log) {
  let client;
  try {
    client = new Client({ ...pgConfig(connectionFromUrl(url, 'the results database URL')), application_name: 'cfscale-ingest' });
    client.on('error', (err) => log(`database connection error: ${err.message}`));
    await client.connect();
  } catch (err) {
    log(`cannot connect to the results database: ${err.message}`);
    process.exit(2);
  }
  return client;
}

/**
 * Reads stdin as text to EOF or SIGTERM/SIGINT, then calls finish() once.
 * @param {(text: string) => void} onText
 * @param {() => Promise<void>} finish
 */
function readInput(onText, finish) {
  let done = false;
  const end = () => {
    if (done) return;
    done = true;
    process.stdin.pause();
    finish();
  };
  process.stdin.setEncoding('utf8');
  process.stdin.on('data', (text) => {
    if (!done) onText(text);
  });
  process.stdin.on('end', end);
  process.stdin.on('error', end);
  process.on('SIGTERM', end);
  process.on('SIGINT', end);
}

/** Final flush with retries; exits 0 when everything is written, else 2. */
async function finalFlush(writer, client, log, summary) {
  for (let attempt = 1; attempt <= FINAL_FLUSH_ATTEMPTS; attempt++) {
    if (await writer.flush()) break;
    if (attempt < FINAL_FLUSH_ATTEMPTS) await new Promise((r) => setTimeout(r, FINAL_FLUSH_RETRY_MS));
  }
  const lost = writer.pending.length + writer.dropped;
  log(`${summary()}; inserted ${writer.inserted}, already in db ${writer.duplicates}${lost ? `, NOT WRITTEN ${lost}` : ''}`);
  await client.end().catch(() => {});
  process.exit(lost > 0 ? 2 : 0);
}

/** Runs main(); usage errors → one line and exit 1. */
function runMain(name, main) {
  const log = (msg) => process.stderr.write(`${name}: ${msg}\n`);
  main(log).catch((err) => {
    if (err instanceof UsageError) {
      log(err.message);
      process.exit(1);
    }
    log(err.stack || String(err));
    process.exit(2);
  });
}

/** Calls writer.flush() every FLUSH_INTERVAL_MS; returns the timer (unref'd). */
function flushTimer(writer) {
  const t = setInterval(() => writer.flush(), FLUSH_INTERVAL_MS);
  t.unref();
  return t;
}

module.exports = {
  parseArgs, BatchWriter, connect, readInput, finalFlush, runMain, flushTimer, UsageError,
  FLUSH_ROWS,
};
