#!/usr/bin/env node
'use strict';
// timings-flush.js — what the idempotent flush (one transaction per batch with its
// flush id in server_timings_flushes, timings-flusher.js) costs beside a bare COPY per batch
// in autocommit, on the same records, the same database, alternating, in one run. Run on
// demand, not in tests: node bench/apps/timings-flush.js [--rows N] [--reps N]
// (CFSCALE_TEST_PG_URL or the tests' own cluster).

const { parseCommand, cliExitCode } = require('../../lib/arg-table');

const pg = require('../../node-app/node_modules/pg');
const t = require('../../node-app/test-support');
const { TimingBuffer, ROUTE_LIST_ADS } = require('../../node-app/timing-buffer');
const { createTimingsService, copyTimings, FLUSH_BATCH_ROWS } = require('../../node-app/timings-flusher');
const { connectionFromUrl, pgConfig } = require('../../node-app/bindings');

const COMMAND = {
  usage: 'Usage: node bench/apps/timings-flush.js [--rows N] [--reps N]',
  rows: [
    ['--rows N', 'rows', 'count', 100000, 'timing records flushed per run', [1]],
    ['--reps N', 'reps', 'int', 5, 'alternating repetitions of both ways', [1]],
  ],
};
let rows;
let reps;
try {
  ({ rows, reps } = parseCommand('timings-flush', process.argv.slice(2), COMMAND));
} catch (err) {
  process.exit(cliExitCode(err));
}

function fill(b, n) {
  for (let i = 0; i < n; i++) b.record(`00000000-0000-4000-8000-${String(i).padStart(12, '0')}`, ROUTE_LIST_ADS, 200, 1.7e15 + i, 1234, 56, 789);
  return b;
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

async function main() {
  const url = await t.db.create('bench_flush', { results: true });
  try {
    const bare = [];
    const idem = [];
    async function bareCopy() {
      const b1 = fill(new TimingBuffer(rows, true), rows);
      const c = new pg.Client(pgConfig(connectionFromUrl(url, 'bench')));
      await c.connect();
      const t0 = process.hrtime.bigint();
      for (let i = 0; i < rows; i += FLUSH_BATCH_ROWS) {
        await copyTimings(c, b1, i, Math.min(i + FLUSH_BATCH_ROWS, rows), { round: 1, app: 'bench', instanceIndex: 0 });
      }
      bare.push(Number(process.hrtime.bigint() - t0) / 1e6);
      await c.end();
    }
    async function idempotentFlush() {
      const b2 = new TimingBuffer(rows, true);
      const s = createTimingsService({ buffer: b2, results: connectionFromUrl(url, 'bench'), appName: 'bench', instanceIndex: 0, connectTimeoutMs: 5000 });
      await s.run('flush', 2); // nothing to write: connects the pool, as the bare side connects outside its timing
      fill(b2, rows);
      const t0 = process.hrtime.bigint();
      const res = await s.run('flush', 2);
      idem.push(Number(process.hrtime.bigint() - t0) / 1e6);
      if (res.flushed !== rows) throw new Error(`flush answered ${JSON.stringify(res)}`);
      await s.end();
    }
    // Each into an empty table, the order alternating: neither side pays for the other's rows.
    for (let r = 0; r < reps; r++) {
      for (const run of r % 2 === 0 ? [bareCopy, idempotentFlush] : [idempotentFlush, bareCopy]) {
        await run();
        await t.db.query(url, 'TRUNCATE server_timings, server_timings_flushes');
      }
    }
    const a = median(bare);
    const b = median(idem);
    console.log(`${rows} rows, median of ${reps}: bare COPY per batch ${a.toFixed(0)} ms, idempotent flush ${b.toFixed(0)} ms, ratio ${(b / a).toFixed(2)}`);
  } finally {
    await t.db.drop(url);
    t.db.stopOwnCluster();
  }
}

main().catch((err) => {
  console.error(`timings-flush.bench: ${err.message}`);
  process.exit(1);
});
