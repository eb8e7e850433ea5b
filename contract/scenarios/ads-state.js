// ads-state.js — stateful ad scenarios: exact ad text and pages over rows arranged in the
// database (CONTRACT_DB_URL), newest-first paging and X-Total-Count. Without a database
// URL only the scenario that arranges its state through the API runs.
'use strict';

const { describe, test } = require('node:test');
const { send } = require('../lib/raw-http');
const { checkResponse, one, show } = require('../lib/check');
const { adText, report } = require('../lib/runner');
const { fixtureAds, arrangeAds, shownAd, withClient } = require('../lib/app-db');

const FORM = 'application/x-www-form-urlencoded';
const README_EXAMPLE = 'id: 1\ntitle: Bike for sale\nprice: 120.00\ncontact: anna@example.com\n'
  + 'created: 2026-11-21T13:17:01.123Z\n\nAlmost new.\nCollect in person.\n';

/** The lines of GET /ads for the ads of ids (fixtureAds' ads, id k at k - 1). */
const pageOf = (ads, ids) => ids.map((id) => {
  const a = ads[id - 1];
  return `${a.id}\t${a.price}\t${a.title}\n`;
}).join('');
/** from, from - 1, ..., to. */
const range = (from, to) => Array.from({ length: from - to + 1 }, (_, k) => from - k);

/** Two ads posted through the API head the first page, and the total grows by two. */
async function postedAdsFirst(cfg) {
  const problems = [];
  const before = await send(cfg.baseUrl, { path: '/ads?limit=1' });
  const ids = [];
  for (const title of ['first of two', 'second of two']) {
    const res = await send(cfg.baseUrl, { method: 'POST', path: '/ads', headers: { 'Content-Type': FORM }, body: `title=${encodeURIComponent(title)}&price=3` });
    if (res.status !== 201) problems.push(`POST /ads: want 201, got ${res.status ?? res.error}`);
    ids.push(res.body?.toString().trim());
  }
  const res = await send(cfg.baseUrl, { path: '/ads?limit=2' });
  const want = `${ids[1]}\t3.00\tsecond of two\n${ids[0]}\t3.00\tfirst of two\n`;
  if (res.body?.toString() !== want) problems.push(`GET /ads?limit=2: want ${show(want)}, got ${show(res.body ?? res.error)}`);
  const totalBefore = Number(one(before, 'x-total-count'));
  const totalAfter = Number(one(res, 'x-total-count'));
  if (totalAfter !== totalBefore + 2) problems.push(`X-Total-Count: want ${totalBefore + 2} after two posts, got ${totalAfter}`);
  report(problems);
}

/** A missing table is neither "database down" nor a pool timeout: the contract's 500. */
async function internalError(cfg, ads, expectExact) {
  await arrangeAds(cfg.dbUrl, ads);
  const problems = [];
  await withClient(cfg.dbUrl, (c) => c.query('ALTER TABLE ads RENAME TO ads_hidden_by_contract'));
  try {
    const internal = 'internal error\n';
    await expectExact(problems, { path: '/ads/1' }, 500, internal);
    await expectExact(problems, { path: '/ads' }, 500, internal);
    await expectExact(problems, { method: 'POST', path: '/ads', headers: { 'Content-Type': FORM }, body: 'title=x' }, 500, internal);
  } finally {
    await withClient(cfg.dbUrl, (c) => c.query('ALTER TABLE ads_hidden_by_contract RENAME TO ads'));
  }
  await expectExact(problems, { path: '/ads/1' }, 200, README_EXAMPLE);
  report(problems);
}

module.exports = function adsState(cfg) {
  const ctx = { instanceIndex: cfg.instanceIndex };
  const noDb = cfg.dbUrl ? false : 'needs CONTRACT_DB_URL';
  let seq = 0;

  /** GET/POST and check status + exact body; returns the response, pushes problems. */
  async function expectExact(problems, req, status, body, headers) {
    seq += 1;
    const cid = `contract-state-${seq}`;
    const res = await send(cfg.baseUrl, { ...req, headers: { ...(req.headers || {}), 'X-Correlation-ID': cid } });
    const found = checkResponse(res, { status, body, headers }, { ...ctx, cid, wantEcho: true });
    problems.push(...found.map((p) => `${req.method || 'GET'} ${req.path}: ${p}`));
    return res;
  }

  describe('ads in a known database state', () => {
    const ads = fixtureAds(25);

    test('GET /ads/1 is exactly the README example (created shown in UTC)', { skip: noDb }, async () => {
      await arrangeAds(cfg.dbUrl, ads);
      const problems = [];
      await expectExact(problems, { path: '/ads/1' }, 200, README_EXAMPLE);
      report(problems);
    });

    test('every arranged ad is shown exactly as PostgreSQL formats it', { skip: noDb }, async () => {
      await arrangeAds(cfg.dbUrl, ads);
      const problems = [];
      for (const id of [2, 3, 4, 25]) {
        await expectExact(problems, { path: `/ads/${id}` }, 200, adText(await shownAd(cfg.dbUrl, id)));
      }
      await expectExact(problems, { path: '/ads/26' }, 404, 'ad not found\n');
      report(problems);
    });

    test('pages are newest first (by id) with X-Total-Count', { skip: noDb }, async () => {
      await arrangeAds(cfg.dbUrl, ads);
      const problems = [];
      const total = { 'X-Total-Count': '25' };
      await expectExact(problems, { path: '/ads' }, 200, pageOf(ads, range(25, 6)), total);
      await expectExact(problems, { path: '/ads?limit=10&offset=20' }, 200, pageOf(ads, range(5, 1)), total);
      await expectExact(problems, { path: '/ads?offset=3&limit=2' }, 200, pageOf(ads, [22, 21]), total);
      await expectExact(problems, { path: '/ads?limit=100' }, 200, pageOf(ads, range(25, 1)), total);
      await expectExact(problems, { path: '/ads?offset=24&limit=1' }, 200, '1\t120.00\tBike for sale\n', total);
      await expectExact(problems, { path: '/ads?offset=25' }, 200, '', total);
      await expectExact(problems, { path: '/ads?offset=21&limit=100' }, 200, pageOf(ads, [4, 3, 2, 1]), total);
      report(problems);
    });

    test('a deleted ad is 404 and the total follows', { skip: noDb }, async () => {
      await arrangeAds(cfg.dbUrl, ads);
      await withClient(cfg.dbUrl, (c) => c.query('DELETE FROM ads WHERE id = 25'));
      const problems = [];
      await expectExact(problems, { path: '/ads/25' }, 404, 'ad not found\n');
      await expectExact(problems, { path: '/ads?limit=1' }, 200, pageOf(ads, [24]), { 'X-Total-Count': '24' });
      report(problems);
    });

    test('an empty table is an empty page with X-Total-Count 0', { skip: noDb }, async () => {
      await arrangeAds(cfg.dbUrl, []);
      const problems = [];
      await expectExact(problems, { path: '/ads' }, 200, '', { 'X-Total-Count': '0' });
      report(problems);
    });

    test('a posted ad gets the next id and is shown as stored', { skip: noDb }, async () => {
      await arrangeAds(cfg.dbUrl, ads);
      const problems = [];
      const post = { method: 'POST', path: '/ads', headers: { 'Content-Type': FORM }, body: 'title=New+one&price=7.5&body=x%0D%0Ay' };
      await expectExact(problems, post, 201, '26\n', { Location: '/ads/26' });
      await expectExact(problems, { path: '/ads/26' }, 200, adText(await shownAd(cfg.dbUrl, 26)));
      await expectExact(problems, { path: '/ads?limit=2' }, 200, `26\t7.50\tNew one\n${pageOf(ads, [25])}`, { 'X-Total-Count': '26' });
      report(problems);
    });

    test('an unexpected database error is 500 internal error, without SQL or a stack trace', { skip: noDb }, () => internalError(cfg, ads, expectExact));
  });

  test('posted ads come first on the first page (through the API only)', () => postedAdsFirst(cfg));
};
