'use strict';
// cell-parser.js — one line of `cf logs APP` output → an `instance_events` row when it is the
// executor's line as it stops an instance (pure):
//   <ts> [CELL/<index>] OUT Cell <cell id> stopping instance <instance guid>
// (Diego's executor sends it right before it signals the process, docs/cf-platform.md §25;
// the local platform writes the same). The row: { at (the line's time, the CLI's
// centiseconds), instance_index, kind: 'stop', detail: 'instance GUID' }. Anything else: null.
const { parseAccessTime } = require('./rtr-parser');

const STOP_RE = /^\s*(\S+)\s+\[CELL\/([0-9]{1,9})\]\s+OUT\s+Cell \S+ stopping instance ([0-9a-zA-Z-]{1,64})\s*$/;

function parseCellStopLine(line) {
  const m = STOP_RE.exec(line);
  if (!m) return null;
  const at = parseAccessTime(m[1]);
  if (at === null) return null;
  return { at, instance_index: Number(m[2]), kind: 'stop', detail: `instance ${m[3]}` };
}

module.exports = { parseCellStopLine };
