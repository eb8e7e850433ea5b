#!/usr/bin/env node
// efficiency-summary.js — efficiency.sh's table: per tool the median of requests per
// generator CPU-second over the repeats, and its ratios to autocannon's and to wrk's. RESULTS holds one
// line per run: "TOOL REQUESTS CPU_SEC".
// Usage: node loadgen/bench/efficiency-summary.js RESULTS DURATION_SEC
'use strict';

const fs = require('node:fs');

function median(xs) {
  const v = [...xs].sort((a, b) => a - b);
  const m = v.length;
  return m % 2 ? v[(m - 1) / 2] : (v[m / 2 - 1] + v[m / 2]) / 2;
}

function summary(text, durationSec) {
  const tools = new Map();
  for (const line of text.split('\n').filter(Boolean)) {
    const [tool, reqs, cpu] = line.split(' ');
    if (!tools.has(tool)) tools.set(tool, []);
    tools.get(tool).push({ reqs: Number(reqs), eff: Number(cpu) > 0 ? Number(reqs) / Number(cpu) : 0 });
  }
  const base = (name) => median((tools.get(name) || []).map((r) => r.eff));
  const [autocannon, wrk] = [base('autocannon'), base('wrk')];
  const ratio = (med, b) => (b > 0 ? `${(med / b).toFixed(2)}x` : '-');
  const row = (a, b, c, d, e, f) => `${a.padEnd(22)} ${b.padStart(12)} ${c.padStart(14)} ${d.padStart(13)} ${e.padStart(7)}   ${f}`;
  const lines = [row('tool', 'req/s(wall)', 'req/cpu_s(med)', 'vs autocannon', 'vs wrk', 'req/cpu_s of each run')];
  for (const [tool, runs] of tools) {
    const wall = runs.reduce((s, r) => s + r.reqs / durationSec, 0) / runs.length;
    const med = median(runs.map((r) => r.eff));
    lines.push(row(tool, wall.toFixed(0), med.toFixed(0), ratio(med, autocannon), ratio(med, wrk), runs.map((r) => r.eff.toFixed(0)).join(' ')));
  }
  return lines.join('\n');
}

if (require.main === module) {
  const [file, duration] = process.argv.slice(2);
  if (!file || !(Number(duration) > 0)) { process.stderr.write('usage: efficiency-summary.js RESULTS DURATION_SEC\n'); process.exit(1); }
  process.stdout.write(`${summary(fs.readFileSync(file, 'utf8'), Number(duration))}\n`);
}

module.exports = { summary, median };
