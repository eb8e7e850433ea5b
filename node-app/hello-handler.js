'use strict';
// hello-handler.js — GET /hello: the study's Hello World control, no database, so a
// measurement of the router or a TLS proxy in front of it is not one of the database.

const { send } = require('./reply');
const { ROUTE_HELLO } = require('./timing-buffer');

function helloHandler() {
  return function hello(req, res, ctx) {
    ctx.route = ROUTE_HELLO;
    send(res, ctx, 200, 'Hello World\n');
  };
}

module.exports = { helloHandler };
