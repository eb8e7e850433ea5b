'use strict';
// must-run.js — one step of a round bench (a restart, a prewarm, a scale): its stdout, or the
// bench ends with exit 2 and the step's last line of output.
const { spawnSync } = require('node:child_process');

function mustRun(bench, what, cmd, args, env) {
  const r = spawnSync(cmd, args, { env, encoding: 'utf8', maxBuffer: 64 << 20 });
  if (r.status !== 0) {
    process.stderr.write(`${bench}: ${what} failed: ${(r.stderr || r.stdout || '').trim().split('\n').pop()}\n`);
    process.exit(2);
  }
  return r.stdout;
}

module.exports = { mustRun };
