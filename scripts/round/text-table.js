'use strict';
// text-table.js — left-aligned columns for the round summaries.

/** Lines of a table: header then rows, columns padded to their widest cell. */
function textTable(header, rows, indent = '') {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => String(r[i]).length)));
  const line = (cells) => indent + cells.map((c, i) => String(c).padEnd(widths[i])).join('  ').trimEnd();
  return [line(header), ...rows.map(line)];
}

module.exports = { textTable };
