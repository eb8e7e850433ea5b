'use strict';
// The results database as control plane (results-schema.sql): wait for rounds
// (LISTEN cfscale_rounds; the rounds trigger NOTIFYs each new id), find the rounds
// this instance index has to run, claim one by inserting its loadgen_runs row, and
// write the row's final figures. Every query tolerates the database going away:
// the caller retries, and polling covers notifications missed while disconnected.
// The queries run on the worker's one results-database connection (results-db.js),
// which also advertises the worker's state in application_name.

const { ResultsDb, CHANNEL, appName } = require('./results-db');

class ControlPlane {
  /** db: a ResultsDb (shared with the sink), or a URL for a connection of its own. */
  constructor(db, log, index = 0) {
    this.db = typeof db === 'string' ? new ResultsDb(db, { index, log }) : db;
    this.log = log;
    this.index = index;
  }

  set onNotify(fn) { this.db.onNotify = fn; }

  setState(state) { return this.db.setState(state); }

  query(sql, params) { return this.db.query(sql, params); }

  /**
   * Rounds this index may run, oldest start first, with the database clock. A round whose
   * control process is gone (no heartbeat, round_stale in results-schema.sql) is never started.
   */
  async candidates(index) {
    const r = await this.query(
      `SELECT r.*, extract(epoch FROM r.start_at) * 1000 AS start_ms,
              extract(epoch FROM clock_timestamp()) * 1000 AS db_now_ms
         FROM rounds r
        WHERE r.status IN ('pending', 'running') AND r.loadgens > $1 AND NOT round_stale(r)
          AND NOT EXISTS (SELECT 1 FROM loadgen_runs l WHERE l.round_id = r.id AND l.instance_index = $1)
        ORDER BY r.start_at, r.id LIMIT 20`, [index]);
    return r.rows;
  }

  /**
   * Database clock minus local clock, in ms: the sample with the shortest round
   * trip of a few wins, so the error is at most half that round trip.
   */
  async clockOffsetMs(samples = 5) {
    // Timed inside the connection's turn: a sink batch ahead in line must not count.
    return this.db.exclusive(async (client) => {
      let best = { rtt: Infinity, offset: 0 };
      for (let i = 0; i < samples; i++) {
        const t0 = Date.now();
        const r = await client.query('SELECT extract(epoch FROM clock_timestamp()) * 1000 AS now_ms');
        const t1 = Date.now();
        if (t1 - t0 < best.rtt) best = { rtt: t1 - t0, offset: Number(r.rows[0].now_ms) - (t0 + t1) / 2 };
      }
      return best.offset;
    });
  }

  /** Inserts this instance's loadgen_runs row; false when it already exists. */
  async claim(roundId, index, guid, host = null) {
    const r = await this.query(
      `INSERT INTO loadgen_runs (round_id, instance_index, instance_guid, host, status)
       VALUES ($1, $2, $3, $4, 'running') ON CONFLICT DO NOTHING RETURNING round_id`, [roundId, index, guid, host]);
    return r.rowCount === 1;
  }

  async markStarted(roundId, index) {
    await this.query('UPDATE loadgen_runs SET started_at = now() WHERE round_id = $1 AND instance_index = $2', [roundId, index]);
  }

  /**
   * A running round's status and, once its steady-state gate has set it, when to stop
   * issuing (stopMs, database clock; null before): { status, stopMs }.
   */
  async roundControl(roundId) {
    const r = await this.query('SELECT status, extract(epoch FROM stop_at) * 1000 AS stop_ms FROM rounds WHERE id = $1', [roundId]);
    if (!r.rows.length) return { status: 'cancelled', stopMs: null };
    const { status, stop_ms: stopMs } = r.rows[0];
    return { status, stopMs: stopMs === null ? null : Number(stopMs) };
  }

  /**
   * Writes the final figures (f: column -> value) of this instance's run. sent, ok and
   * errors are not among them: the sink adds each batch's counts in the transaction that
   * loads it (sink.js), so the row always tells what reached the database.
   */
  async finish(roundId, index, f) {
    await this.query(
      `UPDATE loadgen_runs SET status = $3, finished_at = now(), lost = NULL,
              errors_by_kind = $4, late = $5, cpu_user_ms = $6, cpu_system_ms = $7,
              eloop_delay_p99_us = $8, eloop_delay_max_us = $9, rss_max_bytes = $10,
              spooled_batches = $11, detail = $12, cpu_periods = $13, cpu_throttled_periods = $14,
              cpu_throttled_ms = $15
        WHERE round_id = $1 AND instance_index = $2`,
      [roundId, index, f.status, JSON.stringify(f.errors_by_kind || {}), f.late,
        f.cpu_user_ms, f.cpu_system_ms, f.eloop_delay_p99_us, f.eloop_delay_max_us, f.rss_max_bytes,
        f.spooled_batches, f.detail || null, f.cpu_periods ?? null, f.cpu_throttled_periods ?? null,
        f.cpu_throttled_ms ?? null]);
  }

  close() { return this.db.close(); }
}

module.exports = { ControlPlane, CHANNEL, appName };
