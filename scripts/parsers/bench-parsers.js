#!/usr/bin/env node
'use strict';
// bench-parsers.js — parser throughput, to know the ingesters keep up with a round
// (RTR lines arrive at the request rate). Pure CPU, no database. Prints figures; asserts
// nothing. Usage: node scripts/parsers/bench-parsers.js [--lines N]

const { parseRtrLine } = require('./rtr-parser');
const { JsonStream } = require('./json-stream');
const { statsRows, StatsDeduper } = require('./stats-parser');

const { makeCli } = require('../ops/cli');
const { cliExitCode } = require('../../lib/arg-table');

let N;
try {
  ({ lines: N } = makeCli('bench-parsers').parse(process.argv.slice(2), {
    usage: 'Usage: node scripts/parsers/bench-parsers.js [--lines N]',
    rows: [['--lines N', 'lines', 'count', 200000, 'lines (and documents) parsed per parser', [1]]],
  }));
} catch (err) {
  process.exit(cliExitCode(err));
}
const RTR = '   2026-03-01T12:00:05.00+0000 [RTR/0] OUT node-app.apps.example.com - [2026-03-01T12:00:05.123456789Z] "GET /ads/42 HTTP/1.1" 200 0 187 "-" "cfscale-loadgen" "10.0.0.5:51234" "10.0.1.12:61012" x_forwarded_for:"10.0.0.5" x_forwarded_proto:"https" vcap_request_id:"a1b2c3d4-0000-4000-8000-000000000001" response_time:0.012345 gorouter_time:0.000321 app_id:"9f0e" app_index:"3" instance_id:"inst-1" x_cf_routererror:"-" x_correlation_id:"0190a0b0-c0d0-7e00-8000-000000000abc"';
const PLUGIN = '{"instance_index":"0","metrics":{"state":"RUNNING","stats":{"name":"bb-node","uris":["bb-node.apps.example.com"],"host":"10.0.1.12","port":61012,"uptime":3600,"mem_quota":536870912,"disk_quota":1073741824,"fds_quota":16384,"usage":{"time":"2026-03-01T12:00:05+00:00","cpu":0.734,"mem":187695104,"disk":142606336}}}}';

function time(label, n, fn) {
  const t0 = process.hrtime.bigint();
  fn();
  const sec = Number(process.hrtime.bigint() - t0) / 1e9;
  console.log(`${label.padEnd(34)} ${n} in ${sec.toFixed(2)} s = ${Math.round(n / sec).toLocaleString('en')} /s`);
}

time('rtr-parser: RTR lines', N, () => {
  for (let i = 0; i < N; i++) if (!parseRtrLine(RTR)) throw new Error('bench line did not parse');
});

const text = `${PLUGIN}\n`.repeat(N);
time('json-stream + stats rows: plugin lines', N, () => {
  const d = new StatsDeduper();
  let rows = 0;
  const s = new JsonStream((v) => { for (const r of statsRows(v, { platform: 'cf' }).rows) if (d.keep(r)) rows++; });
  for (let i = 0; i < text.length; i += 65536) s.write(text.slice(i, i + 65536));
  s.end();
  if (s.counts.values !== N) throw new Error('bench values lost');
  if (!rows) throw new Error('bench rows lost');
});
