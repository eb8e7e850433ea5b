// render.js — write the report: index.html (self-contained: the Vega, Vega-Lite and
// Vega-Embed bundles inlined, no network), charts/*.svg rendered in Node by Vega's
// View.toSVG(), and csv/*.csv of every table.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import * as vega from 'vega';
import { compile } from 'vega-lite';
import { buildCharts } from './charts.js';
import { csvFiles } from './tables.js';
import { htmlPage } from './html.js';

const NODE_MODULES = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../node_modules');
// The browser bundles (package `exports` hide them from require.resolve, so by path).
const BUNDLES = ['vega/build/vega.min.js', 'vega-lite/build/vega-lite.min.js', 'vega-embed/build/vega-embed.min.js'];

/** The three bundles, safe to put inside <script> elements. */
export function inlineBundles() {
  return BUNDLES.map((b) => fs.readFileSync(path.join(NODE_MODULES, b), 'utf8').replace(/<\/script/gi, '<\\/script'));
}

export async function chartSvg(spec) {
  const view = new vega.View(vega.parse(compile(spec).spec), { renderer: 'none' });
  const svg = await view.toSVG();
  view.finalize();
  return svg;
}

/** Render everything into outDir; returns the written file paths. */
export async function writeReport(outDir, analysis, data, meta) {
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
