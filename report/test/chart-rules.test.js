// chart-rules.test.js — the chart rules (chart-kit.js) and their checker on the SVG
// (helpers/svg-rules.js): the checker finds each broken rule in a chart made to break it,
// and the report's charts keep them on groups that would break them (8 series, long names,
// a group of one round).
'use strict';
const assert = require('node:assert/strict');
const { test } = require('node:test');
const { summarize } = require('../../lib/inference.js');
const { CHART_CONFIG, MAX_SERIES, meanLayers, panelize } = require('../lib/report/chart-kit.js');
const C = require('../lib/report/charts.js');
const { chartSvg } = require('../lib/report/render.js');
const { chartProblems } = require('./helpers/svg-rules.js');

const svgOf = (spec, config = CHART_CONFIG) => chartSvg({ ...spec, config: { ...config, ...spec.config } });
const LONG = 'a variant with a name long enough to be cut short by a legend';

function groups(variants, { n = 2 } = {}) {
  const out = [];
  for (const app of ['java-app', 'node-app']) {
    for (const variant of variants) {
      for (const load of [4, 16]) {
        const vals = { throughput_rps: [100 + load, 110 + load].slice(0, n), cpu_used_pct: [50, 52].slice(0, n), mem_mb: [100, 101].slice(0, n) };
        out.push({ kind: 'rep', app, variant, series: `${app} ${variant} ${LONG}`, app_instances: 1, load, model: 'closed',
          stats: Object.fromEntries(Object.entries(vals).map(([k, v]) => [k, summarize(v)])) });
      }
    }
  }
  return out;
}

const xy = (extra = {}) => ({ x: { field: 'x', type: 'quantitative', title: 'x (s)' }, ...extra });
const rows = (lines) => lines.flatMap((l) => [1, 2].map((x) => ({ x, line: l, app: 'a', mean: x, lo: x - 0.5, hi: x + 0.5 })));

test('the checker finds each broken rule', async () => {
  const base = { data: { values: rows(['a', 'b']) } };
  const merged = { ...base, layer: [{ name: 'mean', mark: 'point', encoding: xy({ y: { field: 'mean', type: 'quantitative', title: 'A (ms)' } }) },
    { name: 'mean_ci', mark: 'rule', encoding: xy({ y: { field: 'lo', type: 'quantitative', title: 'B (req/s)' }, y2: { field: 'hi' } }) }] };
  assert.deepEqual(chartProblems(await svgOf(merged)), ['axis title joins two metrics: "A (ms), B (req/s)"']);
  const noCi = { ...base, layer: [meanLayers(xy({ color: { field: 'line', type: 'nominal' } }), { field: 'mean', title: 'y' })[1]] };
  assert.deepEqual(chartProblems(await svgOf(noCi)), ['4 mean but 0 mean_ci']);
  const unnamed = { ...base, mark: 'point', encoding: xy({ y: { field: 'mean', type: 'quantitative' } }) };
  assert.deepEqual(chartProblems(await svgOf(unnamed)), ['a mark not named for what it draws: marks']);
  const eight = 'abcdefgh'.split('');
  const crowded = { data: { values: rows(eight) }, layer: meanLayers(xy({ color: { field: 'line', type: 'nominal' } }), { field: 'mean', title: 'y' }) };
  assert.deepEqual(chartProblems(await svgOf(crowded)), ['8 series in panel 0']);
  const cut = { data: { values: rows([LONG]) }, layer: meanLayers(xy({ color: { field: 'line', type: 'nominal' } }), { field: 'mean', title: 'y' }) };
  assert.match(chartProblems(await svgOf(cut, { legend: { labelLimit: 60 } })).join(), /text cut short: ".*…"/);
  const panel = { data: { values: rows(['a']).map((r) => ({ ...r, round: 'round 9' })) }, facet: { field: 'round', type: 'nominal' },
    spec: { layer: [{ name: 'sample', mark: 'line', encoding: xy({ y: { field: 'mean', type: 'quantitative' } }) }] } };
  assert.deepEqual(chartProblems(await svgOf(panel), { trusted: new Set([1]) }), ['untrusted round 9 drawn']);
});

test('8 series are split into panels of at most 6; long names whole; every mean with its CI', async () => {
  const gs = groups('abcd'.split(''));
  const spec = C.throughputVsLoad({ groups: gs });
  assert.ok(spec.facet, 'faceted');
  assert.deepEqual([...new Set(spec.data.values.map((v) => v.panel))], ['java-app', 'node-app']);
  assert.deepEqual(chartProblems(await svgOf(spec)), []);
  const many = panelize(Array.from({ length: 14 }, (_, i) => ({ app: 'a', line: `l${String(i).padStart(2, '0')}` })), (r) => r.line);
  assert.deepEqual([...new Set(many.map((r) => r.panel))], ['a (1 of 3)', 'a (2 of 3)', 'a (3 of 3)']);
  assert.ok(MAX_SERIES === 6);
  for (const f of [C.throughputVsCpu, C.memoryVsThroughput]) assert.deepEqual(chartProblems(await svgOf(f({ groups: gs }))), [], f.name);
});

test('a group of one round has no CI and is not drawn (the tables keep it)', () => {
  assert.equal(C.throughputVsLoad({ groups: groups(['a'], { n: 1 }) }), null);
  const mixed = [...groups(['a'], { n: 1 }), ...groups(['b'])];
  assert.deepEqual([...new Set(C.throughputVsLoad({ groups: mixed }).data.values.map((v) => v.line.split(' ')[1]))], ['b']);
});
