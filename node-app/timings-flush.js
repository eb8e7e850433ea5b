'use strict'
// timings-flush.js — write buffered timings into server_timings (results-schema.sql) with
// COPY FROM STDIN in text format. pg-copy-streams needs the pure-JS pg Client.

const { Readable } = require('node:stream')
const { pipeline } = require('node:stream/promises')
const { from: copyFrom } = require('pg-copy-streams')
const { ROUTE_LABELS } = require('./timing-buffer')

const COPY_SERVER_TIMINGS =
  'COPY server_timings (round_id, app, instance_index, correlation_id, route, status, ' +
  'started_at, handler_us, pool_wait_us, db_us) FROM STDIN'
const ROWS_PER_CHUNK = 1000
const NULL = '\\N'

/** A value escaped for COPY text format (backslash, tab, newline, carriage return). */
function copyText(s) {
  return /[\\\t\n\r]/.test(s) ? s.replace(/[\\\t\n\r]/g, (c) => ({ '\\': '\\\\', '\t': '\\t', '\n': '\\n', '\r': '\\r' })[c]) : s
}

/** Epoch microseconds as an ISO timestamp with microseconds, UTC. */
function isoMicros(epochUs) {
  const whole = Math.floor(epochUs)
  const iso = new Date(Math.floor(whole / 1000)).toISOString() // ...HH:MM:SS.mmmZ
  return iso.slice(0, 23) + String(whole % 1000).padStart(3, '0') + 'Z'
}

/** COPY text lines for buffer records [from, to). */
function copyLines(buffer, from, to, round, app, instanceIndex) {
  const prefix = `${round === null ? NULL : round}\t${copyText(app)}\t${instanceIndex}\t`
  let text = ''
  for (let i = from; i < to; i++) {
    text +=
      prefix +
      `${copyText(buffer.correlationIds[i])}\t${ROUTE_LABELS[buffer.routes[i]]}\t${buffer.statuses[i]}\t` +
      `${isoMicros(buffer.startedUs[i])}\t${Math.round(buffer.handlerUs[i])}\t` +
      `${Math.round(buffer.poolWaitUs[i])}\t${Math.round(buffer.dbUs[i])}\n`
  }
  return text
}

/** COPY buffer records [from, to) over client (a connected pure-JS pg Client). */
async function copyTimings(client, buffer, from, to, { round, app, instanceIndex }) {
  function* chunks() {
    for (let i = from; i < to; i += ROWS_PER_CHUNK) {
      yield copyLines(buffer, i, Math.min(i + ROWS_PER_CHUNK, to), round, app, instanceIndex)
    }
  }
  await pipeline(Readable.from(chunks()), client.query(copyFrom(COPY_SERVER_TIMINGS)))
}

module.exports = { copyTimings, copyLines, isoMicros }
