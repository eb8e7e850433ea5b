'use strict';
// timings-flush-handler.js — POST /timings/flush?round=N: write the buffer to server_timings
// and empty it.

const { parseQuery } = require('./form-parser');
const { validateRound } = require('./validation');
const { send } = require('./reply');
const { unwrap } = require('./timings-flusher');

function timingsFlushHandler(timings) {
  return async function timingsFlush(req, res, ctx) {
    const round = validateRound(parseQuery(ctx.query));
    const { flushed } = unwrap(await timings.run('flush', round));
    send(res, ctx, 200, `flushed ${flushed}\n`);
  };
}

module.exports = { timingsFlushHandler };
