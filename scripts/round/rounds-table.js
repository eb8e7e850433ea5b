'use strict';
// rounds-table.js — past rounds from round_summary, newest first, as a text table.
// printRounds(db, { last, app }), which `scripts/rounds.sh` calls.
const { withClient } = require('../ops/results-db');
const { textTable } = require('./text-table');

const PROG = 'rounds';

const SQL = `
  SELECT s.round_id, r.created_at, s.app, s.platform, s.status, s.app_instances, s.loadgens,
         s.model, s.parallel, s.rate, r.duration_ms, r.requests AS per_loadgen, s.label,
         s.samples, s.errors, s.throughput_rps, s.p50_us, s.p99_us
    FROM round_summary s JOIN rounds r ON r.id = s.round_id
   WHERE $2::text IS NULL OR s.app = $2
   ORDER BY s.round_id DESC LIMIT $1`;

const fixed = (v, d) => (v === null ? '-' : Number(v).toFixed(d));

function rowCells(r) {
  const load = r.model === 'closed' ? `p${r.parallel}` : `${r.rate}/s`;
  const length = r.duration_ms ? `${Number(r.duration_ms) / 1000}s` : `${r.per_loadgen}req`;
  const samples = Number(r.samples);
  return [r.round_id, r.created_at.toISOString().slice(0, 19).replace('T', ' '), r.app, r.platform,
    r.status, r.app_instances, `${r.loadgens}x${load}`, length, samples,
    samples ? `${((Number(r.errors) / samples) * 100).toFixed(2)}%` : '-',
    fixed(r.throughput_rps, 1), fixed(r.p50_us / 1000, 2), fixed(r.p99_us / 1000, 2), r.label ?? ''];
}

function formatTable(rows) {
  const header = ['id', 'created (UTC)', 'app', 'platform', 'status', 'inst', 'load', 'length',
    'samples', 'errors', 'req/s', 'p50 ms', 'p99 ms', 'label'];
  return textTable(header, rows.map(rowCells));
}

/** Print the last `last` rounds (of `app` when given); a database error: one line, exit 1. */
async function printRounds(db, { last = 20, app } = {}) {
  await withClient(db, PROG, async (client) => {
    const { rows } = await client.query(SQL, [last, app || null]);
    process.stdout.write(rows.length === 0 ? 'no rounds yet\n' : `${formatTable(rows).join('\n')}\n`);
  });
}

module.exports = { formatTable, printRounds };
