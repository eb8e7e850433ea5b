'use strict';
// health-handler.js — GET /health: liveness only, never touches the database (CF's http
// health check uses it).

const { send } = require('./reply');
const { ROUTE_HEALTH } = require('./timing-buffer');

function healthHandler() {
  return function health(req, res, ctx) {
    ctx.route = ROUTE_HEALTH;
    send(res, ctx, 200, 'ok\n');
  };
}

module.exports = { healthHandler };
