'use strict';
// Table-driven tests of loadgen-log-parser.js on `cf logs loadgen` output.

const test = require('node:test');
const assert = require('node:assert/strict');
const { lostReports } = require('./loadgen-log-parser');

const line = (index, json) => `   2026-11-23T10:00:05.00+0000 [APP/PROC/WEB/${index}] OUT cfscale-loadgen-lost ${json}`;

test('cf logs loadgen → lost reports', () => {
  const cases = [
    { name: 'one line among others', text: [
      '   2026-11-23T10:00:01.00+0000 [APP/PROC/WEB/3] OUT loadgen[3]: stopping: SIGTERM',
      line(3, '{"round_id":12,"loadgen_index":3,"lost":1234,"recorded":40000}'),
      '   2026-11-23T10:00:06.00+0000 [CELL/3] OUT Exit status 0',
    ].join('\n'), reports: [{ round_id: 12, loadgen_index: 3, lost: 1234, recorded: 40000 }], bad: 0 },
    { name: 'without recorded (an earlier life ran the round)', text: line(0, '{"round_id":12,"loadgen_index":0,"lost":5}'),
      reports: [{ round_id: 12, loadgen_index: 0, lost: 5 }], bad: 0 },
    { name: 'other rounds dropped', round: 12, text: line(0, '{"round_id":11,"loadgen_index":0,"lost":5}'), reports: [], bad: 0 },
    { name: 'the later line of one instance wins', text: [
      line(1, '{"round_id":12,"loadgen_index":1,"lost":9,"recorded":100}'),
      line(1, '{"round_id":12,"loadgen_index":1,"lost":4,"recorded":100}'),
    ].join('\n'), reports: [{ round_id: 12, loadgen_index: 1, lost: 4, recorded: 100 }], bad: 0 },
    { name: 'the bare stdout line (local logs, tests)', text: 'cfscale-loadgen-lost {"round_id":2,"loadgen_index":0,"lost":1}',
      reports: [{ round_id: 2, loadgen_index: 0, lost: 1 }], bad: 0 },
    { name: 'cut off, negative, fractional, wrong types: counted as bad', text: [
      line(0, '{"round_id":12,"loadgen_ind'),
      line(0, '{"round_id":12,"loadgen_index":0,"lost":-1}'),
      line(0, '{"round_id":12,"loadgen_index":0,"lost":1.5}'),
      line(0, '{"round_id":"12","loadgen_index":0,"lost":1}'),
      line(0, '{"round_id":12,"loadgen_index":0,"lost":1,"recorded":"x"}'),
      line(0, 'null'),
    ].join('\n'), reports: [], bad: 6 },
  ];
  for (const c of cases) assert.deepEqual(lostReports(c.text, c.round), { reports: c.reports, bad: c.bad }, c.name);
});
