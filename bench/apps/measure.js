#!/usr/bin/env node
// measure.js — throughput of one running app with timing recording ON and OFF, measured in
// the same run and interleaved (on, off, on, off, ...), for GET /ads/{id} and POST /ads.
// Called by throughput.js; prints one TSV line per operation on stdout:
//   app  op  on_req_s  off_req_s  off/on  pair_off/on  pair_range  reps
// (medians over the repetitions; pair_* = the ratio within each back-to-back on/off pair,
// its median and range, a measure of the noise) and every single run on stderr.
//
// Usage: node bench/apps/measure.js --url URL --app NAME [--duration 10s] [--reps 3]
//          [--parallel 32] [--cpu 1] [--ids 1-1000] [--warmup 3s]
// The generator is the project's loadgen CLI (loadgen/bin/loadgen.js --json), pinned with
// taskset to --cpu; without the loadgen it falls back to `npx autocannon` (GET /ads/1 only).
// The /timings requests carry the app's control credential: CONTROL_TOKEN in the environment.
'use strict';

const fs = require('node:fs');
const path = require('node:path');
const http = require('node:http');
const { execFile } = require('node:child_process');
const { parseCommand, REQUIRED, CliError, cliExitCode } = require('../../lib/arg-table');

const ROOT = path.resolve(__dirname, '..', '..');
const LOADGEN = path.join(ROOT, 'loadgen', 'bin', 'loadgen.js');
// The parser, the defaults and --help in one (arg-table.js); the values go to the loadgen as given.
const OPTIONS = [
  ['--url URL', 'url', 'str', REQUIRED, 'the running app'],
  ['--app NAME', 'app', 'str', REQUIRED, 'its name in the output'],
  ['--duration DUR', 'duration', 'str', '10s', 'each run'],
  ['--reps N', 'reps', 'int', 3, 'on/off pairs', [1]],
  ['--parallel N', 'parallel', 'str', '32', 'requests in flight'],
  ['--cpu N', 'cpu', 'str', '1', 'the CPU the generator is pinned to (taskset)'],
  ['--ids MIN-MAX', 'ids', 'str', '1-1000', 'the ads the reads pick from'],
  ['--warmup DUR', 'warmup', 'str', '3s', 'a run before the measured ones, not counted'],
];
const OPS = [
  { op: 'GET /ads/{id}', loadgen: ['--scenario', 'read'], autocannon: [] },
  { op: 'POST /ads', loadgen: ['--scenario', 'publish'], autocannon: ['-m', 'POST', '-H', 'content-type=application/x-www-form-urlencoded', '-b', 'title=bench&price=1'] },
];

function post(url, p) {
  return new Promise((resolve, reject) => {
    const headers = { Authorization: `Bearer ${process.env.CONTROL_TOKEN}` };
    const req = http.request(`${url}${p}`, { method: 'POST', headers }, (res) => {
      let body = '';
      res.on('data', (d) => { body += d; });
      res.on('end', () => (res.statusCode === 200 ? resolve(body) : reject(new Error(`POST ${p}: ${res.statusCode} ${body.trim()}`))));
    });
    req.on('error', reject);
    req.end();
  });
}

function run(cmd, args) {
  return new Promise((resolve, reject) => {
    execFile(cmd, args, { cwd: ROOT, maxBuffer: 64 << 20 }, (err, stdout, stderr) => {
      if (err && !stdout) reject(new Error(`${cmd} ${args.join(' ')}: ${err.message} ${stderr}`));
      else resolve(stdout);
    });
  });
}

/** One load run; resolves with { rps, total, errors }. */
async function load(opts, spec, duration) {
  if (fs.existsSync(LOADGEN)) {
    const out = await run('taskset', ['-c', opts.cpu, process.execPath, LOADGEN, '--url', opts.url, '--parallel', opts.parallel,
      '--duration', duration, '--ids', opts.ids, '--json', '--no-progress', ...spec.loadgen]);
    const r = JSON.parse(out);
    return { rps: r.requests.per_sec ?? r.requests.total / (r.duration_ms / 1000), total: r.requests.total, errors: r.requests.errors };
  }
  const secs = String(parseFloat(duration));
  const out = await run('taskset', ['-c', opts.cpu, 'npx', '--yes', 'autocannon', '-j', '-c', opts.parallel, '-d', secs, ...spec.autocannon,
    spec.autocannon.length ? `${opts.url}/ads` : `${opts.url}/ads/1`]);
  const r = JSON.parse(out);
  return { rps: r.requests.average, total: r.requests.total, errors: r.errors + r.non2xx };
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

async function main() {
  const opts = parseCommand('measure', process.argv.slice(2), {
    usage: 'Usage: node bench/apps/measure.js --url URL --app NAME [--duration 10s] [--reps 3] [--parallel 32] [--cpu 1] [--ids 1-1000] [--warmup 3s]',
    rows: OPTIONS,
  });
  for (const spec of OPS) {
    await post(opts.url, '/timings/recording?enabled=on');
    await load(opts, spec, opts.warmup);
    const rps = { on: [], off: [] };
    for (let rep = 1; rep <= Number(opts.reps); rep += 1) {
      for (const mode of ['on', 'off']) {
        await post(opts.url, `/timings/recording?enabled=${mode}`);
        await post(opts.url, '/timings/clear');
        const r = await load(opts, spec, opts.duration);
        const kept = await post(opts.url, '/timings/clear');
        rps[mode].push(r.rps);
        console.error(`measure: ${opts.app} ${spec.op} rep ${rep} recording ${mode}: ${r.rps.toFixed(0)} req/s, ${r.total} requests, ${r.errors} errors, ${kept.trim()}`);
      }
    }
    const on = median(rps.on);
    const off = median(rps.off);
    // Each on/off pair ran back to back: their ratios show how much noise the figures carry.
    const pairs = rps.on.map((x, i) => rps.off[i] / x);
    const spread = `${Math.min(...pairs).toFixed(2)}-${Math.max(...pairs).toFixed(2)}`;
    console.log([opts.app, spec.op, on.toFixed(0), off.toFixed(0), (off / on).toFixed(3), median(pairs).toFixed(3), spread, opts.reps].join('\t'));
  }
  await post(opts.url, '/timings/recording?enabled=on');
}

main().catch((e) => {
  if (e instanceof CliError) process.exit(cliExitCode(e));
  console.error(`measure: ${e.message}`);
  process.exit(2);
});
