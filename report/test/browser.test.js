// The report opens in headless Chromium (Debian's, driven by playwright-core) with no
// console errors and no network requests, and its charts are drawn: the page and the
// first chart are not blank (non-white pixels of the PNG screenshots).
'use strict';
const assert = require('node:assert/strict');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { after, before, test } = require('node:test');
const { CHROMIUM, inspectPage } = require('./helpers/browser.js');
const { runScript } = require('./helpers/cli.js');
const { stopOwnCluster, testDatabase } = require('./helpers/pg.js');
const { insertExperiment } = require('./helpers/synthetic.js');

let db;
let dir;

before(async () => {
  db = await testDatabase('browser');
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cfscale-report-browser-'));
  await insertExperiment(db.client, 'browser');
});
after(async () => {
  await db.drop();
  stopOwnCluster();
  fs.rmSync(dir, { recursive: true, force: true });
});

test('the report renders in headless Chromium without console errors', async () => {
  assert.ok(fs.existsSync(CHROMIUM), `${CHROMIUM} missing: run scripts/setup.sh --with-browser`);
  const r = runScript('report.sh', ['--experiment', 'browser', '--out', dir], { CFSCALE_RESULTS_URL: db.url });
  assert.equal(r.code, 0, r.stderr);
  const page = await inspectPage(path.join(dir, 'index.html'));
  assert.deepEqual(page.errors, [], 'console errors');
  assert.deepEqual(page.requests, [], 'network requests');
  // The 10 figures (with Fig. 3.1 from the 2 and 4 loadgen steps and Fig. 7.5/7.6 from the
  // lines crossing 100 % CPU; no capacity search) and the 4 per-round series.
  assert.equal(page.chartsRendered, '14');
  assert.equal(page.svgCount, 14);
  assert.ok(page.pixels > 20_000, `page has ${page.pixels} non-white pixels`);
  assert.ok(page.chartPixels > 2_000, `first chart has ${page.chartPixels} non-white pixels`);
});

test('nonWhitePixels counts what is drawn', async () => {
  const { PNG } = require('pngjs');
  const { nonWhitePixels } = require('./helpers/browser.js');
  const png = new PNG({ width: 10, height: 10 });
  png.data.fill(255);
  assert.equal(nonWhitePixels(PNG.sync.write(png)), 0, 'blank');
  for (let i = 0; i < 7; i++) png.data[i * 4] = 0;
  assert.equal(nonWhitePixels(PNG.sync.write(png)), 7);
});
