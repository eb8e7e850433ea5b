'use strict'
// timings-handler.js — GET /timings and POST /timings/{flush,clear,recording}
// (contract/README.md "Timing state"). Their own requests are not recorded.

const { parseQuery } = require('./form-parser')
const { validateRound, validateEnabled } = require('./validation')
const { resultsDatabaseUnavailable } = require('./http-error')
const { send } = require('./reply')

/** The answer of a timings operation, or the error it stands for. */
function unwrap(result) {
  if (result.error === 'results-unavailable') throw resultsDatabaseUnavailable()
  if (result.error) throw new Error('timings operation failed (see the log line before)')
  return result
}

/** Handlers over a timings service (timings-service.js or cluster-timings.js). */
function createTimingsHandlers(timings) {
  async function timingsState(req, res, ctx) {
    const s = unwrap(await timings.run('state'))
    const body =
      `recording ${s.recording ? 'on' : 'off'}\ncount ${s.count}\n` + `dropped ${s.dropped}\ncapacity ${s.capacity}\n`
    send(res, ctx, 200, body)
  }

  async function timingsFlush(req, res, ctx) {
    const round = validateRound(parseQuery(ctx.query))
    const { flushed } = unwrap(await timings.run('flush', round))
    send(res, ctx, 200, `flushed ${flushed}\n`)
  }

  async function timingsClear(req, res, ctx) {
    const { cleared } = unwrap(await timings.run('clear'))
    send(res, ctx, 200, `cleared ${cleared}\n`)
  }

  async function timingsRecording(req, res, ctx) {
    const on = validateEnabled(parseQuery(ctx.query))
    unwrap(await timings.run('recording', on))
    send(res, ctx, 200, on ? 'recording on\n' : 'recording off\n')
  }

  return { timingsState, timingsFlush, timingsClear, timingsRecording }
}

module.exports = { createTimingsHandlers }
