'use strict'
// db.js — the app database: a node-postgres Pool on the native libpq binding (falls back
// to the pure-JS driver when pg-native cannot load), the `ads` table created on first
// reach, and query() that measures pool wait and statement time per request.
//
// Connection trouble (refused, reset, pool timeout DB_POOL_TIMEOUT_MS, server shutting
// down) becomes `503 database unavailable` (contract "Database trouble"); the pool drops
// the broken connection and the next request tries again, so the app recovers by itself.
//
// A statement is bounded twice by DB_STATEMENT_TIMEOUT_MS (contract "Database trouble"):
// - server side, `statement_timeout` in the startup `options` (both drivers send them;
//   pg-native ignores node-postgres' own `statement_timeout` field): a slow or blocked
//   statement is cancelled by PostgreSQL (SQLSTATE 57014), the answer is 503 and the
//   connection, still sound, goes back to the pool;
// - client side, node-postgres' `query_timeout` (a timer in the client, the same code in
//   the JS and the native client) STATEMENT_GRACE_MS later: a database that does not
//   answer at all (backend SIGSTOPped, network black hole) cannot cancel anything, so the
//   client gives up, the answer is 503 and the connection is destroyed (release(err)).
// The grace lets the server's clean cancel win whenever the server is alive; both come
// within DB_STATEMENT_TIMEOUT_MS + 1 s.

const pg = require('pg')
const { pgConfig } = require('./bindings')
const { databaseUnavailable } = require('./http-error')
const { log, logError, throttledLog } = require('./log')

// Exactly the statement in results-schema.sql (db.test.js checks they stay equal).
const CREATE_ADS_TABLE = `CREATE TABLE IF NOT EXISTS ads (
  id         bigserial PRIMARY KEY,
  title      text        NOT NULL,
  body       text        NOT NULL DEFAULT '',
  price      numeric(12,2) NOT NULL DEFAULT 0,
  contact    text        NOT NULL DEFAULT '',
  created_at timestamptz NOT NULL DEFAULT now()
);`

// Two apps or workers creating the table at once: one of them sees one of these.
const ALREADY_CREATED = new Set(['42P07', '23505'])
// query_canceled: statement_timeout fired (or an operator cancelled the statement).
const QUERY_CANCELED = '57014'
/** The client-side query_timeout is this much later than the server's statement_timeout. */
const STATEMENT_GRACE_MS = 500
// The wait for a connection (DB_POOL_TIMEOUT_MS) is connectWithin's timer, not pg-pool's
// connectionTimeoutMillis: on timeout pg-pool ends a client that is still connecting, and
// pg-native cannot take that (pq.finish() while libpq connects in another thread; when the
// connect then succeeds, the process dies on an assertion "Must be connected to start
// reader" — seen with a frozen postmaster resumed). The connect attempt itself is bounded by
// the driver, with its own connectionTimeoutMillis (libpq connect_timeout, whole seconds):
// at least 2 s, libpq's minimum, because below 1000 ms node-postgres would pass 0, "no limit",
// and a native connect to a server that never answers would block a libuv thread for ever.
const DRIVER_MIN_CONNECT_TIMEOUT_MS = 2000

/** The native driver when pg-native loads (and native), else the JS one: { driver, name, reason }. */
function loadDriver(native = true) {
  if (!native) return { driver: pg, name: 'javascript', reason: 'asked for' }
  try {
    const native = pg.native
    if (native) return { driver: native, name: 'native (pg-native/libpq)' }
    return { driver: pg, name: 'javascript', reason: 'pg-native is not installed' }
  } catch (err) {
    return { driver: pg, name: 'javascript', reason: `pg-native failed to load: ${err.message}` }
  }
}

/**
 * Whether err means the connection or server is gone rather than a bad statement:
 * SQLSTATE classes 08 (connection exception), 57P (shutdown) and 53300 (too many
 * connections); errors without a SQLSTATE come from the socket or libpq.
 */
function isConnectionError(err) {
  if (!(err instanceof Error)) return false
  if (err instanceof TypeError || err instanceof RangeError || err instanceof ReferenceError) return false
  const code = err.code
  if (typeof code === 'string' && code.length === 5 && !code.startsWith('E')) {
    return code.startsWith('08') || code.startsWith('57P') || code === '53300'
  }
  return true
}

/** Whether err is the server cancelling the statement (statement_timeout): the connection is sound. */
function isStatementCancelled(err) {
  return err instanceof Error && err.code === QUERY_CANCELED
}

/** The error a request sees for a failed statement: 503 for trouble with the database, else err. */
function statementError(err) {
  return isConnectionError(err) || isStatementCancelled(err) ? databaseUnavailable(err) : err
}

/**
 * pool.connect(), rejected after timeoutMs (DB_POOL_TIMEOUT_MS) whether the request waits for
 * a new connection or in the queue of a full pool, even when the server accepts but never
 * answers (postmaster SIGSTOPped). A client that arrives late goes back to the pool. With an
 * idle client there is nothing to wait for, and no timer is made (the hot path).
 */
function connectWithin(pool, timeoutMs) {
  if (pool.idleCount > 0) return pool.connect()
  return new Promise((resolve, reject) => {
    let late = false
    const timer = setTimeout(() => {
      late = true
      reject(new Error('timeout exceeded when trying to connect'))
    }, timeoutMs)
    pool.connect().then(
      (client) => {
        clearTimeout(timer)
        if (late) client.release()
        else resolve(client)
      },
      (err) => {
        clearTimeout(timer)
        if (!late) reject(err)
      },
    )
  })
}

function elapsedUs(fromNs) {
  return Number(process.hrtime.bigint() - fromNs) / 1000
}

/**
 * The app database of config (loadConfig). logDriver: log which driver runs; native: false
 * for the pure-JS driver (tests run both).
 */
function createAppDb(config, { logDriver = true, native = true } = {}) {
  const { driver, name, reason } = loadDriver(native)
  if (logDriver) log(`database driver: ${name}${reason ? ` (${reason})` : ''}`)
  const driverConnectTimeoutMs = Math.max(config.dbPoolTimeoutMs, DRIVER_MIN_CONNECT_TIMEOUT_MS)
  const Client = class extends driver.Client {
    constructor(options) {
      // pg-pool keeps the password non-enumerable: a spread alone would drop it. pg-pool
      // itself gets no connectionTimeoutMillis (see DRIVER_MIN_CONNECT_TIMEOUT_MS).
      super({ ...options, password: options.password, connectionTimeoutMillis: driverConnectTimeoutMs })
    }
  }
  const pool = new driver.Pool({
    // TLS as the binding asks, in the driver's own terms (libpq sslmode or tls options).
    ...pgConfig(config.db, { native: driver !== pg }),
    Client,
    max: config.dbPoolSize,
    idleTimeoutMillis: 0, // keep connections between rounds, like HikariCP's fixed pool
    query_timeout: config.dbStatementTimeoutMs + STATEMENT_GRACE_MS,
    // client_min_messages: no NOTICE from CREATE TABLE IF NOT EXISTS on stderr.
    options: `-c client_min_messages=warning -c statement_timeout=${config.dbStatementTimeoutMs}`,
  })
  const logIdleError = throttledLog(1000)
  pool.on('error', (err) => logIdleError(`idle database connection failed: ${err.message}`))

  let tableReady = false
  let creating = null

  /** Create `ads` if missing; on failure the next request tries again. */
  function ensureTable() {
    if (tableReady) return Promise.resolve()
    if (creating === null) {
      creating = connectWithin(pool, config.dbPoolTimeoutMs)
        .then((client) =>
          client.query(CREATE_ADS_TABLE).then(
            () => client.release(),
            (err) => {
              client.release(err)
              throw err
            },
          ),
        )
        .catch((err) => {
          if (!ALREADY_CREATED.has(err.code)) throw err
        })
        .then(() => {
          tableReady = true
        })
        .finally(() => {
          creating = null
        })
    }
    return creating.catch((err) => {
      throw statementError(err)
    })
  }

  /** Run one statement (pg query config) for the request ctx, adding to its pool wait and DB time. */
  async function query(ctx, statement) {
    if (!tableReady) await ensureTable()
    const t0 = process.hrtime.bigint()
    let client
    try {
      client = await connectWithin(pool, config.dbPoolTimeoutMs)
    } catch (err) {
      ctx.poolWaitUs += elapsedUs(t0)
      throw databaseUnavailable(err)
    }
    const t1 = process.hrtime.bigint()
    ctx.poolWaitUs += Number(t1 - t0) / 1000
    try {
      const result = await client.query(statement)
      ctx.dbUs += elapsedUs(t1)
      client.release()
      return result
    } catch (err) {
      ctx.dbUs += elapsedUs(t1)
      // A broken or timed-out connection leaves the pool; after a server-side cancel it is sound.
      client.release(isConnectionError(err) ? err : undefined)
      throw statementError(err)
    }
  }

  function startUp() {
    ensureTable().then(
      () => log('ads table ready'),
      (err) => logError(`database not ready at start (${(err.cause || err).message}); will retry on first use`),
    )
  }

  return { query, ensureTable, startUp, end: () => pool.end(), driverName: name }
}

module.exports = { createAppDb, isConnectionError, statementError, CREATE_ADS_TABLE, STATEMENT_GRACE_MS }
