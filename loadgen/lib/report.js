'use strict';
// Printing a result: the human summary (like hey/autocannon), the live progress
// line on a TTY, and the verdict against the run's own criteria.

const { LATENESS_P99_MAX_SHARE } = require('./stats');

/** The generator's own send lateness was a visible part of what it measured. */
function generatorLate(r) {
  return Boolean(r.lateness_us) && r.lateness_us.p99 > LATENESS_P99_MAX_SHARE * r.latency_us.p50;
}

function fmtUs(us) {
  if (us >= 1e6) return (us / 1e6).toFixed(2) + 's';
  if (us >= 1e3) return (us / 1e3).toFixed(2) + 'ms';
  return Math.round(us) + 'µs';
}

function humanSummary(r) {
  const lines = [];
  lines.push(`Target:      ${r.url} (${r.model} model, ${r.model === 'open' ? `rate ${r.rate}/s over ${r.parallel} connections` : `${r.parallel} in flight`}, keep-alive ${r.keepalive ? 'on' : 'off'})`);
  lines.push(`Duration:    ${(r.duration_ms / 1000).toFixed(2)}s`);
  lines.push(`Requests:    ${r.requests.total} (ok ${r.requests.ok}, errors ${r.requests.errors})`);
  lines.push(`Rate:        ${r.requests.per_sec.toFixed(1)} req/s`);
  const l = r.latency_us;
  lines.push(`Latency:     p50 ${fmtUs(l.p50)}  p90 ${fmtUs(l.p90)}  p99 ${fmtUs(l.p99)}  max ${fmtUs(l.max)}  mean ${fmtUs(l.mean)}`);
  const kinds = Object.entries(r.errors_by_kind);
  lines.push(`Errors:      ${kinds.length ? kinds.map(([k, v]) => `${k} ${v}`).join(', ') : 'none'}`);
  lines.push(`Status:      ${Object.entries(r.status_codes).map(([k, v]) => `${k} ${v}`).join(', ') || '-'}`);
  const g = r.lateness_us;
  if (g) {
    lines.push(`Send late:   p50 ${fmtUs(g.p50)}  p90 ${fmtUs(g.p90)}  p99 ${fmtUs(g.p99)}  max ${fmtUs(g.max)}  (the generator's own share of each latency)`);
    if (generatorLate(r)) lines.push(`WARNING:     the generator fell behind: send lateness p99 over ${LATENESS_P99_MAX_SHARE * 100} % of the latency p50`);
  }
  if (r.model === 'open') lines.push(`Late:        ${r.late} (sent over 10 ms after their intended time, or never: ${r.unsent} unsent)`);
  if (r.persisted) {
    const p = r.persisted;
    lines.push(`Persisted:   ${p.rows_loaded} rows into round ${p.round}${p.spool_pending ? `, ${p.spool_pending} batches still spooled in ${p.spool_dir}` : ''}`);
  }
  if (r.failed) lines.push(`FAILED:      ${r.failed}`);
  return lines.join('\n') + '\n';
}

function progressLine(s, elapsedMs, total) {
  return `\r${(elapsedMs / 1000).toFixed(0).padStart(4)}s  ${String(s.count).padStart(7)} req/s  ` +
    `p50 ${fmtUs(s.p50).padStart(8)}  p99 ${fmtUs(s.p99).padStart(8)}  errors ${s.errors}  total ${total}   `;
}

/** The reason the run failed its own criteria, or null. */
function verdict(r, maxErrorRate) {
  if (maxErrorRate !== undefined && r.requests.total > 0 && r.requests.errors / r.requests.total > maxErrorRate) {
    return `error rate ${(r.requests.errors / r.requests.total).toFixed(4)} above --max-error-rate ${maxErrorRate}`;
  }
  if (maxErrorRate !== undefined && r.requests.total === 0) return 'no request completed';
  if (r.persisted && r.persisted.spool_pending > 0) return 'samples could not all be persisted (left in the spool)';
  if (r.persisted && r.persisted.rejected_batches > 0) return 'sample batches rejected by the results database (kept in the spool dir)';
  return null;
}

module.exports = { humanSummary, progressLine, verdict, fmtUs, generatorLate };
