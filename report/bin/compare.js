#!/usr/bin/env node
// compare.js — entry point of scripts/compare.sh: two sets of rounds compared by the verdict
// engine (lib/verdict.js), a row per metric as benchstat prints them: A's mean ± its 95 % CI,
// B's, B/A − 1 with its 95 % CI, and same / different / unknown with the engine's reason.
// With --simulate, the engine's false-alarm rate and power on the spread of --a's rounds
// (lib/verdict-sim.js) and the round count they recommend.
'use strict';
const { parseCommand, note, REQUIRED, CliError, cliExitCode } = require('../../lib/arg-table.js');
const { connectionFromUrl } = require('../../lib/bindings.js');
const { summarize } = require('../../lib/inference.js');
const { resultsUrl } = require('../../lib/results-db-url.js');
const { sameOrDifferent, MIN_ROUNDS } = require('../../lib/verdict.js');
const { roundsNeeded, roundsNeededText } = require('../../lib/rounds-needed.js');
const { simulate, recommend, SIM_ROUNDS, MAX_FALSE_ALARM, MIN_POWER } = require('../../lib/verdict-sim.js');
const { COMPARE_METRICS, loadSelection, metricValues } = require('../lib/report/compare-data.js');
const { connect } = require('../lib/report/results-db.js');

const SEL = 'round ids (3,5,10-12), a label or label prefix, or an experiment point (plan:app:variant:iK:lL:pP, exp: implied)';
const COMMAND = {
  usage: 'Usage: scripts/compare.sh --a SEL --b SEL [--all] [--db URL] [--platform local|cf]\n       scripts/compare.sh --a SEL --simulate [--metric M] [--trials N] [--shift X] [--seed N]',
  about: 'Compare two sets of rounds metric by metric (throughput, p50, p99, CPU per request): the verdict engine says same '
    + '(equivalent within ±10 %), different (the 95 % CI of B/A − 1 leaves out 0) or unknown, and why. The round is the unit: '
    + `a side with fewer than ${MIN_ROUNDS} trusted rounds, or a CI wider than ±10 % of its mean, is unknown. A round with a bad `
    + 'validity flag (never steady in its window, a saturated generator or harness, ...: report/README.md) is left out and '
    + 'named, as the study page does, unless --all.',
  rows: [
    ['--a SEL', 'a', 'str', REQUIRED, `rounds A: ${SEL}`],
    ['--b SEL', 'b', 'str', note('required unless --simulate'), 'rounds B, as --a'],
    ['--all', 'all', 'bool', false, 'keep the rounds a bad validity flag would leave out'],
    ['--db URL', 'db', 'str', note('CFSCALE_RESULTS_URL, else RESULTS_DATABASE_URL, else on local the report\'s service key on results-db'),
      'results database, without a password (it would show in the process list: put it in the environment)'],
    ['--platform P', 'platform', 'str', 'local', 'where to look for the results database when --db is not given', ['local', 'cf']],
    ['--simulate', 'simulate', 'bool', false, `from --a's per-round values: the false-alarm rate (two sets drawn from one) and the power against `
      + `a planted shift at n = ${SIM_ROUNDS.join(', ')}, and the round count to run`],
    ['--metric M', 'metric', 'str', 'throughput', 'the metric --simulate draws', COMPARE_METRICS.map((m) => m.key)],
    ['--trials N', 'trials', 'int', 2000, 'draws per n (--simulate)', [100, 1_000_000]],
    ['--shift X', 'shift', 'num', 0.15, 'the planted relative change (--simulate)', [0.01, 10]],
    ['--seed N', 'seed', 'int', 1, 'the draws\' seed (--simulate)', [0, 2 ** 31]],
  ],
  notes: 'Exit: 0 ok (whatever the verdicts), 1 usage or configuration (also: a selection matched no done round, the database '
    + 'cannot be reached), 2 failure.',
  width: 100,
};

function die(msg, code = 1) {
  process.stderr.write(`compare: ${msg}\n`);
  process.exit(code);
}

/** The database's URL, checked; never with a password typed on the command line. */
async function database(o) {
  const parse = (url, what) => { try { return connectionFromUrl(url, what); } catch (e) { return die(e.message); } };
  if (o.db && parse(o.db, '--db').password) {
    die('--db must not carry a password (the process list shows it): set RESULTS_DATABASE_URL or CFSCALE_RESULTS_URL instead');
  }
  const url = await resultsUrl({ db: o.db, platform: o.platform });
  if (!url) die('no results database: set RESULTS_DATABASE_URL (or CFSCALE_RESULTS_URL), or pass --db URL');
  parse(url, 'the results database URL');
  return url;
}

const fmt = (x) => (Math.abs(x) >= 100 ? x.toFixed(0) : Math.abs(x) >= 10 ? x.toFixed(1) : x.toFixed(2));
const signed = (x) => `${x >= 0 ? '+' : '−'}${(100 * Math.abs(x)).toFixed(1)} %`;

/** "1,234 ± 45 (n = 5)": a side's mean and 95 % CI half-width. */
function sideText(values) {
  const s = summarize(values);
  if (!s.n) return 'no value';
  return `${fmt(s.mean)} ± ${s.n >= 2 ? fmt(s.halfWidth) : '?'} (n = ${s.n})`;
}

const kept = (side) => side.rows.map((r) => r.round_id).join(', ') || 'none';

/** A line per round a validity flag left out of a side. */
function leftLines(name, side) {
  return side.left.map((l) => `${name}: round ${l.id} left out: ${l.why}\n`).join('');
}

function table(rows) {
  const widths = rows[0].map((_, i) => Math.max(...rows.map((r) => r[i].length)));
  return rows.map((r) => r.map((c, i) => (i === r.length - 1 ? c : c.padEnd(widths[i]))).join('  ')).join('\n');
}

/** The comparison rows, benchstat's way. */
function compareRows(a, b) {
  const head = ['metric', 'A', 'B', 'B/A − 1 (95 % CI)', 'verdict'];
  const rows = COMPARE_METRICS.map((m) => {
    const va = metricValues(a.rows, m);
    const vb = metricValues(b.rows, m);
    const c = sameOrDifferent({ label: 'A', values: va }, { label: 'B', values: vb });
    const d = Number.isFinite(c.delta.value) ? `${signed(c.delta.value)}${Number.isFinite(c.delta.lo) ? ` (${signed(c.delta.lo)} to ${signed(c.delta.hi)})` : ''}` : '–';
    // Unknown: how many rounds a side the ±10 % test would need at this spread (a projection).
    const n = c.answer === 'unknown' ? roundsNeeded(c) : null;
    const more = n === null || Number.isNaN(n) ? '' : ` (${roundsNeededText(n)} rounds a side would decide it at this spread)`;
    return [`${m.title} (${m.unit})`, sideText(va), sideText(vb), d, `${c.answer}: ${c.reason}${more}`];
  });
  return table([head, ...rows]);
}

function simulationRows(values, o) {
  const rows = simulate(values, { shift: o.shift, trials: o.trials, seed: o.seed });
  const n = recommend(rows);
  const head = ['rounds a side', 'false alarms (same vs same)', `power (a ${(100 * o.shift).toFixed(0)} % shift)`, 'called the same (same vs same)'];
  const pct = (x) => `${(100 * x).toFixed(1)} %`;
  return `${table([head, ...rows.map((r) => [String(r.n), pct(r.falseAlarm), pct(r.power), pct(r.same)])])}\n`
    + `recommended: ${n === null ? `more than ${SIM_ROUNDS[SIM_ROUNDS.length - 1]} rounds a side (no n here has`
      : `${n} rounds a side (the fewest with`} false alarms ≤ ${pct(MAX_FALSE_ALARM)} and power ≥ ${pct(MIN_POWER)})`;
}

async function main() {
  const o = parseCommand('compare', process.argv.slice(2), COMMAND);
  if (!o.simulate && !o.b) die('--b is required (or --simulate)');
  if (o.simulate && o.b) die('--simulate takes --a only: it draws both sets from its rounds');
  const url = await database(o);
  let client;
  try { client = await connect(url, 'compare'); } catch (e) { die(`cannot reach the results database: ${e.message}`); }
  try {
    const a = await loadSelection(client, o.a, o);
    if (!a.ids.length) die(`--a ${o.a} matches no done round`);
    if (o.simulate) {
      const values = metricValues(a.rows, COMPARE_METRICS.find((m) => m.key === o.metric));
      if (values.length < 2) die(`--a ${o.a}: ${values.length} round(s) with a ${o.metric} value; --simulate needs at least 2`);
      process.stdout.write(`A: ${values.length} round(s) (${kept(a)}), ${o.metric}; ${o.trials} draws per n, seed ${o.seed}\n${leftLines('A', a)}${simulationRows(values, o)}\n`);
      return 0;
    }
    const b = await loadSelection(client, o.b, o);
    if (!b.ids.length) die(`--b ${o.b} matches no done round`);
    process.stdout.write(`A: ${a.rows.length} round(s) (${kept(a)})\nB: ${b.rows.length} round(s) (${kept(b)})\n`
      + `${leftLines('A', a)}${leftLines('B', b)}${compareRows(a, b)}\n`);
    return 0;
  } finally {
    await client.end();
  }
}

main().then((code) => process.exit(code), (e) => (e instanceof CliError ? process.exit(cliExitCode(e)) : die(e.stack || e.message, 2)));
