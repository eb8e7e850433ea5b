'use strict';
// The results database as control plane (results-schema.sql): wait for rounds
// (LISTEN cfscale_rounds; the rounds trigger NOTIFYs each new id), find the rounds
// this instance index has to run, claim one by inserting its loadgen_runs row, and
// write the row's final figures. Every query tolerates the database going away:
// the caller retries, and polling covers notifications missed while disconnected.
// The connection advertises the worker's state in application_name,
// `cfscale-loadgen:<index>:<state>` (idle: LISTENing and waiting for rounds; busy:
// running one), so scripts/round/create-round.js can wait in pg_stat_activity until
// every loadgen is ready before it inserts a round.

const pg = require('pg');

const CHANNEL = 'cfscale_rounds';
const CONNECT_TIMEOUT_MS = 5000;
const APP_NAME_PREFIX = 'cfscale-loadgen';

/** The application_name of an instance's control connection in a state. */
function appName(index, state) {
  return `${APP_NAME_PREFIX}:${index}:${state}`;
}

class ControlPlane {
  constructor(url, log, index = 0) {
    this.url = url;
    this.log = log;
    this.index = index;
    this.state = 'idle';
    this.client = null;
    this.onNotify = () => {};
  }

  async connect() {
    if (this.client !== null) return this.client;
    // 'connecting' until LISTEN is on: a round inserted before then could miss its NOTIFY.
    const client = new pg.Client({ connectionString: this.url, connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
      keepAlive: true, application_name: appName(this.index, 'connecting') });
    client.on('error', (err) => {
      if (this.client === client) {
        this.log(`control connection lost: ${err.message}`);
        this.client = null;
      }
    });
    client.on('end', () => { if (this.client === client) this.client = null; });
    client.on('notification', (n) => { if (n.channel === CHANNEL) this.onNotify(n.payload); });
    let sent;
    try {
      await client.connect();
      sent = this.state;
      await client.query(`LISTEN ${CHANNEL}; ${setAppName(this.index, sent)}`);
    } catch (err) {
      client.end().catch(() => {});
      throw err;
    }
    this.client = client;
    if (this.state !== sent) client.query(setAppName(this.index, this.state)).catch(() => {}); // changed meanwhile
    return client;
  }

  /**
   * Advertises a state ('idle', 'busy', 'stopping') in application_name: one SET on
   * the open connection, none when unchanged; a connection opened later starts with it.
   * Never throws: a lost connection gets the state when it is opened again.
   */
  async setState(state) {
    if (state === this.state) return;
    this.state = state;
    if (this.client === null) return;
    await this.query(setAppName(this.index, state)).catch(() => {});
  }

  async query(sql, params) {
    const client = await this.connect();
    try {
      return await client.query(sql, params);
    } catch (err) {
      if (this.client === client && !err.code) { this.client = null; client.end().catch(() => {}); }
      throw err;
    }
  }

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
    let best = { rtt: Infinity, offset: 0 };
    for (let i = 0; i < samples; i++) {
      const t0 = Date.now();
      const r = await this.query('SELECT extract(epoch FROM clock_timestamp()) * 1000 AS now_ms');
      const t1 = Date.now();
      if (t1 - t0 < best.rtt) best = { rtt: t1 - t0, offset: Number(r.rows[0].now_ms) - (t0 + t1) / 2 };
    }
    return best.offset;
  }

  /** Inserts this instance's loadgen_runs row; false when it already exists. */
  async claim(roundId, index, guid) {
    const r = await this.query(
      `INSERT INTO loadgen_runs (round_id, instance_index, instance_guid, status)
       VALUES ($1, $2, $3, 'running') ON CONFLICT DO NOTHING RETURNING round_id`, [roundId, index, guid]);
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

  /** Writes the final figures (f: column -> value) of this instance's run. */
  async finish(roundId, index, f) {
    await this.query(
      `UPDATE loadgen_runs SET status = $3, finished_at = now(), sent = $4, ok = $5, errors = $6,
              errors_by_kind = $7, late = $8, cpu_user_ms = $9, cpu_system_ms = $10,
              eloop_delay_p99_us = $11, eloop_delay_max_us = $12, rss_max_bytes = $13,
              spooled_batches = $14, detail = $15, cpu_periods = $16, cpu_throttled_periods = $17,
              cpu_throttled_ms = $18
        WHERE round_id = $1 AND instance_index = $2`,
      [roundId, index, f.status, f.sent, f.ok, f.errors, JSON.stringify(f.errors_by_kind || {}), f.late,
        f.cpu_user_ms, f.cpu_system_ms, f.eloop_delay_p99_us, f.eloop_delay_max_us, f.rss_max_bytes,
        f.spooled_batches, f.detail || null, f.cpu_periods ?? null, f.cpu_throttled_periods ?? null,
        f.cpu_throttled_ms ?? null]);
  }

  async close() {
    const c = this.client;
    this.client = null;
    if (c !== null) await c.end().catch(() => {});
  }
}

function setAppName(index, state) {
  return `SET application_name = '${appName(index, state)}'`; // an integer and a fixed word: nothing to escape
}

module.exports = { ControlPlane, CHANNEL, appName };
