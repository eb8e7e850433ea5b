// throughput.js — what timing recording costs each app: req/s of GET /ads/{id} and POST /ads
// with recording ON and OFF, measured in the same run, interleaved (bench/apps/throughput.sh).
//
// Starts a PostgreSQL cluster of its own (temp dir /tmp/cfscale-contract-bench-*, a port of
// range `bench-apps` in ports.json), then per variant: fresh databases with 1000 ads, the app
// pinned to CPU 0, the load generator (loadgen CLI, else npx autocannon) pinned to CPU 1, and
// bench/apps/measure.js doing the interleaved runs. Prints a table: median req/s with
// recording on and off and the ratio off/on (target: <= 1.03, recording costs <= 3 %).
// On demand only (not in CI). Exit 0 ok, 1 usage/setup error, 2 a measurement failed.
'use strict';

const path = require('node:path');
const { execFile } = require('node:child_process');
const { parseCommand, note } = require('../../lib/arg-table');
const { Bench, UsageError, headerOf, runMain, variant, LOAD_CPU, SEED_ADS } = require('./lib');
const { ALL_VARIANTS } = require('../../contract/lib/variants');

// The parser, the defaults and --help in one (arg-table.js); the values go to measure.js as given.
const OPTIONS = [
  ['--smoke', 'smoke', 'bool', false, 'check that it can run here (its flags, its code, the tools it needs) and say what it would measure; measure nothing (CI runs this)'],
  ['--only VARIANT[,VARIANT...]', 'only', 'str', note('all'), `variants, comma-separated: ${ALL_VARIANTS.join(' ')}`],
  ['--duration DUR', 'duration', 'str', '10s', 'each run'],
  ['--reps N', 'reps', 'str', '3', 'on/off pairs per operation'],
  ['--parallel N', 'parallel', 'str', '32', 'requests in flight'],
];
const USAGE_LINE = 'Usage: bench/apps/throughput.sh [--only VARIANT[,VARIANT...]] [--duration 10s] [--reps 3] [--parallel 32]';

/** measure.js on the started app (its URL and CONTROL_TOKEN): its TSV lines; exit 2 when it fails. */
function measure({ url, controlToken }, v, opts) {
  const args = [path.join(__dirname, 'measure.js'), '--url', url, '--app', v, '--duration', opts.duration, '--reps', opts.reps,
    '--parallel', opts.parallel, '--cpu', String(LOAD_CPU), '--ids', `1-${SEED_ADS}`];
  return new Promise((resolve, reject) => {
    const child = execFile(process.execPath, args, { env: { ...process.env, CONTROL_TOKEN: controlToken } }, (err, stdout) => {
      if (err) reject(Object.assign(new Error(`${v}: measure.js failed`), { exitCode: 2 }));
      else resolve(stdout.trim().split('\n'));
    });
    child.stderr.pipe(process.stderr);
  });
}

/** TSV rows as columns padded to their widest cell. */
function columns(rows) {
  const cells = rows.map((r) => r.split('\t'));
  const widths = cells[0].map((_, i) => Math.max(...cells.map((c) => (c[i] || '').length)));
  return cells.map((c) => c.map((x, i) => x.padEnd(widths[i])).join('  ').trimEnd()).join('\n');
}

async function main(argv) {
  const opts = parseCommand('throughput', argv, { usage: USAGE_LINE, about: headerOf(__filename), rows: OPTIONS });
  const variants = (opts.only || ALL_VARIANTS.join(',')).split(',').filter(Boolean);
  for (const v of variants) {
    try { variant(v); } catch (e) { throw new UsageError(e.message); }
  }
  const bench = new Bench('throughput');
  if (opts.smoke) return bench.smoke(`${variants.join(', ')}: GET /ads/{id} and POST /ads, timing recording on and off, ${opts.reps} x ${opts.duration}`, variants);
  try {
    await bench.setup();
    const rows = ['app\toperation\ton req/s\toff req/s\toff/on\tpairs off/on\tpair range\treps'];
    for (const v of variants) {
      bench.log(`${v}: start, seed ${SEED_ADS} ads, measure (${opts.reps} x on/off, ${opts.duration} each, ${opts.parallel} in flight)`);
      const app = await bench.startApp(v);
      rows.push(...await measure(app, v, opts));
      await bench.stopApp();
    }
    process.stdout.write(`${columns(rows)}\n`);
    return 0;
  } finally {
    await bench.cleanup();
  }
}

if (require.main === module) runMain('throughput', main);
