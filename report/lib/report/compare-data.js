// compare-data.js — the two sets of rounds `scripts/compare.sh` compares: a selection (round
// ids, a label, or an experiment point) → the done rounds it names, each with the per-round
// figures compare prints (results-schema.sql report_round_overview), loaded as the report loads
// them (data.js) and judged by the same validity flags (validity.js): a round the study page
// leaves out is left out here too, unless asked for (--all).
'use strict';
const { loadReportData } = require('./data.js');
const { roundFlags, trusted } = require('./validity.js');

// [key, what compare prints, unit, how to read it from a report_round_overview row]
const COMPARE_METRICS = [
  ['throughput', 'throughput', 'req/s', (r) => r.throughput_rps],
  ['p50', 'p50 latency', 'ms', (r) => (r.p50_us === null ? null : r.p50_us / 1000)],
  ['p99', 'p99 latency', 'ms', (r) => (r.p99_us === null ? null : r.p99_us / 1000)],
  ['cpu-per-request', 'CPU per request', 'ms', (r) => (r.cpu_used_cores === null || !(r.throughput_rps > 0) ? null : (1000 * r.cpu_used_cores) / r.throughput_rps)],
].map(([key, title, unit, read]) => ({ key, title, unit, read }));

const IDS = /^\s*\d+(\s*-\s*\d+)?(\s*,\s*\d+(\s*-\s*\d+)?)*\s*$/;

/** "3,5,10-12" → [3, 5, 10, 11, 12]; throws on a backwards or huge range. */
function parseIds(text) {
  const ids = [];
  for (const part of text.split(',')) {
    const [a, b = a] = part.split('-').map((x) => Number(x.trim()));
    if (b < a || b - a > 100_000) throw new Error(`range ${part.trim()} is backwards or too long`);
    for (let i = a; i <= b; i++) ids.push(i);
  }
  return ids;
}

const likeEscape = (s) => s.replace(/[\\%_]/g, (c) => `\\${c}`);

/**
 * What a selection means: round ids ("3,5,10-12"), else a label or a label prefix up to a
 * ':' (exp:pool-size:java-app:pool30:i1:l2:p4 takes its repetitions), else an experiment
 * point (pool-size:java-app:pool30:i1:l2:p4, the same with exp: implied).
 */
function selectionQuery(sel) {
  if (IDS.test(sel)) return { text: "SELECT id FROM rounds WHERE id = ANY($1::bigint[]) AND status = 'done' ORDER BY id", values: [parseIds(sel)] };
  const labels = [sel, `exp:${sel}`];
  return {
    text: `SELECT id FROM rounds WHERE status = 'done'
             AND (label = ANY($1) OR label LIKE $2 ESCAPE '\\' OR label LIKE $3 ESCAPE '\\') ORDER BY id`,
    values: [labels, `${likeEscape(labels[0])}:%`, `${likeEscape(labels[1])}:%`],
  };
}

/**
 * The done rounds a selection names, with their figures: {ids, rows, left}. rows: the trusted
 * ones (every one with all); left: [{id, why}] the rounds a bad validity flag left out.
 */
async function loadSelection(client, sel, { all = false } = {}) {
  const ids = (await client.query(selectionQuery(sel))).rows.map((r) => Number(r.id));
  const { overview } = ids.length ? await loadReportData(client, { rounds: ids }) : { overview: [] };
  const rows = [];
  const left = [];
  for (const r of overview) {
    const flags = roundFlags(r);
    if (all || trusted(flags)) rows.push(r);
    else left.push({ id: Number(r.round_id), why: flags.filter((f) => f.severity === 'bad').map((f) => f.text).join('; ') });
  }
  return { ids, rows, left };
}

/** The per-round values of a metric over rows (non-finite left out). */
function metricValues(rows, metric) {
  return rows.map(metric.read).filter((v) => v !== null && v !== undefined && Number.isFinite(v));
}

module.exports = { COMPARE_METRICS, parseIds, selectionQuery, loadSelection, metricValues };
