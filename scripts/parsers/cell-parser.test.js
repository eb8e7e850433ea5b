'use strict';
// Table-driven tests of cell-parser.js: the executor's stopping line as `cf logs` prints it,
// from Diego and from the local platform, and lines that are not it.

const test = require('node:test');
const assert = require('node:assert/strict');
const { parseCellStopLine } = require('./cell-parser');

const GUID = '5d3b2a9c-1f0e-4a7b-8c6d-2e1f0a9b8c7d';
const CASES = [
  { name: "Diego's line (cell id a guid)",
    line: `   2026-03-01T12:00:05.12+0000 [CELL/3] OUT Cell 0a1b2c3d-aaaa-bbbb-cccc-000000000001 stopping instance ${GUID}`,
    row: { at: '2026-03-01T12:00:05.12+0000', instance_index: 3, kind: 'stop', detail: `instance ${GUID}` } },
  { name: 'the local platform\'s (cell local)',
    line: `2026-03-01T12:00:05.00+0000 [CELL/0] OUT Cell local stopping instance ${GUID}`,
    row: { at: '2026-03-01T12:00:05.00+0000', instance_index: 0, kind: 'stop', detail: `instance ${GUID}` } },
  { name: 'another CELL line', line: '2026-03-01T12:00:05.00+0000 [CELL/0] OUT Container became healthy', row: null },
  { name: 'an app line saying the same', line: `2026-03-01T12:00:05.00+0000 [APP/PROC/WEB/0] OUT Cell x stopping instance ${GUID}`, row: null },
  { name: 'a bad time', line: `garbage [CELL/0] OUT Cell x stopping instance ${GUID}`, row: null },
];

for (const c of CASES) test(`cell stop line: ${c.name}`, () => assert.deepEqual(parseCellStopLine(c.line), c.row));
