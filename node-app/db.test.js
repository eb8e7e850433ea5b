'use strict'
// db.test.js — the ads table statement stays the one of results-schema.sql; which errors
// count as "database unavailable".

const test = require('node:test')
const assert = require('node:assert/strict')
const fs = require('node:fs')
const path = require('node:path')
const { CREATE_ADS_TABLE, isConnectionError } = require('./db')

test('CREATE_ADS_TABLE is exactly the statement in results-schema.sql', () => {
  const schema = fs.readFileSync(path.join(__dirname, '..', 'results-schema.sql'), 'utf8')
  assert.ok(schema.includes(CREATE_ADS_TABLE), 'results-schema.sql no longer contains the statement of db.js')
})

test('isConnectionError', () => {
  const withCode = (code, message = 'x') => Object.assign(new Error(message), { code })
  const down = [
    withCode('ECONNREFUSED'),
    withCode('ECONNRESET'),
    withCode('EPIPE'),
    withCode('08006'),
    withCode('08001'),
    withCode('57P01'),
    withCode('57P03'),
    withCode('53300'),
    new Error('timeout exceeded when trying to connect'),
    new Error('server closed the connection unexpectedly'),
    new Error('Connection terminated unexpectedly'),
  ]
  const notDown = [withCode('42P01'), withCode('23505'), withCode('22P02'), new TypeError('bug'), 'a string']
  for (const e of down) assert.equal(isConnectionError(e), true, `${e.code} ${e.message}`)
  for (const e of notDown) assert.equal(isConnectionError(e), false, `${e.code} ${e.message ?? e}`)
})
