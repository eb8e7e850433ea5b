'use strict';
// The SQL side of the sink (sink.js): one COPY with its timeout, a batch and its round's
// counts in one transaction, the replay of a batch that may already be in (through a
// temporary table, INSERT ... ON CONFLICT DO NOTHING), and how batches merge into one COPY.

const { from: copyFrom } = require('pg-copy-streams');
const { COPY_COLUMNS, BINARY_HEADER } = require('./sample-batch');

// The largest a run of merged batches may be, in bytes: the sink keeps as much in memory.
const MAX_QUEUED_BYTES = 8 * 1024 * 1024;
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

/** The COPY statements of a format ('binary' | 'text'): into requests, and into the replay table. */
function copyStatements(format) {
  return {
    copySql: `COPY requests (${COPY_COLUMNS}) FROM STDIN (FORMAT ${format})`,
    replaySql: `COPY ${REPLAY_TABLE} (${COPY_COLUMNS}) FROM STDIN (FORMAT ${format})`,
  };
}

/** One COPY of buf; one that takes over COPY_TIMEOUT_MS fails and closes the connection. */
function copy(client, sql, buf) {
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

/** COPY into requests; with a round's counts, in one transaction with its loadgen_runs row. */
async function copyCounted(client, copySql, buf, info) {
  if (info === undefined || info.roundId === undefined) {
    await copy(client, copySql, buf);
    return;
  }
  const n = [info.rows, info.ok, info.roundId, info.loadgenIndex];
  if (!n.every(Number.isSafeInteger)) throw new Error(`bad batch counts ${JSON.stringify(info)}`);
  await client.query('BEGIN');
  try {
    await copy(client, copySql, buf);
    await client.query(`UPDATE loadgen_runs SET sent = sent + ${n[0]}, ok = ok + ${n[1]}, errors = errors + ${n[0] - n[1]},
      progress_at = now() WHERE round_id = ${n[2]} AND instance_index = ${n[3]}; COMMIT`);
  } catch (err) {
    await client.query('ROLLBACK').catch(() => {});
    throw err;
  }
}

/**
 * Loads a batch that may be in already, without duplicates; resolves with the rows it
 * inserted. `prepared`: the clients that have the replay table (a WeakSet the caller keeps).
 */
async function replay(client, replaySql, buf, prepared) {
  if (!prepared.has(client)) {
    await client.query(`CREATE TEMP TABLE IF NOT EXISTS ${REPLAY_TABLE} (LIKE requests INCLUDING DEFAULTS) ON COMMIT DELETE ROWS`);
    prepared.add(client);
  }
  await client.query('BEGIN');
  try {
    await copy(client, replaySql, buf);
    const r = await client.query(REPLAY_SQL);
    await client.query('COMMIT');
    return Number(r.rows[0].n);
  } catch (err) {
    await client.query('ROLLBACK').catch(() => {});
    throw err;
  }
}

/** One COPY's bytes and counts for a run of batches (binary: one header and one trailer). */
function merged(format, run, infos) {
  const info = infos[0];
  if (run.length === 1) return { buf: run[0], info };
  const buf = format === 'text' ? Buffer.concat(run)
    : Buffer.concat([run[0].subarray(0, run[0].length - 2),
      ...run.slice(1).map((b) => b.subarray(BINARY_HEADER.length, b.length - 2)), BINARY_TRAILER]);
  if (info === undefined) return { buf, info };
  return { buf, info: { ...info, rows: infos.reduce((a, i) => a + i.rows, 0), ok: infos.reduce((a, i) => a + i.ok, 0) } };
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

module.exports = { MAX_QUEUED_BYTES, copyStatements, copyCounted, replay, merged, sameRowRun, isRejection };
