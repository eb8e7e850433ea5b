// data.js — read what the report shows from the report views of results-schema.sql.
// A selection is either explicit round ids or an experiment name (rounds.experiment or
// the plan name inside an exp: label); with neither, every round.

/** "3,5,10-12" → [3, 5, 10, 11, 12]; throws on anything else. */
export function parseRoundList(text) {
  const ids = [];
  for (const part of String(text).split(',')) {
    const m = /^\s*(\d+)(?:\s*-\s*(\d+))?\s*$/.exec(part);
    if (!m) throw new Error(`--rounds must be ids and ranges like 3,5,10-12, got "${text}"`);
    const a = Number(m[1]);
    const b = m[2] === undefined ? a : Number(m[2]);
    if (b < a || b - a > 100_000) throw new Error(`--rounds range ${part.trim()} is backwards or too long`);
    for (let i = a; i <= b; i++) ids.push(i);
  }
  return ids;
}

/** Round ids of a selection, ascending. */
async function selectedIds(client, sel) {
  if (sel.rounds) {
    return (await client.query('SELECT id FROM rounds WHERE id = ANY($1::bigint[]) ORDER BY id', [sel.rounds])).rows.map((r) => r.id);
  }
  if (sel.experiment) {
    return (await client.query(
      `SELECT id FROM rounds
        WHERE experiment = $1 OR (experiment IS NULL AND label LIKE 'exp:%' AND split_part(label, ':', 2) = $1)
        ORDER BY id`, [sel.experiment])).rows.map((r) => r.id);
  }
  return (await client.query('SELECT id FROM rounds ORDER BY id')).rows.map((r) => r.id);
}

/**
 * Everything the report needs, as plain rows. The views are asked one round at a time:
 * PostgreSQL pushes `round_id = <value>` into their per-round aggregates (index scans),
 * where a list or an experiment filter would aggregate every round in the database.
 */
export async function loadReportData(client, sel) {
  const overview = [];
  const split = [];
  for (const id of await selectedIds(client, sel)) {
    overview.push(...(await client.query('SELECT * FROM report_round_overview WHERE round_id = $1', [id])).rows);
    split.push(...(await client.query('SELECT * FROM report_round_latency_split WHERE round_id = $1', [id])).rows);
  }
  return { overview, split };
}
