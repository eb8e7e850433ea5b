'use strict';
// Human units for flags and plan values: durations (`500ms`, `10s`, `2m`, `1h`; a
// bare number is seconds) and counts (`1k` = 1000, `2.5k`, `1m` = 1,000,000).

const DURATION_MS = { ms: 1, s: 1000, m: 60000, h: 3600000 };
const COUNT = { '': 1, k: 1e3, m: 1e6, g: 1e9 };

/** Milliseconds, or NaN when `text` is not a duration. */
function parseDuration(text) {
  const m = /^(\d+(?:\.\d+)?)(ms|s|m|h)?$/.exec(String(text).trim());
  if (m === null) return NaN;
  return Math.round(Number(m[1]) * DURATION_MS[m[2] || 's']);
}

/** A number with an optional k/m/g multiplier, or NaN. */
function parseCount(text) {
  const m = /^(\d+(?:\.\d+)?)([kmg]?)$/i.exec(String(text).trim());
  if (m === null) return NaN;
  return Number(m[1]) * COUNT[m[2].toLowerCase()];
}

function formatDuration(ms) {
  if (ms % 3600000 === 0) return ms / 3600000 + 'h';
  if (ms % 60000 === 0) return ms / 60000 + 'm';
  if (ms % 1000 === 0) return ms / 1000 + 's';
  return ms + 'ms';
}

module.exports = { parseDuration, parseCount, formatDuration };
