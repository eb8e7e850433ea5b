#!/usr/bin/env node
// floor-summary.js — floor.sh's table: per model and tool the medians of p50/p90/p99 over the
// repeats, loadgen's difference to its peer (µs and ratio), and loadgen's own send lateness.
// RESULTS holds one line per run: "MODEL TOOL P50 P90 P99 LATE_P50 LATE_P99" (µs; '-' = none).
// Usage: node loadgen/bench/floor-summary.js RESULTS
'use strict';

const fs = require('node:fs');
const { median } = require('./efficiency-summary');

const PCTS = ['p50', 'p90', 'p99'];

function summary(text) {
  const groups = new Map(); // model -> tool -> [run]
  for (const line of text.split('\n').filter(Boolean)) {
    const [model, tool, ...v] = line.split(' ');
    const [p50, p90, p99, late50, late99] = v.map((x) => (x === '-' ? null : Number(x)));
    if (!groups.has(model)) groups.set(model, new Map());
    const tools = groups.get(model);
    if (!tools.has(tool)) tools.set(tool, []);
    tools.get(tool).push({ p50, p90, p99, late50, late99 });
  }
  const row = (...c) => `${c[0].padEnd(12)} ${c[1].padEnd(9)} ${c.slice(2, 7).map((x) => x.padStart(15)).join(' ')}   ${c[7] || ''}`;
  const lines = [row('model', 'tool', 'p50_us', 'p90_us', 'p99_us', 'late_p50_us', 'late_p99_us', 'p50/p90/p99 of each run')];
  for (const [model, tools] of groups) {
    const med = new Map();
    for (const [tool, runs] of tools) {
      const m = {};
      for (const k of [...PCTS, 'late50', 'late99']) {
        const xs = runs.map((r) => r[k]).filter((x) => x !== null);
        m[k] = xs.length ? median(xs) : null;
      }
      med.set(tool, m);
      const f = (x) => (x === null ? '-' : x.toFixed(0));
      lines.push(row(model, tool, ...PCTS.map((k) => f(m[k])), f(m.late50), f(m.late99),
        runs.map((r) => PCTS.map((k) => f(r[k])).join('/')).join('  ')));
    }
    const own = med.get('loadgen');
    const peer = [...med.keys()].find((t) => t !== 'loadgen');
    if (own && peer) {
      const p = med.get(peer);
      const d = (k) => `${own[k] - p[k] >= 0 ? '+' : ''}${(own[k] - p[k]).toFixed(0)} ${(own[k] / p[k]).toFixed(2)}x`;
      lines.push(row(model, `-${peer}`, ...PCTS.map(d), '', ''));
    }
  }
  return lines.join('\n');
}

if (require.main === module) {
  const [file] = process.argv.slice(2);
  if (!file) { process.stderr.write('usage: floor-summary.js RESULTS\n'); process.exit(1); }
  process.stdout.write(`${summary(fs.readFileSync(file, 'utf8'))}\n`);
}

module.exports = { summary };
