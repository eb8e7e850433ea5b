#!/usr/bin/env node
'use strict';
// quota-scatter.js — how a Node.js server's throughput wanders from second to second under a
// CFS quota, and whether longer windows average it out (bench/rounds/quota-scatter.sh;
// COMMAND is its help and its flags). A bare `http` server that answers `hello` (or, with
// --url, a server already running, e.g. a local platform instance at its own quota) on one
// CPU, driven by a closed keep-alive client (scatter-client.js) pinned to another, per
// connection count: req/s, the per-second CV and the CV of 10, 20 and 40 s block means
// against what independent seconds would give (CV / sqrt(block)).
const fs = require('node:fs');
const path = require('node:path');
const { spawn, spawnSync } = require('node:child_process');
const { parseCommand, CliError, cliExitCode } = require('../../lib/arg-table');
const { mean, stddev } = require('../../lib/inference');
const { blockCv, pct } = require('./block-cv');

const COMMAND = {
  usage: 'Usage: bench/rounds/quota-scatter.sh [--quota 0.1] [--period 100000] [--conns 2,8,32] [--seconds 60]\n'
    + '         [--url URL] [--server-cpu 1] [--client-cpu 0]',
  about: "A Node.js server's per-second throughput under a CFS quota, per connection count, and the CV of "
    + 'block means of 10, 20 and 40 s beside what independent seconds would give: whether a longer window '
    + 'averages the scatter out (bench/rounds/README.md, "Longer windows do not average it out").',
  rows: [
    ['--quota C|none', 'quota', 'str', '0.1', "the bare server's quota, cores (none: no quota)"],
    ['--period US', 'period', 'int', 100000, 'the CFS period, µs', [1000]],
    ['--conns N,..', 'conns', 'str', '2,8,32', 'keep-alive connections of the client, one run each, in turn'],
    ['--seconds S', 'seconds', 'int', 60, 'seconds measured per run, after 5 s of warm-up', [10]],
    ['--url URL', 'url', 'str', undefined, 'drive this server instead of a bare one (its quota is its own; '
      + 'N in the path becomes 1..1000, e.g. http://127.0.0.1:61000/ads/N)'],
    ['--server-cpu C', 'serverCpu', 'int', 1, "the bare server's CPU", [0]],
    ['--client-cpu C', 'clientCpu', 'int', 0, "the client's CPU", [0]],
    ['--smoke', 'smoke', 'bool', false, 'check that it can run here (flags, taskset, the cgroup) and say what it would measure; measure nothing (CI runs this)'],
  ],
  notes: `Needs root (a cgroup v1 cpu group of its own, removed at the end). Heavy: run it under the
shared lock (flock /tmp/cfscale-heavy.lock ...), on a quiet machine. On demand only, not in CI.
Exit 0 ok, 1 usage, 2 a step failed.`,
  width: 100,
};

const WARMUP_S = 5;
const BLOCKS_S = [10, 20, 40];
const CGROUP = `/sys/fs/cgroup/cpu/cfscale-bench-scatter-${process.pid}`;

function fail(msg) {
  process.stderr.write(`quota-scatter: ${msg}\n`);
  dropCgroup();
  process.exit(2);
}

/** The bare server on its CPU, in a cgroup of its own at the quota; resolves to its URL. */
function startBareServer(o) {
  fs.mkdirSync(CGROUP);
  fs.writeFileSync(`${CGROUP}/cpu.cfs_period_us`, String(o.period));
  fs.writeFileSync(`${CGROUP}/cpu.cfs_quota_us`, o.quota === 'none' ? '-1' : String(Math.round(Number(o.quota) * o.period)));
  const code = "const s = require('http').createServer((q, r) => r.end('hello')); s.listen(0, '127.0.0.1', () => console.log(s.address().port));";
  const child = spawn('taskset', ['-c', String(o.serverCpu), process.execPath, '-e', code], { stdio: ['ignore', 'pipe', 'inherit'] });
  fs.writeFileSync(`${CGROUP}/cgroup.procs`, String(child.pid));
  return new Promise((resolve, reject) => {
    child.stdout.once('data', (d) => resolve({ child, url: `http://127.0.0.1:${String(d).trim()}/hello` }));
    child.once('exit', (c) => reject(new Error(`the bare server exited (${c}); taskset refuses a CPU outside this process's cpuset (a local platform's shield while a round measures takes CPU ${o.serverCpu})`)));
  });
}

function dropCgroup() {
  try { fs.rmdirSync(CGROUP); } catch { /* none, or a process still in it: the kernel keeps it */ }
}

function runClient(o, url, conns) {
  const r = spawnSync('taskset', ['-c', String(o.clientCpu), process.execPath, path.join(__dirname, 'scatter-client.js'), url, String(conns), String(WARMUP_S), String(o.seconds)],
    { encoding: 'utf8', timeout: (o.seconds + WARMUP_S + 30) * 1000 });
  if (r.status !== 0) fail(`the client failed (${r.status ?? r.signal}): ${(r.stderr || '').trim().split('\n').pop()}`);
  return JSON.parse(r.stdout.trim().split('\n').pop());
}

async function main() {
  let o;
  try { o = parseCommand('quota-scatter', process.argv.slice(2), COMMAND); } catch (e) {
    if (e instanceof CliError) process.exit(cliExitCode(e));
    throw e;
  }
  const conns = o.conns.split(',').map(Number);
  if (conns.some((c) => !Number.isInteger(c) || c < 1)) { process.stderr.write('quota-scatter: --conns is a list of whole numbers >= 1\n'); process.exit(1); }
  if (o.quota !== 'none' && !(Number(o.quota) * o.period >= 1000)) { process.stderr.write(`quota-scatter: --quota ${o.quota} x --period ${o.period} µs is below the kernel's 1000 µs\n`); process.exit(1); }
  const what = `${o.url ?? `a bare server at ${o.quota === 'none' ? 'no quota' : `${o.quota} core`} (period ${o.period} µs) on CPU ${o.serverCpu}`}, a client on CPU ${o.clientCpu}, ${conns.join('/')} connections, ${o.seconds} s each`;
  if (o.smoke) {
    const missing = [['taskset', !spawnSync('taskset', ['-V']).error], ['a writable cgroup v1 cpu controller', o.url || fs.existsSync('/sys/fs/cgroup/cpu/cgroup.procs')]].filter(([, ok]) => !ok);
    if (missing.length) fail(`missing: ${missing.map(([w]) => w).join(', ')}`);
    process.stdout.write(`quota-scatter: smoke: would run ${what}\n`);
    return;
  }
  const server = o.url ? null : await startBareServer(o).catch((e) => fail(e.message));
  const url = o.url ?? server.url;
  process.stdout.write(`quota-scatter: ${what}\n\n| connections | req/s | per second | ${BLOCKS_S.map((b) => `${b} s blocks (independent)`).join(' | ')} |\n|---|---|---|${BLOCKS_S.map(() => '---').join('|')}|\n`);
  try {
    for (const c of conns) {
      const { perSecond, failed } = runClient(o, url, c);
      const cv = stddev(perSecond) / mean(perSecond);
      const cells = BLOCKS_S.map((b) => `${pct(blockCv(perSecond, b))} (${pct(cv / Math.sqrt(b))})`);
      process.stdout.write(`| ${c} | ${mean(perSecond).toFixed(0)} | ${pct(cv)} | ${cells.join(' | ')} |${failed ? ` ${failed} failed` : ''}\n`);
    }
  } finally {
    if (server) server.child.kill();
    await new Promise((r) => setTimeout(r, 200));
    dropCgroup();
  }
}

main().catch((e) => fail(e.stack || e.message));
