// svg-rules.js (test helper) — the rules every chart of the results page keeps, checked on
// the SVG Vega wrote (chart-kit.js names its marks so the SVG says what each is):
// - no text cut short ("…");
// - one metric per axis: an axis title joins no two titles ("A (x), B (y)");
// - every mark is named for what it draws: a mean, its CI, a raw sample, a reference line;
// - a CI on every plotted mean: as many `mean_ci` rules as `mean` points (`mean_cix` none or
//   as many), as many `readoff_ci` as `readoff`;
// - at most 6 series a panel (distinct stroke and dash of the lines of a facet cell);
// - no untrusted round drawn: a "round N" panel only for a trusted round.
// chartProblems(svg, {trusted}) → a list of problems, [] when it keeps them all.
'use strict';

const MAX_SERIES = 6;
const NAMED = /^(mean|mean_line|mean_ci|mean_cix|readoff|readoff_ci|sample|sample_peak|reference)$/;

const unescape = (s) => s.replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&quot;/g, '"').replace(/&#39;/g, '\'').replace(/&amp;/g, '&');
const texts = (svg) => [...svg.matchAll(/<text[^>]*>([^<]*)<\/text>/g)].map((m) => unescape(m[1]));

/** The leaf shapes (path, line) of every mark group named `name`_marks. */
function shapes(svg, name) {
  let n = 0;
  for (const m of svg.matchAll(new RegExp(`<g class="mark-\\w+ role-mark ${name}_marks"[^>]*>(.*?)</g>`, 'gs'))) n += (m[1].match(/<(path|line)\b/g) || []).length;
  return n;
}

function axisTitleProblems(svg) {
  const out = [];
  for (const m of svg.matchAll(/<g class="mark-text role-axis-title"[^>]*>(.*?)<\/g>/gs)) {
    for (const t of texts(m[1])) if (/,/.test(t.replace(/\([^)]*\)/g, ''))) out.push(`axis title joins two metrics: "${t}"`);
  }
  return out;
}

function seriesProblems(svg) {
  const out = [];
  // A line mark's series sit in one path group per facet cell.
  const cells = svg.split(/class="mark-group role-scope \w+_pathgroup"/).slice(1);
  cells.forEach((cell, i) => {
    const keys = new Set();
    for (const m of cell.matchAll(/<g class="mark-line role-mark [^"]*"[^>]*>(.*?)<\/g>/gs)) {
      for (const p of m[1].matchAll(/<path\b([^>]*)>/g)) keys.add(`${/stroke="([^"]*)"/.exec(p[1])?.[1]}|${/stroke-dasharray="([^"]*)"/.exec(p[1])?.[1] ?? ''}`);
    }
    if (keys.size > MAX_SERIES) out.push(`${keys.size} series in panel ${i}`);
  });
  return out;
}

function chartProblems(svg, { trusted = null } = {}) {
  const out = [];
  for (const t of texts(svg)) if (t.includes('…')) out.push(`text cut short: "${t}"`);
  out.push(...axisTitleProblems(svg));
  for (const m of svg.matchAll(/role-mark ([\w-]+)"/g)) {
    if (!NAMED.test(m[1].replace(/_marks$/, '')) || !m[1].endsWith('_marks')) out.push(`a mark not named for what it draws: ${m[1]}`);
  }
  for (const [name, ci] of [['mean', 'mean_ci'], ['readoff', 'readoff_ci']]) {
    if (shapes(svg, name) !== shapes(svg, ci)) out.push(`${shapes(svg, name)} ${name} but ${shapes(svg, ci)} ${ci}`);
  }
  const cix = shapes(svg, 'mean_cix');
  if (cix && cix !== shapes(svg, 'mean')) out.push(`${shapes(svg, 'mean')} mean but ${cix} mean_cix`);
  out.push(...seriesProblems(svg));
  if (trusted) {
    for (const t of texts(svg)) {
      const id = /^round (\d+)$/.exec(t)?.[1];
      if (id && !trusted.has(Number(id))) out.push(`untrusted round ${id} drawn`);
    }
  }
  return [...new Set(out)];
}

module.exports = { chartProblems, texts, shapes, MAX_SERIES };
