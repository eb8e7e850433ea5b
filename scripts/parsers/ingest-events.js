#!/usr/bin/env node
'use strict';
// ingest-events.js — v3 audit_events JSON on stdin → instance_events.
//
// Usage: RESULTS_DATABASE_URL=URL node scripts/parsers/ingest-events.js --round ID --app APP
//          --platform local|cf [--since ISO-TIME]
//   stdin: one or more `cf curl "/v3/audit_events?types=audit.app.process.crash&
//   target_guids=GUID"` documents (pages may simply be concatenated). Crash events become
//   rows, kind oom or crash (audit-parser.js); --since drops older events. An event
//   already stored for the round (same app, index, time, kind) is not stored again, so
//   polling the same window twice is harmless. Counts go to stderr at exit.
// Also a module: ingestEvents(text, opts, log), which run-round calls.

const { JsonStream } = require('./json-stream');
const { auditRows } = require('./audit-parser');
const cli = require('./ingest-cli');
const { CliError } = require('../../lib/arg-table');

const COMMAND = {
  usage: 'Usage: RESULTS_DATABASE_URL=URL node scripts/parsers/ingest-events.js --round ID --app APP --platform local|cf [--since ISO-TIME]',
  about: 'v3 audit_events JSON on stdin -> instance_events.',
  rows: [['--since ISO-TIME', 'since', 'str', undefined, 'drop events older than this']],
};
const { outageToleranceMs } = require('../ops/results-db');

const INSERT_SQL = `
INSERT INTO instance_events (round_id, platform, app, instance_index, at, kind, detail)
SELECT $1, $2, $3, $4, $5, $6, $7
WHERE NOT EXISTS (
  SELECT 1 FROM instance_events
  WHERE round_id = $1 AND app = $3 AND instance_index IS NOT DISTINCT FROM $4
    AND at = $5 AND kind = $6)`;

/**
 * Audit-event documents (text: one or more JSON documents) → instance_events of round
 * opts.round ({ db, round, app, platform, since }); counts and failures are lines through
 * log. Resolves to the rows inserted; rejects when the rows cannot be stored (nothing
 * half-stored matters: an event already stored is not stored again).
 */
async function ingestEvents(text, opts, log) {
  const rows = [];
  const counts = { documents: 0, skipped: 0, bad: 0 };
  const stream = new JsonStream((doc) => {
    try {
      const r = auditRows(doc, { since: opts.since });
      counts.documents++;
      counts.skipped += r.skipped;
      rows.push(...r.rows);
    } catch (err) {
      counts.bad++;
      log(err.message);
    }
  });
  stream.write(text);
  stream.end();
  // Each statement is retried while the database is away (it stores an event once).
  const db = await cli.openConnection(opts.db, log, { retryForMs: outageToleranceMs() });
  let inserted = 0;
  try {
    for (const r of rows) {
      const res = await db.query(INSERT_SQL, [opts.round, opts.platform, opts.app,
        r.instance_index, r.at, r.kind, r.detail]);
      inserted += res.rowCount;
    }
  } catch (err) {
    throw new Error(`insert into instance_events failed: ${err.message}; NOT WRITTEN ${rows.length - inserted}`);
  } finally {
    await db.end();
  }
  log(`${counts.documents} documents (${counts.bad} not audit_events, ${stream.counts.junkLines} junk lines); ` +
    `${rows.length} crash events, ${counts.skipped} other events skipped; inserted ${inserted}, already in db ${rows.length - inserted}`);
  return inserted;
}

async function main(log) {
  const opts = cli.parseArgs(process.argv.slice(2), COMMAND);
  if (opts.since !== undefined && Number.isNaN(Date.parse(opts.since))) {
    throw new cli.UsageError(`--since must be an ISO time, got "${opts.since}"`);
  }
  let text = '';
  await cli.readInput((t) => { text += t; });
  try {
    await ingestEvents(text, opts, log);
  } catch (err) {
    if (err instanceof CliError) throw err;
    log(err.message);
    return 2;
  }
  return 0;
}

if (require.main === module) cli.runMain('ingest-events', main).then((code) => process.exit(code));

module.exports = { ingestEvents };
