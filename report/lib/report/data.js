// data.js — read what the report shows from the report views of results-schema.sql.
// A selection is either explicit round ids or an experiment name (rounds.experiment or
// the plan name inside an exp: label); with neither, every round. Given the plan, rounds
// of it recorded under other parameters than it gives now are left out (stale).
import { judgeRounds, ROUND_COLUMNS } from '../experiment/spec-match.js';
import { loadSteadyData, markSuperseded } from './steady-data.js';

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

/** The rounds rows (ROUND_COLUMNS) of a selection, ascending by id. */
async function selectedRounds(client, sel) {
  if (sel.rounds) {
    return (await client.query(`SELECT ${ROUND_COLUMNS} FROM rounds WHERE id = ANY($1::bigint[]) ORDER BY id`, [sel.rounds])).rows;
  }
  if (sel.experiment) {
    return (await client.query(
      `SELECT ${ROUND_COLUMNS} FROM rounds
        WHERE experiment = $1 OR (experiment IS NULL AND label LIKE 'exp:%' AND split_part(label, ':', 2) = $1)
        ORDER BY id`, [sel.experiment])).rows;
  }
  return (await client.query(`SELECT ${ROUND_COLUMNS} FROM rounds ORDER BY id`)).rows;
}

/**
 * Everything the report needs, as plain rows. With sel.plan, rounds of that plan recorded
 * under other parameters than it gives now are left out (spec-match.js) and returned as
 * `stale` [{row, mismatches}]. The views are asked one round at a time: PostgreSQL pushes
 * `round_id = <value>` into their per-round aggregates (index scans), where a list or an
 * experiment filter would aggregate every round in the database.
 */
export async function loadReportData(client, sel) {
  const overview = [];
  const split = [];
  const series = { seconds: [], instances: [] };
  const rows = await selectedRounds(client, sel);
  const { current, stale } = sel.plan ? judgeRounds(rows, sel.plan) : { current: rows, stale: [] };
  for (const { id, keepalive, plan } of current) {
    // Keep-alive and the TLS front proxies the loadgens went through (keepalive-chart.js).
    const extra = { keepalive, front_proxies: Number(plan?.front_proxies ?? 0) };
    overview.push(...(await client.query('SELECT * FROM report_round_overview WHERE round_id = $1', [id])).rows.map((o) => ({ ...o, ...extra })));
    split.push(...(await client.query('SELECT * FROM report_round_latency_split WHERE round_id = $1', [id])).rows);
    await loadSteadyData(client, id, overview, series);
  }
  markSuperseded(overview);
  return { overview, split, stale, series };
}

/** One line on the rounds left out as stale (null without a plan). */
export function staleLine(plan, stale) {
  if (!plan) return null;
  const head = `checked against plan ${plan.name}: ${stale.length} stale round(s) ignored (same label, recorded under other parameters than the plan gives now)`;
  if (!stale.length) return head;
  const ids = stale.map((s) => s.row.id);
  const shown = ids.length > 20 ? `${ids.slice(0, 20).join(', ')}, …` : ids.join(', ');
  return `${head}: round ${shown}; round ${ids[0]}: ${stale[0].mismatches.join('; ')}`;
}
