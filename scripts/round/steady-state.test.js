'use strict';
// steady-state.test.js — the gate's decision on synthetic per-second series with known
// answers: a steady series, a warm-up ramp that levels off, a series that never settles
// (scatter, and a slow drift), and the statistics themselves on hand-computed cases.
const test = require('node:test');
const assert = require('node:assert/strict');
const { windowStats, assessWindow, decide, describeWindow } = require('./steady-state');

const SETTINGS = { windowMs: 10000, cvMax: 0.05, trendMax: 0.05, maxWarmupMs: 60000 };
// ±1 % alternating around a level: no trend, CV ≈ 1 %.
const flat = (level, n) => Array.from({ length: n }, (_, i) => level * (i % 2 ? 1.01 : 0.99));

test('windowStats: hand-computed mean, CV, slope and trend', () => {
  const s = windowStats([1, 2, 3, 4, 5]);
  assert.equal(s.mean, 3);
  assert.equal(s.slope, 1);
  assert.ok(Math.abs(s.trend - 5 / 3) < 1e-12); // +1 per second over 5 s, relative to 3
  assert.ok(Math.abs(s.cv - Math.sqrt(2.5) / 3) < 1e-12);
  assert.equal(s.trendSe, 0); // a perfect line
  const c = windowStats([7, 7, 7, 7]);
  assert.deepEqual([c.cv, c.slope, c.trend], [0, 0, 0]);
  assert.equal(windowStats([]).cv, Infinity);
  assert.equal(windowStats([0, 0, 0]).trend, Infinity);
});

// Round 121 of the study run of 11-28 (node-app at 0.1 core): a step from ~900 to ~600 req/s.
const STEP = [904, 916, 913, 755, 810, 754, 922, 932, 909, 619, 574, 623, 641, 622, 561, 576, 565, 606, 638];

test('windowStats: seconds that wander together widen the trend\'s standard error', () => {
  // Alternating residuals are anti-correlated: rho counts as 0, the df stay n - 2.
  assert.equal(windowStats(flat(400, 10)).trendDf, 8);
  const s = windowStats(STEP);
  // The line's residuals: lag-1 autocorrelation 0.40, effective length 19 · 0.6 / 1.4 = 8.1.
  assert.ok(Math.abs(s.trendDf - 6.1) < 0.1, String(s.trendDf));
  // The independent-seconds error was 9.8 % (n - 2 = 17 df); it widens by sqrt(17 / df).
  assert.ok(Math.abs(s.trendSe - 0.098 * Math.sqrt(17 / s.trendDf)) < 0.002, String(s.trendSe));
  assert.ok(Math.abs(s.trend + 0.547) < 0.002, String(s.trend));
  assert.equal(windowStats([1, 2]).trendDf, null);
});

test('a steady series is steady as soon as one window exists', () => {
  const series = flat(400, 10);
  assert.equal(decide(series.slice(0, 9), SETTINGS, 9000).state, 'wait');
  const d = decide(series, SETTINGS, 10000);
  assert.equal(d.state, 'steady');
  assert.ok(d.window.cv < 0.011 && Math.abs(d.window.trend) < 0.01, describeWindow(d.window));
});

test('a warm-up ramp is not steady until the window has left it', () => {
  // 20 s from 100 to 385 req/s (+15 per second), then 400 ±1 %.
  const series = [...Array.from({ length: 20 }, (_, i) => 100 + 15 * i), ...flat(400, 30)];
  const firstSteady = series.findIndex((_, i) => decide(series.slice(0, i + 1), SETTINGS, (i + 1) * 1000).state === 'steady') + 1;
  // A window still holding the ramp's last 2 seconds (370, 385 before eight 400s) trends
  // by more than 5 %; holding only 385 it passes, with 29 seconds in the series.
  assert.ok(assessWindow(series.slice(18, 28), SETTINGS).reasons.some((r) => r.startsWith('trend')));
  assert.equal(firstSteady, 29);
  assert.ok(!decide(series.slice(0, 20), SETTINGS, 20000).window.steady);
  assert.match(assessWindow(series.slice(0, 10), SETTINGS).reasons.join('; '), /^CV .*; trend \+/);
});

test('never steady: scatter without a trend, and a slow drift, give up at the maximum warm-up', () => {
  const scatter = Array.from({ length: 70 }, (_, i) => (i % 2 ? 300 : 500)); // CV 20 %
  const drift = Array.from({ length: 70 }, (_, i) => 400 * (1 + 0.01 * i)); // +1 %/s: trend ~ +9 % per window
  for (const [name, series, reason] of [['scatter', scatter, /^CV /], ['drift', drift, /^trend \+/]]) {
    assert.equal(decide(series.slice(0, 59), SETTINGS, 59000).state, 'wait', name);
    const d = decide(series.slice(0, 60), SETTINGS, 60000);
    assert.equal(d.state, 'give-up', name);
    assert.match(d.window.reasons[0], reason, name);
  }
  // No answers at all: never steady, and said so.
  assert.deepEqual(assessWindow([0, 0, 0], SETTINGS).reasons, ['no throughput']);
});

test('a falling series (the platform taking CPU back) is a trend too', () => {
  const falling = Array.from({ length: 10 }, (_, i) => 400 - 4 * i);
  const a = assessWindow(falling, SETTINGS);
  assert.equal(a.steady, false);
  assert.ok(a.trend < -0.05, String(a.trend));
});

test('a throttled series: a quota-bound instance passes the same work every CFS period, so its seconds are flat; a beat between period and second is scatter, not a trend', () => {
  // 10 periods of 100 ms per second, 40 or 41 answers each: 400-410 per second.
  const bound = Array.from({ length: 10 }, (_, i) => 400 + (i * 7) % 11);
  assert.equal(decide(bound, SETTINGS, 10000).state, 'steady');
  // A period that does not divide the second: now and then a second holds one period less.
  const beat = Array.from({ length: 10 }, (_, i) => (i % 3 === 2 ? 350 : 400));
  const a = assessWindow(beat, SETTINGS);
  assert.ok(a.cv > 0.06 && a.cv < 0.065, String(a.cv)); // sd 24.2 of mean 385
  assert.ok(Math.abs(a.trend) < 0.05, String(a.trend));
  assert.deepEqual(a.reasons.map((r) => r.split(' ')[0]), ['CV']);
  assert.equal(assessWindow(beat, { ...SETTINGS, cvMax: 0.1 }).steady, true, 'the default bound (0.1) lets it through');
});

test('at run-round\'s default settings a slow ramp of 0.9 %/s (9 % per 10 s) never passes, and a steady series with ±3 % scatter passes at its first whole window', () => {
  const { parseRunRoundArgs } = require('./run-round-args');
  const { makeCli } = require('../ops/cli');
  const gate = parseRunRoundArgs(['--app', 'node-app', '--duration', '10s'], makeCli('run-round')).steadyGate;
  const w = gate.windowMs / 1000;
  // ±2 % scatter on a fixed pattern, so the answer is known and the same every run.
  const noise = (i) => [1, 0.98, 1.02, 0.99, 1.01][i % 5];
  const ramp = Array.from({ length: gate.maxWarmupMs / 1000 }, (_, i) => 400 * (1 + 0.009 * i) * noise(i));
  for (let n = w; n < ramp.length; n++) {
    const d = decide(ramp.slice(0, n), gate, n * 1000);
    assert.equal(d.state, 'wait', `${n} s: ${describeWindow(d.window)}`);
  }
  assert.equal(decide(ramp, gate, gate.maxWarmupMs).state, 'give-up');
  // A 10 s window would have let it through: its trend is within the default ±10 %.
  assert.ok(assessWindow(ramp.slice(0, 10), gate).steady, 'the ramp over 10 s alone looks steady');
  const steady = Array.from({ length: w }, (_, i) => 400 * [1, 0.97, 1.03, 0.98, 1.02][i % 5]);
  assert.equal(decide(steady.slice(0, w - 1), gate, (w - 1) * 1000).state, 'wait');
  assert.equal(decide(steady, gate, w * 1000).state, 'steady');
});

test('the gate\'s table in scripts/round/README.md states the defaults of run-round-args.js', () => {
  const fs = require('node:fs');
  const path = require('node:path');
  const { COMMAND } = require('./run-round-args');
  const readme = fs.readFileSync(path.join(__dirname, 'README.md'), 'utf8');
  const flags = ['--steady-window', '--steady-cv', '--steady-trend', '--max-warmup'];
  for (const flag of flags) {
    const row = COMMAND.rows.find(([spec]) => spec.split(' ')[0] === flag);
    const cell = new RegExp(`^\\| \`${flag}\` \\| \`([^\`]+)\` \\|`, 'm').exec(readme);
    assert.ok(cell, `README has a row for ${flag}`);
    assert.equal(cell[1], String(row[3]), `${flag}: README says ${cell[1]}, run-round-args.js ${row[3]}`);
  }
});
