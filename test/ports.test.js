'use strict';
// ports.test.js — ports.json, the one table of port ranges: every range well formed, no two
// overlapping, each inside the ranges scripts/test.sh reserves.
const test = require('node:test');
const assert = require('node:assert/strict');
const PORTS = require('../ports.json');

const span = (text) => text.split('-').map(Number);

test('every range is FROM-TO with FROM <= TO', () => {
  for (const [name, r] of Object.entries(PORTS.ranges)) {
    assert.match(r.ports, /^\d+-\d+$/, name);
    const [from, to] = span(r.ports);
    assert.ok(from <= to && to <= 65535, `${name}: ${r.ports}`);
    assert.ok(r.users, `${name}: users`);
  }
});

test('no two ranges overlap', () => {
  const all = Object.entries(PORTS.ranges).map(([name, r]) => [name, ...span(r.ports)]).sort((a, b) => a[1] - b[1]);
  for (let i = 1; i < all.length; i++) {
    assert.ok(all[i][1] > all[i - 1][2], `${all[i - 1][0]} (${all[i - 1][1]}-${all[i - 1][2]}) overlaps ${all[i][0]} (${all[i][1]}-${all[i][2]})`);
  }
});

test('every range lies inside the reserved ports', () => {
  const reserved = PORTS.reserved.split(',').map(span);
  for (const [name, r] of Object.entries(PORTS.ranges)) {
    const [from, to] = span(r.ports);
    assert.ok(reserved.some(([a, b]) => a <= from && to <= b), `${name} (${r.ports}) is outside ${PORTS.reserved}`);
  }
});
