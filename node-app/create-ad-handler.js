'use strict'
// create-ad-handler.js — GET /health, GET /hello (no database: the study's Hello World control,
// so a measurement of the router or a proxy is not one of the database) and the three ad routes. Parameterized statements only;
// PostgreSQL formats price (price::text) and created (to_char, UTC, ms) so that node-app
// and java-app cannot differ (contract/README.md "One ad").

const { readBody } = require('./body-reader')
const { parseAdForm, parseQuery, isFormContentType } = require('./form-parser')
const { validateAd, validateAdId, validatePage } = require('./validation')
const { HttpError } = require('./http-error')
const { send } = require('./reply')
const { ROUTE_HEALTH, ROUTE_HELLO, ROUTE_CREATE_AD, ROUTE_GET_AD, ROUTE_LIST_ADS } = require('./timing-buffer')

const INSERT_AD = 'INSERT INTO ads (title, body, price, contact) VALUES ($1, $2, $3, $4) RETURNING id'
const SELECT_AD =
  'SELECT id, title, price::text AS price, contact, ' +
  `to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS created, body ` +
  'FROM ads WHERE id = $1'
// The total and the page in one round trip; the LEFT JOIN keeps the total on an empty page.
const SELECT_PAGE =
  'SELECT t.total, p.id, p.price, p.title FROM (SELECT count(*) AS total FROM ads) t ' +
  'LEFT JOIN LATERAL (SELECT id, price::text AS price, title FROM ads ORDER BY id DESC LIMIT $1 OFFSET $2) p ON true'

const ADS_PREFIX = '/ads/'

function formatAd(ad) {
  return (
    `id: ${ad.id}\ntitle: ${ad.title}\nprice: ${ad.price}\ncontact: ${ad.contact}\n` +
    `created: ${ad.created}\n\n${ad.body}\n`
  )
}

/** Handlers for the ads routes over db (createAppDb). */
function createAdsHandlers(db) {
  function health(req, res, ctx) {
    ctx.route = ROUTE_HEALTH
    send(res, ctx, 200, 'ok\n')
  }

  function hello(req, res, ctx) {
    ctx.route = ROUTE_HELLO
    send(res, ctx, 200, 'Hello World\n')
  }

  async function createAd(req, res, ctx) {
    ctx.route = ROUTE_CREATE_AD
    const body = await readBody(req)
    if (!isFormContentType(req.headers['content-type'])) {
      throw new HttpError(415, 'content type must be application/x-www-form-urlencoded')
    }
    const ad = validateAd(parseAdForm(body))
    const { rows } = await db.query(ctx, {
      name: 'ads-insert',
      text: INSERT_AD,
      values: [ad.title, ad.body, ad.price, ad.contact],
    })
    const id = rows[0].id
    send(res, ctx, 201, `${id}\n`, { Location: `${ADS_PREFIX}${id}` })
  }

  async function getAd(req, res, ctx) {
    ctx.route = ROUTE_GET_AD
    const id = validateAdId(ctx.path.slice(ADS_PREFIX.length))
    const { rows } = await db.query(ctx, { name: 'ads-get', text: SELECT_AD, values: [id] })
    if (rows.length === 0) throw new HttpError(404, 'ad not found')
    send(res, ctx, 200, formatAd(rows[0]))
  }

  async function listAds(req, res, ctx) {
    ctx.route = ROUTE_LIST_ADS
    const { limit, offset } = validatePage(parseQuery(ctx.query))
    const { rows } = await db.query(ctx, { name: 'ads-page', text: SELECT_PAGE, values: [limit, offset] })
    let page = ''
    for (const r of rows) {
      if (r.id !== null) page += `${r.id}\t${r.price}\t${r.title}\n`
    }
    send(res, ctx, 200, page, { 'X-Total-Count': rows[0].total })
  }

  return { health, hello, createAd, getAd, listAds }
}

module.exports = { createAdsHandlers, formatAd }
