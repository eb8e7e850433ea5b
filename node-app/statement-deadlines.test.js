'use strict'
// statement-deadlines.test.js — the sweep timer that bounds statements client-side, with a
// fake client whose answers the test controls (db-timeout.test.js covers real PostgreSQL).
const test = require('node:test')
const assert = require('node:assert/strict')
const { createStatementDeadlines, READ_TIMEOUT_MESSAGE } = require('./statement-deadlines')

/** A client whose query callbacks are held until the test answers them. */
function heldClient() {
  const pending = []
  return {
    pending,
    query(statement, callback) {
      pending.push({ statement, callback })
    },
  }
}

const settle = (promise) => promise.then((value) => ({ value }), (error) => ({ error }))

// The sweep timer is unref'd (in the app the database socket holds the process open); a fake
// client holds nothing, so each test keeps the event loop alive itself.
test.beforeEach((t) => {
  t.keepAlive = setInterval(() => {}, 1000)
})
test.afterEach((t) => clearInterval(t.keepAlive))

test('an answer before the deadline resolves, an error rejects, and neither stays in flight', async () => {
  const deadlines = createStatementDeadlines(1000, { sweepMs: 10 })
  const client = heldClient()
  const ok = settle(deadlines.run(client, 'SELECT 1'))
  const failed = settle(deadlines.run(client, 'SELECT 2'))
  assert.equal(deadlines.inFlight(), 2)
  client.pending[0].callback(null, { rows: [1] })
  const err = Object.assign(new Error('boom'), { code: '42P01' })
  client.pending[1].callback(err)
  assert.deepEqual(await ok, { value: { rows: [1] } })
  assert.deepEqual(await failed, { error: err })
  assert.equal(deadlines.inFlight(), 0)
  deadlines.stop()
})

test('a statement never answered is rejected with node-postgres\' read-timeout error soon after its deadline', async () => {
  const deadlines = createStatementDeadlines(50, { sweepMs: 10 })
  const client = heldClient()
  const started = Date.now()
  const outcome = await settle(deadlines.run(client, 'SELECT pg_sleep(60)'))
  const waited = Date.now() - started
  assert.equal(outcome.error.message, READ_TIMEOUT_MESSAGE)
  assert.equal(outcome.error.code, undefined, 'no SQLSTATE: db.js treats it as connection trouble')
  assert.ok(waited >= 50, `rejected after ${waited} ms, before the 50 ms deadline`)
  assert.equal(deadlines.inFlight(), 0)
  // The driver's late answer is dropped, not delivered twice.
  client.pending[0].callback(null, { rows: [] })
  deadlines.stop()
})

test('only statements past their deadline expire; later ones keep running', async () => {
  const deadlines = createStatementDeadlines(80, { sweepMs: 10 })
  const client = heldClient()
  const first = settle(deadlines.run(client, 'first'))
  await new Promise((resolve) => setTimeout(resolve, 60))
  const second = settle(deadlines.run(client, 'second'))
  assert.equal((await first).error.message, READ_TIMEOUT_MESSAGE)
  assert.equal(deadlines.inFlight(), 1, 'the second statement is still within its deadline')
  client.pending[1].callback(null, 'answered')
  assert.deepEqual(await second, { value: 'answered' })
  deadlines.stop()
})

test('a client that throws at once rejects the statement and leaves nothing in flight', async () => {
  const deadlines = createStatementDeadlines(1000, { sweepMs: 10 })
  const broken = { query() { throw new Error('Client was closed and is not queryable') } }
  const outcome = await settle(deadlines.run(broken, 'SELECT 1'))
  assert.match(outcome.error.message, /not queryable/)
  assert.equal(deadlines.inFlight(), 0)
  deadlines.stop()
})
