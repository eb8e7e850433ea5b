#!/usr/bin/env node
// study-fixture.js (test helper) — a small stored sample of real rounds of the study, for the
// test of `report.sh --study` (study-page.test.js): every row of the study's rounds, their
// loadgens, stats and events; of their requests one in SAMPLE_EVERY (enough that every round
// keeps the samples a trusted round needs), and the router's and the app's timings of one in
// TIMINGS_EVERY of those, chosen by correlation id. Real figures, thinned; nothing planted.
// Made once from a results database after `run-experiment.sh --study`:
//   node report/test/helpers/study-fixture.js --from URL [--out FILE]
// loadFixture(client, file) puts it into a database that has results-schema.sql.
'use strict';
const fs = require('node:fs');
const path = require('node:path');
const zlib = require('node:zlib');
const pg = require('pg');
const { parseCommand, REQUIRED, cliExitCode } = require('../../../lib/arg-table.js');

// Where makeFixture writes a new run by default.
const FIXTURE = path.join(__dirname, '..', 'fixtures', 'study-rounds.json.gz');
// A stored run of 2 rounds a point, and the plans it was made under, kept beside it: the page
// renders every section from it (study-page.test.js, report.sh --study --plans), and the
// verdict engine calls its groups inconclusive (claims.test.js).
const FIXTURE_2026_11_26 = path.join(__dirname, '..', 'fixtures', 'study-rounds-2026-11-26.json.gz');
const FIXTURE_PLANS_2026_11_26 = path.join(__dirname, '..', 'fixtures', 'study-plans-2026-11-26');
const SAMPLE_EVERY = 200;
const TIMINGS_EVERY = 1000; // a multiple of SAMPLE_EVERY: the timings' requests are in the sample
const sampled = (column, every) => `abs(hashtext(${column})) % ${every} = 0`;

// [table, the rows of the study's rounds ($1: their ids; for the outcomes, the plans' names)] in the order they load.
const TABLES = [
  ['rounds', 'SELECT * FROM rounds WHERE id = ANY($1) ORDER BY id'],
  ['loadgen_runs', 'SELECT * FROM loadgen_runs WHERE round_id = ANY($1)'],
  ['instance_stats', 'SELECT * FROM instance_stats WHERE round_id = ANY($1)'],
  ['instance_events', 'SELECT * FROM instance_events WHERE round_id = ANY($1)'],
  ['requests', `SELECT * FROM requests WHERE round_id = ANY($1) AND ${sampled('correlation_id::text', SAMPLE_EVERY)}`],
  ['server_timings', `SELECT * FROM server_timings WHERE round_id = ANY($1) AND ${sampled('correlation_id', TIMINGS_EVERY)}`],
  ['router_timings', `SELECT * FROM router_timings WHERE round_id = ANY($1) AND ${sampled('correlation_id', TIMINGS_EVERY)}`],
  ['experiment_outcomes', 'SELECT * FROM experiment_outcomes WHERE experiment = ANY($1)'],
];

async function makeFixture(url, out, experiments) {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query(`SELECT id FROM rounds WHERE status = 'done' AND experiment = ANY($1)`, [experiments]);
    const ids = rows.map((r) => r.id);
    // Per table its column names once and each row as an array: a third of the size.
    const doc = {};
    for (const [table, sql] of TABLES) {
      const res = await client.query({ text: sql, values: [table === 'experiment_outcomes' ? experiments : ids], rowMode: 'array' });
      doc[table] = { columns: res.fields.map((f) => f.name), rows: res.rows };
    }
    fs.writeFileSync(out, zlib.gzipSync(JSON.stringify(doc), { level: 9 }));
    return Object.fromEntries(Object.entries(doc).map(([t, d]) => [t, d.rows.length]));
  } finally {
    await client.end();
  }
}

/** Load the fixture into client's database (results-schema.sql applied): { table: rows }. */
async function loadFixture(client, file = FIXTURE) {
  const doc = JSON.parse(zlib.gunzipSync(fs.readFileSync(file)).toString('utf8'));
  const counts = {};
  for (const [table] of TABLES) {
    const { columns = [], rows = [] } = doc[table] ?? {};
    const objects = rows.map((r) => Object.fromEntries(columns.map((c, i) => [c, r[i]])));
    if (objects.length) await client.query(`INSERT INTO ${table} SELECT * FROM json_populate_recordset(NULL::${table}, $1)`, [JSON.stringify(objects)]);
    counts[table] = objects.length;
  }
  // Ids came with the rows: the sequence goes past them.
  await client.query("SELECT setval(pg_get_serial_sequence('rounds', 'id'), (SELECT max(id) FROM rounds))");
  return counts;
}

if (require.main === module) {
  let o;
  try {
    o = parseCommand('study-fixture', process.argv.slice(2), {
      usage: 'Usage: node report/test/helpers/study-fixture.js --from URL [--out FILE]',
      about: 'Store a thinned sample of the study\'s real rounds for the report\'s --study test.',
      rows: [
        ['--from URL', 'from', 'str', REQUIRED, 'the results database the study ran into'],
        ['--out FILE', 'out', 'str', path.relative(process.cwd(), FIXTURE), 'the fixture file (gzipped JSON)'],
      ],
    });
  } catch (err) {
    process.exit(cliExitCode(err));
  }
  const { inStudy, shippedPlans } = require('../../../plans/shipped.js');
  const experiments = shippedPlans('local').map((e) => e.plan).filter(inStudy).map((p) => p.name);
  makeFixture(o.from, o.out, experiments).then((n) => {
    process.stderr.write(`study-fixture: ${JSON.stringify(n)} → ${o.out} (${fs.statSync(o.out).size} bytes)\n`);
  }, (e) => { process.stderr.write(`study-fixture: ${e.message}\n`); process.exit(1); });
}

module.exports = { loadFixture, makeFixture, FIXTURE, FIXTURE_2026_11_26, FIXTURE_PLANS_2026_11_26, SAMPLE_EVERY, TIMINGS_EVERY };
