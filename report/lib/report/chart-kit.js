// chart-kit.js — what every chart of the report shares, and the rules they keep:
// - a mean is drawn only with its 95 % CI: groups with fewer than MIN_ROUNDS_DRAWN rounds
//   have none and are left to the tables; the mean is a point mark named `mean`, its CI a
//   rule named `mean_ci` (`mean_cix` for a CI along x), so the SVG says which is which;
// - at most MAX_SERIES lines a panel: more are split into panels (panelize);
// - one metric per axis: every layer on an axis carries the same title (Vega-Lite joins
//   different ones into one "A, B" title);
// - no label cut short: no label or title limits (Vega ends a cut one with "…").
'use strict';

const SCHEMA = 'https://vega.github.io/schema/vega-lite/v6.json';
const MAX_SERIES = 6;
const MIN_ROUNDS_DRAWN = 2;
const num = (x) => (x === null || x === undefined || !Number.isFinite(x) ? null : x);
// Lower interval ends drawn no lower than 0: every charted quantity is non-negative (the
// tables and CSV keep the interval as computed).
const low = (x) => (num(x) === null ? null : Math.max(0, x));

// Quantitative axes: plain numbers with trailing zeros trimmed (Vega's default takes its
// precision from the tick step, 0 with one load step: the axis read 16.000000). No limits
// on labels and titles.
const NO_LIMIT = { labelLimit: 0, titleLimit: 0 };
const CHART_CONFIG = { axisQuantitative: { format: ',~r' }, axis: NO_LIMIT, legend: NO_LIMIT, header: NO_LIMIT, title: { limit: 0, subtitleLimit: 0 } };

/** A mean with its CI: the statistics of a group's metric, or null when it has no CI. */
function meanCi(s) {
  if (!s || s.n < MIN_ROUNDS_DRAWN || num(s.mean) === null || num(s.ciHigh) === null) return null;
  return { mean: s.mean, lo: low(s.ciLow), hi: s.ciHigh, n: s.n };
}

/** One row per group whose `metric` has a CI: pick(g) plus series, instances, mean, lo, hi, n. */
function rowsOf(groups, metric, pick) {
  return groups.filter((g) => g.kind === 'rep').map((g) => ({ g, m: meanCi(g.stats[metric]) })).filter((x) => x.m)
    .map(({ g, m }) => ({ ...pick(g), app: g.app, series: g.series, instances: g.app_instances, ...m }));
}

/**
 * Lines (points connected in x order), the means on them and their CI rules. y: the mean's
 * field and title, its CI in `lo`/`hi` (or yLo/yHi). enc: x, color and the like, on every layer.
 */
function meanLayers(enc, y, { yLo = 'lo', yHi = 'hi', xCi = null } = {}) {
  const yEnc = { field: y.field, type: 'quantitative', title: y.title, ...(y.scale ? { scale: y.scale } : {}) };
  const layers = [
    { name: 'mean_line', mark: { type: 'line' }, encoding: { ...enc, y: yEnc } },
    { name: 'mean', mark: { type: 'point', filled: true }, encoding: { ...enc, y: yEnc } },
    { name: 'mean_ci', mark: { type: 'rule' }, encoding: { ...enc, y: { ...yEnc, field: yLo }, y2: { field: yHi } } },
  ];
  if (xCi) layers.push({ name: 'mean_cix', mark: { type: 'rule' }, encoding: { ...enc, x: { ...enc.x, field: xCi.lo }, x2: { field: xCi.hi }, y: yEnc } });
  return layers;
}

/**
 * Split rows into panels of at most MAX_SERIES lines (lineOf(row) names a row's line): first
 * one panel per app, then chunks of an app's lines. Rows get `panel`; one panel: unchanged.
 */
function panelize(rows, lineOf) {
  const lines = [...new Set(rows.map(lineOf))].sort();
  if (lines.length <= MAX_SERIES) return rows;
  const panelOf = new Map();
  for (const app of [...new Set(rows.map((r) => r.app))].sort()) {
    const mine = [...new Set(rows.filter((r) => r.app === app).map(lineOf))].sort();
    const chunks = Math.ceil(mine.length / MAX_SERIES);
    mine.forEach((l, i) => panelOf.set(l, chunks > 1 ? `${app} (${Math.floor(i / MAX_SERIES) + 1} of ${chunks})` : app));
  }
  return rows.map((r) => ({ ...r, panel: panelOf.get(lineOf(r)) }));
}

/** A chart: one panel, or a facet by `panel` when the rows carry one. */
function base(title, description, values, layers, extra = {}) {
  const head = { $schema: SCHEMA, title: { text: title, subtitle: description }, data: { values } };
  if (!values.some((v) => v.panel)) return { ...head, width: 420, height: 260, layer: layers, ...extra };
  return { ...head, facet: { field: 'panel', type: 'nominal', title: null }, columns: 2,
    spec: { width: 300, height: 220, layer: layers }, ...extra };
}

module.exports = { SCHEMA, MAX_SERIES, MIN_ROUNDS_DRAWN, CHART_CONFIG, num, low, meanCi, rowsOf, meanLayers, panelize, base };
