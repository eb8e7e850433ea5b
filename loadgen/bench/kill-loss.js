#!/usr/bin/env node
'use strict';
// kill-loss.js DB_URL ROUND TARGET_URL PARALLEL DURATION_S BATCH_AGE_MS — what a kill -9 would lose,
// measured without killing: a run as the worker does it (Run + Sink, batches of a round
// with their loadgen_runs counts), and for every batch the time from its first sample to
// the commit of its COPY transaction. A kill at any instant loses the samples completed
// since the first sample of the oldest batch not yet committed, so the largest of these
// spans is the worst loss window of the run (bound: 250 ms). Prints one JSON object.
const { performance } = require('node:perf_hooks');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { Run } = require('../lib/run');
const { Sink } = require('../lib/sink');

async function main() {
  const [db, round, url, parallel, durationS, batchAgeMs] = process.argv.slice(2);
  const spoolDir = fs.mkdtempSync(path.join(os.tmpdir(), 'cfscale-loadgen-bench-spool-'));
  const spans = [];
  const sink = new Sink({ url: db, spoolDir, onDurable: (info) => spans.push(performance.now() - info.openedMs) });
  const run = new Run({ url, model: 'closed', parallel: Number(parallel), durationMs: Number(durationS) * 1000,
    timeoutMs: 5000, keepalive: true, scenario: 'get' },
  { sink, roundId: Number(round), loadgenIndex: 0, batchMaxAgeMs: Number(batchAgeMs) });
  const summary = await run.start();
  await sink.flush(30000);
  await sink.close();
  fs.rmSync(spoolDir, { recursive: true, force: true });
  spans.sort((a, b) => a - b);
  const q = (p) => Math.round(spans[Math.min(spans.length - 1, Math.floor(p * spans.length))]);
  process.stdout.write(`${JSON.stringify({
    batch_age_ms: Number(batchAgeMs), parallel: Number(parallel), requests: summary.requests.sent,
    req_per_s: summary.requests.per_sec, batches: spans.length,
    span_ms: { p50: q(0.5), p99: q(0.99), max: Math.round(spans[spans.length - 1]) },
    max_loss_samples: Math.round(spans[spans.length - 1] / 1000 * summary.requests.per_sec),
    spooled_batches: sink.batchesSpooled,
  })}\n`);
}

main().catch((err) => { process.stderr.write(`kill-loss: ${err.stack}\n`); process.exit(1); });
