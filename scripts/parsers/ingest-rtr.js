#!/usr/bin/env node
'use strict';
// ingest-rtr.js — `cf logs APP` output on stdin → router_timings, and the cell's SIGTERM of
// each stopped instance → instance_events (cell-parser.js: the round's scale-in and rolling
// deployments read when each instance was signalled).
//
// Usage: RESULTS_DATABASE_URL=URL node scripts/parsers/ingest-rtr.js --round ID --app APP --platform local|cf
//   stdin: `cf logs APP` (streaming or --recent; either platform). Only [RTR/N] access
//   lines and [CELL/N] stopping lines count; everything else is ignored. A record whose
//   vcap_request_id is already stored is dropped (ON CONFLICT DO NOTHING), so re-reading
//   `--recent` output is harmless. Written in batches; all read lines are written on EOF
//   or SIGTERM. Counts go to stderr at exit.

const { parseRtrLine } = require('./rtr-parser');
const { parseCellStopLine } = require('./cell-parser');
const cli = require('./ingest-cli');

const USAGE = 'Usage: RESULTS_DATABASE_URL=URL node scripts/parsers/ingest-rtr.js --round ID --app APP --platform local|cf  (`cf logs APP` on stdin)';

const COLUMNS = [
  'round_id', 'platform', 'app', 'at', 'method', 'path', 'status', 'bytes_sent',
  'response_time_us', 'gorouter_time_us', 'app_index', 'instance_id', 'vcap_request_id', 'correlation_id',
];
const EVENT_COLUMNS = ['round_id', 'platform', 'app', 'instance_index', 'at', 'kind', 'detail'];
const MAX_LINE_CHARS = 1024 * 1024; // a longer "line" is junk: dropped, the stream goes on

async function main(log) {
  const opts = cli.parseArgs(process.argv.slice(2), { usage: USAGE });
  const db = await cli.connect(opts.db, log);
  const writer = new cli.BatchWriter({ db, table: 'router_timings', columns: COLUMNS, log });
  const stops = new cli.BatchWriter({ db, table: 'instance_events', columns: EVENT_COLUMNS, log });
  const counts = { lines: 0, records: 0, stops: 0, ignored: 0, tooLong: 0 };
  let partial = '';
  const tag = { round_id: opts.round, platform: opts.platform, app: opts.app };
  const onLine = (line) => {
    counts.lines++;
    const row = parseRtrLine(line);
    if (row) {
      counts.records++;
      writer.add({ ...row, ...tag });
      return;
    }
    const stop = parseCellStopLine(line);
    if (stop) {
      counts.stops++;
      stops.add({ ...stop, ...tag });
      return;
    }
    counts.ignored++;
  };
  cli.flushTimer(writer);
  cli.flushTimer(stops);
  await cli.readInput((text) => {
    const lines = (partial + text).split('\n');
    partial = lines.pop();
    if (partial.length > MAX_LINE_CHARS) {
      partial = '';
      counts.tooLong++;
    }
    lines.forEach(onLine);
  });
  if (partial !== '') onLine(partial);
  return cli.finalFlush([writer, stops], db, log, () =>
    `${counts.lines} lines, ${counts.records} router records, ${counts.stops} instance stops, ${counts.ignored} other lines ignored` +
    `${counts.tooLong ? `, ${counts.tooLong} over-long lines dropped` : ''}`);
}

cli.runMain('ingest-rtr', main).then((code) => process.exit(code));
