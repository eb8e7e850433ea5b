'use strict';
// The one results-database connection of a loadgen. A service plan caps connections
// (100 for the study's 96 loadgens), so the worker's control plane (LISTEN,
// round queries, its loadgen_runs row) and its sample sink (COPY) share this one
// session. Work on it is serial: `exclusive(fn)` runs fn(client) alone, so a sink
// transaction never takes a control query in by accident; between two batches the
// control plane gets its turn. The connection is opened on demand and dropped when it
// breaks; the next caller opens it again (LISTEN and application_name included).
// With an instance index the session advertises the worker's state in
// application_name, `cfscale-loadgen:<index>:<state>` (idle: LISTENing and waiting
// for rounds; busy: running one), which scripts/round/create-round.js reads.

const pg = require('pg');

const CHANNEL = 'cfscale_rounds';
const CONNECT_TIMEOUT_MS = 5000;
const APP_NAME_PREFIX = 'cfscale-loadgen';

/** The application_name of an instance's connection in a state. */
function appName(index, state) {
  return `${APP_NAME_PREFIX}:${index}:${state}`;
}

function setAppName(index, state) {
  return `SET application_name = '${appName(index, state)}'`; // an integer and a fixed word: nothing to escape
}

class ResultsDb {
  /** opts: { index (null: no state, no LISTEN — the CLI), log } */
  constructor(url, opts = {}) {
    this.url = url;
    this.index = opts.index ?? null;
    this.log = opts.log || (() => {});
    this.state = 'idle';
    this.client = null;
    this.tail = Promise.resolve();
    this.onNotify = () => {};
  }

  /** The open client, opened first when there is none. Only inside exclusive(). */
  async connect() {
    if (this.client !== null) return this.client;
    const listening = this.index !== null;
    // 'connecting' until LISTEN is on: a round inserted before then could miss its NOTIFY.
    const client = new pg.Client({ connectionString: this.url, connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
      keepAlive: true, application_name: listening ? appName(this.index, 'connecting') : APP_NAME_PREFIX });
    client.on('error', (err) => {
      if (this.client !== client) return;
      this.log(`results database connection lost: ${err.message}`);
      this.client = null;
    });
    client.on('end', () => { if (this.client === client) this.client = null; });
    client.on('notification', (n) => { if (n.channel === CHANNEL) this.onNotify(n.payload); });
    let sent = null;
    try {
      await client.connect();
      if (listening) {
        sent = this.state;
        await client.query(`LISTEN ${CHANNEL}; ${setAppName(this.index, sent)}`);
      }
    } catch (err) {
      client.end().catch(() => {});
      throw err;
    }
    this.client = client;
    if (sent !== null && this.state !== sent) await client.query(setAppName(this.index, this.state)).catch(() => {});
    return client;
  }

  /**
   * Runs fn(client) when nothing else runs on the connection; resolves with its result.
   * A failure that is not the server's answer (a socket error, a timeout: the connection
   * itself) drops the client.
   */
  exclusive(fn) {
    const job = this.tail.then(async () => {
      const client = await this.connect();
      try {
        return await fn(client);
      } catch (err) {
        if (!(err instanceof pg.DatabaseError)) this.drop(client);
        throw err;
      }
    });
    this.tail = job.catch(() => {});
    return job;
  }

  query(sql, params) {
    return this.exclusive((client) => client.query(sql, params));
  }

  /**
   * Advertises a state ('idle', 'busy', 'stopping') in application_name: one SET on the
   * open connection, none when unchanged; a connection opened later starts with it.
   * Never throws: a lost connection gets the state when it is opened again.
   */
  async setState(state) {
    if (state === this.state || this.index === null) return;
    this.state = state;
    if (this.client === null) return;
    await this.query(setAppName(this.index, state)).catch(() => {});
  }

  /** Forgets a broken client (the next exclusive() opens a new one). */
  drop(client = this.client) {
    if (client === null || this.client !== client) return;
    this.client = null;
    client.end().catch(() => {});
  }

  async close() {
    const c = this.client;
    this.client = null;
    if (c !== null) await c.end().catch(() => {});
  }
}

module.exports = { ResultsDb, CHANNEL, appName };
