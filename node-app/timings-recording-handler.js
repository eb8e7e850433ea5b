'use strict';
// timings-recording-handler.js — POST /timings/recording?enabled=on|off: switch recording.

const { parseQuery } = require('./form-parser');
const { validateEnabled } = require('./validation');
const { send } = require('./reply');
const { unwrap } = require('./timings-flusher');

function timingsRecordingHandler(timings) {
  return async function timingsRecording(req, res, ctx) {
    const on = validateEnabled(parseQuery(ctx.query));
    unwrap(await timings.run('recording', on));
    send(res, ctx, 200, on ? 'recording on\n' : 'recording off\n');
  };
}

module.exports = { timingsRecordingHandler };
