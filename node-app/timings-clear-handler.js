'use strict';
// timings-clear-handler.js — POST /timings/clear: empty the buffer (and its dropped counter).

const { send } = require('./reply');
const { unwrap } = require('./timings-flusher');

function timingsClearHandler(timings) {
  return async function timingsClear(req, res, ctx) {
    const { cleared } = unwrap(await timings.run('clear'));
    send(res, ctx, 200, `cleared ${cleared}\n`);
  };
}

module.exports = { timingsClearHandler };
