#!/usr/bin/env node
'use strict';
// ingest-stats.js — stats JSON on stdin → instance_stats.
//
// Usage: RESULTS_DATABASE_URL=URL node scripts/parsers/ingest-stats.js --round ID --app APP --platform local|cf
//   stdin: `cf statistics APP --debug --full` lines and/or whole
//   `cf curl /v3/apps/GUID/processes/web/stats` documents, pretty-printed or not, in any
//   mix, with junk lines in between (see json-stream.js, stats-parser.js).
// Repeated samples are dropped (StatsDeduper) and the table's unique key drops the rest
// (ON CONFLICT DO NOTHING). Rows are written in batches while reading; everything read
// is written on EOF or SIGTERM. Counts go to stderr at exit.

const { JsonStream } = require('./json-stream');
const { statsRows, StatsDeduper } = require('./stats-parser');
const cli = require('./ingest-cli');

const USAGE = 'Usage: RESULTS_DATABASE_URL=URL node scripts/parsers/ingest-stats.js --round ID --app APP --platform local|cf  (stats JSON on stdin)';

const COLUMNS = [
  'round_id', 'platform', 'app', 'instance_index', 'sampled_at', 'state', 'cpu',
  'cpu_entitlement', 'mem_bytes', 'mem_quota_bytes', 'cpu_quota_cores', 'disk_bytes',
  'disk_quota_bytes', 'uptime_s', 'source', 'cpu_periods', 'cpu_throttled_periods', 'cpu_throttled_us', 'host',
];

async function main(log) {
  const opts = cli.parseArgs(process.argv.slice(2), { usage: USAGE });
  const db = await cli.connect(opts.db, log);
  const writer = new cli.BatchWriter({ db, table: 'instance_stats', columns: COLUMNS, log });
  const dedupe = new StatsDeduper();
  const counts = { rows: 0, repeats: 0, skipped: 0 };
  const stream = new JsonStream((value) => {
    const { rows, skipped } = statsRows(value, { platform: opts.platform, readAt: new Date() });
    counts.skipped += skipped.length;
    for (const row of rows) {
      counts.rows++;
      if (!dedupe.keep(row)) {
        counts.repeats++;
        continue;
      }
      writer.add({ ...row, round_id: opts.round, platform: opts.platform, app: opts.app });
    }
  });
  cli.flushTimer(writer);
  await cli.readInput((text) => stream.write(text));
  stream.end();
  const c = stream.counts;
  return cli.finalFlush(writer, db, log, () =>
    `${c.values} JSON values, ${c.junkLines} junk lines, ${c.brokenValues} broken values; ` +
    `${counts.rows} samples, ${counts.repeats} repeats dropped, ${counts.skipped} entries skipped`);
}

cli.runMain('ingest-stats', main).then((code) => process.exit(code));
