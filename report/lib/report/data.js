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

function where(sel) {
  if (sel.rounds) return { sql: 'round_id = ANY($1::bigint[])', params: [sel.rounds] };
  if (sel.experiment) return { sql: 'experiment = $1', params: [sel.experiment] };
  return { sql: 'true', params: [] };
}

/** Everything the report needs, as plain rows. */
export async function loadReportData(client, sel) {
  const w = where(sel);
  const overview = (await client.query(
    `SELECT * FROM report_round_overview WHERE ${w.sql} ORDER BY round_id`, w.params)).rows;
  const ids = overview.map((r) => r.round_id);
  const split = (await client.query(
    'SELECT * FROM report_round_latency_split WHERE round_id = ANY($1::bigint[]) ORDER BY round_id', [ids])).rows;
  const experiments = [...new Set(overview.map((r) => r.experiment).filter(Boolean))];
  const efficiency = (await client.query(
    'SELECT * FROM report_scaling_efficiency WHERE experiment = ANY($1::text[]) ORDER BY experiment, app, variant, app_instances',
    [experiments])).rows;
  return { overview, split, efficiency };
}
