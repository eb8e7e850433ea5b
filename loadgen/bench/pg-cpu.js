#!/usr/bin/env node
// pg-cpu.js — CPU seconds used so far by the bench's PostgreSQL cluster in DIR: the
// postmaster, its live backends and its reaped children, from /proc; a machine-load-
// independent cost measure. Prints e.g. "12.34".
// Usage: node loadgen/bench/pg-cpu.js DIR
'use strict';

const fs = require('node:fs');
const path = require('node:path');
const { execFileSync } = require('node:child_process');

const HZ = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim());

/** The fields of /proc/PID/stat from the state on (3rd field → index 0). */
function stat(pid) {
  try { return fs.readFileSync(`/proc/${pid}/stat`, 'utf8').replace(/^\d+ \(.*\) /, '').split(' ').map(Number); } catch { return null; }
}

const dir = process.argv[2];
if (!dir) { process.stderr.write('usage: pg-cpu.js DIR\n'); process.exit(1); }
const pm = fs.readFileSync(path.join(dir, 'data', 'postmaster.pid'), 'utf8').split('\n')[0].trim();
let children = [];
try { children = execFileSync('pgrep', ['-P', pm], { encoding: 'utf8' }).split('\n').filter(Boolean); } catch { /* none */ }
let ticks = 0;
const own = stat(pm);
if (own) ticks += own[11] + own[12] + own[13] + own[14]; // utime, stime, cutime, cstime
for (const p of children) {
  const s = stat(p);
  if (s) ticks += s[11] + s[12];
}
process.stdout.write(`${(ticks / HZ).toFixed(2)}\n`);
