'use strict';
// block-cv.js — how much of a per-second series' scatter survives averaging: the CV of the means
// of consecutive blocks (quota-scatter.js, machine-wander.js), and the percentages they print.
const { mean, stddev } = require('../../lib/inference');

/** CV of the means of consecutive blocks of `size` seconds, against the series' mean (null when fewer than 3 blocks). */
function blockCv(values, size) {
  const blocks = [];
  for (let i = 0; i + size <= values.length; i += size) blocks.push(mean(values.slice(i, i + size)));
  return blocks.length < 3 ? null : stddev(blocks) / mean(values);
}

const pct = (x) => (x === null ? '-' : `${(100 * x).toFixed(1)} %`);

module.exports = { blockCv, pct };
