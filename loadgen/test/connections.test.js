'use strict';
// The connection budget: idle or running, a loadgen worker holds one results-
// database connection, so 96 loadgens and run-round with its collectors (wait-round, the
// steady-state watch, the stats and router-log ingesters: 4 connections in a round) fit a
// service plan of 100. A real cluster with max_connections = 100, 96 real worker processes
// idle, then a short round among 4 of them; pg_stat_activity sampled all along.
const test = require('node:test');
const assert = require('node:assert');
const pg = require('pg');
const { ownCluster, createDatabase, startServer, startWorker, insertRound, waitFor } = require('./helpers');

const MAX_CONNECTIONS = 100;
const LOADGENS = 96;
const ROUND_LOADGENS = 4;
const RUN_ROUND_CONNECTIONS = 4; // wait-round, steady-watch, ingest-stats, ingest-rtr

const LOADGEN_CONNECTIONS_SQL = `
  SELECT count(*)::int AS total,
         count(DISTINCT application_name)::int AS names,
         count(*) FILTER (WHERE application_name !~ '^cfscale-loadgen:[0-9]+:[a-z]+$')::int AS unnamed,
         count(*) FILTER (WHERE application_name LIKE '%:busy')::int AS busy,
         (SELECT count(*)::int FROM pg_stat_activity WHERE backend_type = 'client backend') AS clients
    FROM pg_stat_activity
   WHERE backend_type = 'client backend' AND datname = current_database() AND application_name LIKE 'cfscale-loadgen%'`;

test(`${LOADGENS} workers hold one connection each, idle and in a round: with run-round's ${RUN_ROUND_CONNECTIONS} they fit max_connections = ${MAX_CONNECTIONS}`, async (t) => {
  const cluster = await ownCluster({ maxConnections: MAX_CONNECTIONS });
  const db = await createDatabase(cluster.url);
  const srv = await startServer((req, res) => res.end('ok\n'));
  // Polling every 5 s (the default): 96 idle workers cost the database ~20 queries a second.
  const workers = Array.from({ length: LOADGENS }, (_, i) => startWorker(db, i, { LOADGEN_POLL_MS: '5000' }));
  const clients = [];
  const connect = async () => {
    const c = new pg.Client({ connectionString: db });
    c.on('error', () => {});
    await c.connect();
    clients.push(c);
    return c;
  };
  t.after(async () => {
    await Promise.all(clients.map((c) => c.end().catch(() => {})));
    workers.forEach((w) => w.cleanup());
    await srv.close();
    cluster.destroy();
  });
  const monitor = await connect();
  const sample = async () => (await monitor.query(LOADGEN_CONNECTIONS_SQL)).rows[0];
  const idle = await waitFor(async () => {
    const s = await sample();
    return s.names === LOADGENS && s.total === LOADGENS && s;
  }, 120000, `${LOADGENS} workers connected`);
  assert.deepStrictEqual(idle, { total: LOADGENS, names: LOADGENS, unnamed: 0, busy: 0, clients: LOADGENS + 1 });

  const id = await insertRound(db, { url: srv.url, loadgens: ROUND_LOADGENS, parallel: 2, start_in_ms: 1500, duration_ms: 2000 });
  const seen = [];
  let runs;
  await waitFor(async () => {
    seen.push(await sample());
    const r = await monitor.query("SELECT sent::int FROM loadgen_runs WHERE round_id = $1 AND status = 'done'", [id]);
    runs = r.rows;
    return runs.length === ROUND_LOADGENS;
  }, 30000, 'the round done');
  assert.ok(seen.some((s) => s.busy > 0), 'sampled while the round ran');
  const most = Math.max(...seen.map((s) => s.total));
  assert.strictEqual(most, LOADGENS, `at most ${LOADGENS} loadgen connections while the round ran, saw ${most}`);
  assert.ok(seen.every((s) => s.names === s.total && s.unnamed === 0), 'one connection per instance, all named');
  const [{ n }] = (await monitor.query('SELECT count(*)::int AS n FROM requests WHERE round_id = $1', [id])).rows;
  assert.strictEqual(n, runs.reduce((a, r) => a + r.sent, 0), 'stored = sum(sent)');
  assert.ok(n > 0);

  // What is left is run-round's: the monitor is one of its 4, three more open; the next is refused.
  for (let i = 1; i < RUN_ROUND_CONNECTIONS; i++) await connect();
  await assert.rejects(connect(), (err) => err.code === '53300', 'the 101st connection is refused (too_many_connections)');
});
