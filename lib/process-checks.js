// process-checks.js — two questions about programs and processes: is a file executable (and
// which PATH directory holds a command), and does a pid still run. The scripts and the local
// platform require this one file.
'use strict';

const fs = require('node:fs');
const path = require('node:path');

/** An executable file (what a shell would run). */
function isExecutable(file) {
  try {
    fs.accessSync(file, fs.constants.X_OK);
    return fs.statSync(file).isFile();
  } catch {
    return false;
  }
}

/** The directory on PATH holding an executable cmd, or null. */
function findOnPath(cmd) {
  return (process.env.PATH || '').split(':').find((dir) => isExecutable(path.join(dir || '.', cmd))) ?? null;
}

/**
 * Whether a process with this pid runs: signal 0 reaches it and it is not a zombie. A killed
 * orphan stays a zombie until PID 1 reaps it, which in some containers takes seconds: a stop
 * that waits for "gone" would wait out its whole grace period for a process already dead.
 */
function processAlive(pid) {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  let stat;
  try { stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8'); } catch { return true; } // no procfs: signal 0 decides
  return stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z';
}

module.exports = { isExecutable, findOnPath, processAlive };
