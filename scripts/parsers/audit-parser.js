'use strict';
// audit-parser.js — a v3 audit_events document → `instance_events` rows (pure).
//
// Source: `cf curl "/v3/audit_events?types=audit.app.process.crash&target_guids=GUID"`
// on both platforms (the local one answers CC's v3 API). Each
// resource: {created_at, type, target:{guid,name}, data:{index, exit_description,
// reason, …}}. Only `audit.app.process.crash` becomes a row: kind `oom` when the exit
// description says out of memory (Diego's "out of memory" / "APP/PROC/WEB: Exited with
// status 137 (out of memory)"), else `crash`.

const CRASH_TYPE = 'audit.app.process.crash';
const OOM_RE = /out of memory|\boom\b/i;

function isObject(v) {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

/**
 * @param {unknown} doc the parsed audit_events document
 * @param {{since?: string}} [options] keep only events created at or after this instant
 * @returns {{rows: object[], skipped: number}} rows: {instance_index, at, kind, detail}
 */
function auditRows(doc, options = {}) {
  if (!isObject(doc) || !Array.isArray(doc.resources)) {
    throw new Error('not a v3 audit_events document (no "resources" array)');
  }
  const sinceMs = options.since ? Date.parse(options.since) : null;
  const rows = [];
  let skipped = 0;
  for (const ev of doc.resources) {
    if (!isObject(ev) || ev.type !== CRASH_TYPE) {
      skipped++;
      continue;
    }
    const atMs = Date.parse(ev.created_at);
    if (Number.isNaN(atMs) || (sinceMs !== null && atMs < sinceMs)) {
      skipped++;
      continue;
    }
    const data = isObject(ev.data) ? ev.data : {};
    const description = typeof data.exit_description === 'string' ? data.exit_description : '';
    const reason = typeof data.reason === 'string' ? data.reason : '';
    const index = Number.isInteger(data.index) && data.index >= 0 ? data.index
      : (typeof data.index === 'string' && /^[0-9]{1,9}$/.test(data.index) ? Number(data.index) : null);
    rows.push({
      instance_index: index,
      at: new Date(atMs).toISOString(),
      kind: OOM_RE.test(description) ? 'oom' : 'crash',
      detail: [reason, description].filter(Boolean).join(': ') || null,
    });
  }
  return { rows, skipped };
}

module.exports = { auditRows, CRASH_TYPE };
