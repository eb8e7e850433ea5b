#!/usr/bin/env node
'use strict';
// Ingest benchmark: N synthetic samples through SampleBatch (COPY text encoding)
// and the Sink into `requests`. Prints encode-only and end-to-end samples/s.
// Usage: ingest.js DB_URL ROUND_ID [SAMPLES] [BATCH_ROWS] [binary|text]
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { performance } = require('node:perf_hooks');
const { SampleBatch } = require('../lib/sample-batch');
const { Sink } = require('../lib/sink');
const { ResponseParser } = require('../lib/response-parser');
const { uuidv7Bytes } = require('../lib/uuidv7');

async function main() {
  const [url, round, samplesArg, batchArg] = process.argv.slice(2);
  const samples = Number(samplesArg || 1e6);
  const batchRows = Number(batchArg || 10000);
  const format = process.argv[6] === 'text' ? 'text' : 'binary';
  const ENC = format === 'text' ? 'encode' : 'encodeBinary';
  const parser = new ResponseParser();
  parser.status = 200;
  parser.bodyBytes = 180;
  parser.appInstance = 1;
  parser.vcapLen = parser.vcap.latin1Write('3e0a1c44-5b2d-4c1e-7f6a-9d8e7f6a5b4c', 0);
  const conn = { parser, uuid: Buffer.alloc(16), op: 1, intendedMs: 0, startedMs: 0 };
  const batch = new SampleBatch(batchRows);

  // encode only
  let t0 = performance.now();
  const encodeN = Math.min(samples, 200000);
  for (let i = 0; i < encodeN; i++) {
    uuidv7Bytes(conn.uuid, 0);
    conn.intendedMs = conn.startedMs = performance.now();
    if (batch.add(conn, 0, 1234)) batch[ENC](round, 0);
  }
  batch[ENC](round, 0);
  const encodeRate = encodeN / ((performance.now() - t0) / 1000);

  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cfscale-loadgen-bench-spool-'));
  const sink = new Sink({ url, spoolDir: dir, format, log: (m) => process.stderr.write(`ingest: ${m}\n`) });
  const cpu0 = process.cpuUsage();
  t0 = performance.now();
  for (let i = 0; i < samples; i++) {
    uuidv7Bytes(conn.uuid, 0);
    conn.intendedMs = conn.startedMs = performance.now();
    if (batch.add(conn, 0, 1234)) {
      sink.push(batch[ENC](round, 0));
      // yield now and then, as the event loop of a real run does
      if (sink.waitingBatches > 4) await new Promise((r) => setTimeout(r, 1));
    }
  }
  if (batch.length) sink.push(batch[ENC](round, 0));
  const f = await sink.flush(600000);
  const secs = (performance.now() - t0) / 1000;
  const cpu = process.cpuUsage(cpu0);
  await sink.close();
  fs.rmSync(dir, { recursive: true, force: true });
  process.stdout.write(JSON.stringify({
    format, samples, batch_rows: batchRows, seconds: Number(secs.toFixed(2)),
    samples_per_sec: Math.round(samples / secs), encode_only_per_sec: Math.round(encodeRate),
    loader_cpu_s: Number(((cpu.user + cpu.system) / 1e6).toFixed(2)), rows_loaded: sink.rowsLoaded,
    spooled_batches: sink.batchesSpooled, spool_pending: f.spoolPending,
  }) + '\n');
}

main().catch((err) => { process.stderr.write(`ingest: ${err.message}\n`); process.exit(1); });
