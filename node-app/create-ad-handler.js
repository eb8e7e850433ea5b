'use strict';
// create-ad-handler.js — POST /ads: a form-urlencoded ad in, `201 {id}` with Location out.
// Checks in the contract's order: body size (body-reader.js), content type, form decoding,
// then the field rules.

const { readBody } = require('./body-reader');
const { parseAdForm, isFormContentType } = require('./form-parser');
const { validateAd } = require('./validation');
const { HttpError } = require('./http-error');
const { send } = require('./reply');
const { ROUTE_CREATE_AD } = require('./timing-buffer');

/** The handler of POST /ads over store (openAdStore). */
function createAdHandler(store) {
  return async function createAd(req, res, ctx) {
    ctx.route = ROUTE_CREATE_AD;
    const body = await readBody(req);
    if (!isFormContentType(req.headers['content-type'])) {
      throw new HttpError(415, 'content type must be application/x-www-form-urlencoded');
    }
    const id = await store.insert(ctx, validateAd(parseAdForm(body)));
    send(res, ctx, 201, `${id}\n`, { Location: `/ads/${id}` });
  };
}

module.exports = { createAdHandler };
