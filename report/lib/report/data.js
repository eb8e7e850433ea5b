// data.js — read what the report shows from the report views of results-schema.sql.
// A selection is either explicit round ids or an experiment name (rounds.experiment or
// the plan name inside an exp: label); with neither, every round. Given the plan, rounds
// of it recorded under other parameters than it gives now are left out (stale).
'use strict';
const { judgeRounds, ROUND_COLUMNS } = require('../../../plans/spec-match.js');
const { parseCpuList } = require('../../../lib/cpu-list.js');
const { loadSteadyData, markSuperseded } = require('./steady-data.js');
const { loadEventData } = require('./event-data.js');

/** "3,5,10-12" → [3, 5, 10, 11, 12]; throws on anything else. */
function parseRoundList(text) {
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

// Per round, beside the views:
// - cpu_entitled_cores: CF, the CPU the instances are entitled to, in cores (v3 stats'
//   cpu_entitlement is the fraction of it used, docs/cf-platform.md §7), summed over the
//   instances, mean over the measured window; NULL where the stats carry none (local, plugin);
// - app_hosts, loadgen_hosts: placement, the cells the app instances and the loadgens ran
//   on (instance_stats.host, loadgen_runs.host: docs/cf-platform.md §4).
const ROUND_EXTRA_SQL = `SELECT
    (SELECT sum(e) FROM (
       SELECT avg(s.cpu / s.cpu_entitlement) AS e
         FROM rounds r JOIN instance_stats s ON s.round_id = r.id AND s.app = r.app
        WHERE r.id = $1 AND s.cpu_entitlement > 0 AND s.sampled_at >= round_measured_from(r)
        GROUP BY s.instance_index) x) AS cpu_entitled_cores,
    (SELECT array_agg(DISTINCT s.host ORDER BY s.host) FROM rounds r JOIN instance_stats s ON s.round_id = r.id AND s.app = r.app
      WHERE r.id = $1 AND s.host IS NOT NULL) AS app_hosts,
    (SELECT array_agg(DISTINCT host ORDER BY host) FROM loadgen_runs WHERE round_id = $1 AND host IS NOT NULL) AS loadgen_hosts`;

/**
 * A local round's host CPU count: run-round read it with nproc from inside the harness's cell
 * (one CPU of two), so the cells' CPUs, when recorded, count too.
 */
function withHostCpus(r) {
  const cells = r.environment?.cells;
  if (r.platform !== 'local' || !cells?.sut_cpus || !cells?.harness_cpus) return r;
  const all = new Set([...parseCpuList(cells.sut_cpus), ...parseCpuList(cells.harness_cpus)]).size;
  if (Number(r.environment.host_cpus) >= all) return r;
  return { ...r, environment: { ...r.environment, host_cpus: all } };
}

/** The rounds rows (ROUND_COLUMNS) of a selection, ascending by id. */
async function selectedRounds(client, sel) {
  return (await selectedRoundRows(client, sel)).map(withHostCpus);
}

async function selectedRoundRows(client, sel) {
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
async function loadReportData(client, sel) {
  const overview = [];
  const split = [];
  const series = { seconds: [], instances: [] };
  const events = { events: [], stages: [], traffic: [] };
  const rows = await selectedRounds(client, sel);
  const { current, stale } = sel.plan ? judgeRounds(rows, sel.plan) : { current: rows, stale: [] };
  for (const { id, keepalive, plan } of current) {
    // Keep-alive and the TLS front proxies the loadgens went through (keepalive-chart.js).
    const extra = { keepalive, front_proxies: Number(plan?.front_proxies ?? 0) };
    overview.push(...(await client.query('SELECT * FROM report_round_overview WHERE round_id = $1', [id])).rows.map((o) => withHostCpus({ ...o, ...extra })));
    split.push(...(await client.query('SELECT * FROM report_round_latency_split WHERE round_id = $1', [id])).rows);
    await loadSteadyData(client, id, overview, series);
    await loadEventData(client, id, events);
    const row = overview.find((r) => Number(r.round_id) === Number(id));
    if (row) Object.assign(row, (await client.query(ROUND_EXTRA_SQL, [id])).rows[0]);
  }
  markSuperseded(overview);
  const outcomes = await loadOutcomes(client, [...new Set(overview.map((r) => r.experiment).filter(Boolean))]);
  return { overview, split, stale, series, outcomes, events };
}

/**
 * The newest conclusion of each adaptive procedure of these experiments (experiment_outcomes:
 * scale-until-SLO stops, capacity per instance count).
 */
async function loadOutcomes(client, experiments) {
  if (!experiments.length) return [];
  const { rows } = await client.query(
    `SELECT DISTINCT ON (experiment, kind, app, variant, CASE WHEN kind = 'capacity' THEN instances END)
            experiment, platform, kind, app, variant, instances, loadgens, stop, capacity_rps, confirmed, reason, recorded_at
       FROM experiment_outcomes WHERE experiment = ANY($1)
      ORDER BY experiment, kind, app, variant, CASE WHEN kind = 'capacity' THEN instances END, recorded_at DESC, id DESC`, [experiments]);
  return rows;
}

/** One line on the rounds left out as stale (null without a plan). */
function staleLine(plan, stale) {
  if (!plan) return null;
  const head = `checked against plan ${plan.name}: ${stale.length} stale round(s) ignored (same label, recorded under other parameters than the plan gives now)`;
  if (!stale.length) return head;
  const ids = stale.map((s) => s.row.id);
  const shown = ids.length > 20 ? `${ids.slice(0, 20).join(', ')}, …` : ids.join(', ');
  return `${head}: round ${shown}; round ${ids[0]}: ${stale[0].mismatches.join('; ')}`;
}

module.exports = { parseRoundList, loadReportData, staleLine };
