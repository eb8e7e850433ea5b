// render.js — write the report: index.html (self-contained: the Vega, Vega-Lite and
// Vega-Embed bundles inlined, no network), charts/*.svg rendered in Node by Vega's
// View.toSVG(), and csv/*.csv of every table.
'use strict';
const fs = require('node:fs');
const path = require('node:path');
const { buildCharts } = require('./charts.js');
const { csvFiles } = require('./tables.js');
const { htmlPage } = require('./html.js');

const NODE_MODULES = path.resolve(__dirname, '../../node_modules');
// The browser bundles (package `exports` hide them from require.resolve, so by path).
const BUNDLES = ['vega/build/vega.min.js', 'vega-lite/build/vega-lite.min.js', 'vega-embed/build/vega-embed.min.js'];

/** The three bundles, safe to put inside <script> elements. */
function inlineBundles() {
  return BUNDLES.map((b) => fs.readFileSync(path.join(NODE_MODULES, b), 'utf8').replace(/<\/script/gi, '<\\/script'));
}

// vega and vega-lite are ES modules only: imported here, where a chart is drawn.
async function chartSvg(spec) {
  const [vega, { compile }] = await Promise.all([import('vega'), import('vega-lite')]);
  const view = new vega.View(vega.parse(compile(spec).spec), { renderer: 'none' });
  const svg = await view.toSVG();
  view.finalize();
  return svg;
}

/** Render everything into outDir; returns the written file paths. */
async function writeReport(outDir, analysis, data, meta) {
  fs.mkdirSync(path.join(outDir, 'charts'), { recursive: true });
  fs.mkdirSync(path.join(outDir, 'csv'), { recursive: true });
  const written = [];
  const charts = buildCharts(analysis);
  for (const c of charts) {
    const f = path.join(outDir, 'charts', `${c.name}.svg`);
    fs.writeFileSync(f, await chartSvg(c.spec));
    written.push(f);
  }
  for (const [name, text] of Object.entries(csvFiles(analysis, data))) {
    const f = path.join(outDir, 'csv', `${name}.csv`);
    fs.writeFileSync(f, text);
    written.push(f);
  }
  const html = path.join(outDir, 'index.html');
  fs.writeFileSync(html, htmlPage(analysis, charts, meta, inlineBundles()));
  written.push(html);
  return written;
}

module.exports = { inlineBundles, chartSvg, writeReport };
