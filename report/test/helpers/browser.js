// browser.js (test helper) — open a report in headless Debian Chromium through
// playwright-core (no browser download: executablePath), collect console errors and page
// errors, screenshot it and count the non-white pixels of the PNG.
'use strict';
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { chromium } = require('playwright-core');
const { PNG } = require('pngjs');
/* global document -- the page.evaluate callbacks run in the page */

const CHROMIUM = '/usr/bin/chromium';

// The flags of the brief: no sandbox (root), no GPU, no network side-channels.
const ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
  '--disable-background-networking', '--disable-component-update', '--disable-sync'];

function nonWhitePixels(png) {
  const img = PNG.sync.read(png);
  let n = 0;
  for (let i = 0; i < img.data.length; i += 4) {
    if (img.data[i + 3] > 0 && (img.data[i] < 240 || img.data[i + 1] < 240 || img.data[i + 2] < 240)) n++;
  }
  return n;
}

/**
 * Open file://htmlPath; returns {errors, requests (non-file URLs asked for), chartsRendered,
 * svgCount, pixels (whole page), chartPixels (first chart element)}.
 */
async function inspectPage(htmlPath) {
  const userDataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'cfscale-report-chromium-'));
  const context = await chromium.launchPersistentContext(userDataDir, {
    executablePath: CHROMIUM, headless: true, args: ARGS, viewport: { width: 1400, height: 1000 },
  });
  try {
    const page = context.pages()[0] ?? await context.newPage();
    const errors = [];
    const requests = [];
    page.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });
    page.on('pageerror', (e) => errors.push(String(e)));
    page.on('request', (r) => { if (!r.url().startsWith('file:') && !r.url().startsWith('data:')) requests.push(r.url()); });
    await page.goto(`file://${htmlPath}`, { waitUntil: 'load' });
    await page.waitForFunction(() => document.body.dataset.chartsRendered !== undefined, null, { timeout: 30_000 });
    const chartsRendered = await page.evaluate(() => document.body.dataset.chartsRendered);
    const svgCount = await page.evaluate(() => document.querySelectorAll('#charts svg.marks').length);
    const pixels = nonWhitePixels(await page.screenshot({ fullPage: false }));
    const first = await page.$('#charts .chart svg');
    const chartPixels = first ? nonWhitePixels(await first.screenshot()) : 0;
    return { errors, requests, chartsRendered, svgCount, pixels, chartPixels };
  } finally {
    await context.close();
    fs.rmSync(userDataDir, { recursive: true, force: true });
  }
}

module.exports = { nonWhitePixels, inspectPage, CHROMIUM };
