'use strict'
// statement-deadlines.js — the client-side bound on a statement (db.js: DB_STATEMENT_TIMEOUT_MS
// + STATEMENT_GRACE_MS, for a database that does not answer at all) kept by one sweep timer
// over the statements in flight, instead of node-postgres' `query_timeout`, which arms and
// clears a timer and wraps the callback for every query: that cost node-app 3–6 % of its
// requests/s (bench/apps/throughput.sh, node raw). Here a statement costs a clock read and a
// Set insert and delete.
//
// Every statement gets the same timeout, so the Set, iterated in insertion order, is in
// deadline order: a sweep stops at the first statement not yet due. A due statement is
// rejected with node-postgres' own error ("Query read timeout", no SQLSTATE, so db.js treats
// it as connection trouble and destroys the connection); the driver's late answer, if any,
// is dropped. The sweep runs every SWEEP_MS, so a statement ends at most SWEEP_MS after its
// deadline — inside the contract's DB_STATEMENT_TIMEOUT_MS + 1 s with the 500 ms grace.

const { performance } = require('node:perf_hooks')

const SWEEP_MS = 100
const READ_TIMEOUT_MESSAGE = 'Query read timeout' // node-postgres' query_timeout error

/**
 * Deadlines of timeoutMs for statements run with run(client, statement). The sweep timer
 * starts with the first statement and never holds the process open; stop() ends it.
 */
function createStatementDeadlines(timeoutMs, { sweepMs = SWEEP_MS } = {}) {
  const inFlight = new Set()
  let timer = null

  function sweep() {
    const now = performance.now()
    for (const entry of inFlight) {
      if (entry.deadline > now) break
      inFlight.delete(entry)
      entry.expire()
    }
  }

  /** client.query(statement) as a promise, rejected once its deadline has passed. */
  function run(client, statement) {
    if (timer === null) {
      timer = setInterval(sweep, sweepMs)
      timer.unref()
    }
    return new Promise((resolve, reject) => {
      let settled = false
      const entry = {
        deadline: performance.now() + timeoutMs,
        expire() {
          settled = true
          reject(new Error(READ_TIMEOUT_MESSAGE))
        },
      }
      inFlight.add(entry)
      const done = (err, result) => {
        if (settled) return
        settled = true
        inFlight.delete(entry)
        if (err) reject(err)
        else resolve(result)
      }
      try {
        client.query(statement, done)
      } catch (err) {
        done(err)
      }
    })
  }

  function stop() {
    if (timer !== null) clearInterval(timer)
    timer = null
  }

  return { run, stop, inFlight: () => inFlight.size }
}

module.exports = { createStatementDeadlines, SWEEP_MS, READ_TIMEOUT_MESSAGE }
