// tables.js — the human-readable table of `cfl status`, laid out like the cf CLI's tables.
'use strict';

function table(rows) {
  const widths = rows[0].map((_, c) => Math.max(...rows.map((r) => String(r[c]).length)));
  return rows.map((r) => r.map((v, c) => (c === r.length - 1 ? String(v) : String(v).padEnd(widths[c] + 3))).join('').trimEnd()).join('\n');
}

module.exports = { table };
