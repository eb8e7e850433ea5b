'use strict';
// get-ad-handler.js — GET /ads/{id}: one ad as the header lines, an empty line and the body text.

const { validateAdId } = require('./validation');
const { HttpError } = require('./http-error');
const { send } = require('./reply');
const { ROUTE_GET_AD } = require('./timing-buffer');

const PREFIX = '/ads/';

function formatAd(ad) {
  return (
    `id: ${ad.id}\ntitle: ${ad.title}\nprice: ${ad.price}\ncontact: ${ad.contact}\n` +
    `created: ${ad.created}\n\n${ad.body}\n`
  );
}

/** The handler of GET /ads/{id} over store (openAdStore). */
function getAdHandler(store) {
  return async function getAd(req, res, ctx) {
    ctx.route = ROUTE_GET_AD;
    const ad = await store.find(ctx, validateAdId(ctx.path.slice(PREFIX.length)));
    if (ad === null) throw new HttpError(404, 'ad not found');
    send(res, ctx, 200, formatAd(ad));
  };
}

module.exports = { getAdHandler, formatAd, PREFIX };
