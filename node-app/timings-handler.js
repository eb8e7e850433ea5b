'use strict';
// timings-handler.js — GET /timings: the buffer's state (recording, count, dropped, capacity).
// The /timings* requests are not recorded (contract/README.md "Timing state").

const { send } = require('./reply');
const { unwrap } = require('./timings-flusher');

/** The handler of GET /timings over a timings service (timings-flusher.js or cluster-timings.js). */
function timingsHandler(timings) {
  return async function timingsState(req, res, ctx) {
    const s = unwrap(await timings.run('state'));
    send(res, ctx, 200, `recording ${s.recording ? 'on' : 'off'}\ncount ${s.count}\ndropped ${s.dropped}\ncapacity ${s.capacity}\n`);
  };
}

module.exports = { timingsHandler };
