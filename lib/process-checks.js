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

/** Whether a process with this pid exists (signal 0). */
function processAlive(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

module.exports = { isExecutable, findOnPath, processAlive };
