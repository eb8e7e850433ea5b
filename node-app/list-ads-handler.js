'use strict';
// list-ads-handler.js — GET /ads?offset=&limit=: newest first, `{id}\t{price}\t{title}` per
// line, X-Total-Count.

const { parseQuery } = require('./form-parser');
const { validatePage } = require('./validation');
const { send } = require('./reply');
const { ROUTE_LIST_ADS } = require('./timing-buffer');

/** The handler of GET /ads over store (openAdStore). */
function listAdsHandler(store) {
  return async function listAds(req, res, ctx) {
    ctx.route = ROUTE_LIST_ADS;
    const { limit, offset } = validatePage(parseQuery(ctx.query));
    const { total, lines } = await store.page(ctx, offset, limit);
    let body = '';
    for (const l of lines) body += `${l.id}\t${l.price}\t${l.title}\n`;
    send(res, ctx, 200, body, { 'X-Total-Count': total });
  };
}

module.exports = { listAdsHandler };
