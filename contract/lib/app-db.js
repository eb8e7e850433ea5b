// app-db.js — arrange the app database directly (superuser URL), so paging, the ad format and
// the cross-app byte identity can be checked against exactly known rows.
'use strict';

const { Client } = require('pg');

const EMOJI = '\u{1F600}';

/**
 * The fixture: ids 1..25, created_at fixed and given in a +02 zone (the apps must show
 * UTC), one ad with an empty body, one with CRLF, one emoji title, a created_at with
 * microseconds. Ids are inserted explicitly; the sequence continues after the last one.
 */
function fixtureAds(count = 25) {
  const ads = [];
  for (let id = 1; id <= count; id += 1) {
    ads.push({
      id,
      title: `Ad number ${id}`,
      body: `Body of ad ${id}.\nSecond line.`,
      price: (id * 12.5).toFixed(2),
      contact: `seller${id}@example.com`,
      createdAt: `2026-11-21 15:${String(id).padStart(2, '0')}:01.123+02`,
    });
  }
  Object.assign(ads[0], { title: 'Bike for sale', body: 'Almost new.\nCollect in person.', price: '120.00', contact: 'anna@example.com', createdAt: '2026-11-21 15:17:01.123+02' });
  Object.assign(ads[1], { body: '', contact: '', price: '0.00' });
  Object.assign(ads[2], { body: 'line one\r\nline two\r\n', createdAt: '2026-01-02 03:04:05.678999+00' });
  Object.assign(ads[3], { title: `${EMOJI} emoji ${EMOJI}`, price: '1000000.00' });
  return ads;
}

async function withClient(url, fn) {
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

/** Replace every ad by `ads` (ids kept) and point the id sequence after them. */
async function arrangeAds(url, ads) {
  await withClient(url, async (c) => {
    await c.query('TRUNCATE ads RESTART IDENTITY');
    for (const a of ads) {
      await c.query(
        'INSERT INTO ads (id, title, body, price, contact, created_at) VALUES ($1, $2, $3, $4, $5, $6)',
        [a.id, a.title, a.body, a.price, a.contact, a.createdAt],
      );
    }
    await c.query("SELECT setval(pg_get_serial_sequence('ads', 'id'), (SELECT coalesce(max(id), 0) + 1 FROM ads), false)");
  });
}

/** How PostgreSQL itself shows ad `id` (the contract's price and created formats). */
async function shownAd(url, id) {
  return withClient(url, async (c) => {
    const r = await c.query(
      `SELECT id::text AS id, title, body, price::text AS price, contact,
              to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS created
         FROM ads WHERE id = $1`, [id]);
    return r.rows[0];
  });
}

module.exports = { fixtureAds, withClient, arrangeAds, shownAd };
