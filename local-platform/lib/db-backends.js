// db-backends.js — the backends of the platform's PostgreSQL and the database each serves, so
// that an app database's work runs in the system under test's cell and the results database's
// in the harness's (cells.js). A backend is a child of the postmaster titled
// "postgres: USER DATABASE HOST(PORT) STATE"; the server's own processes (checkpointer, WAL
// writer, ...) carry no database and stay where the postmaster is.
'use strict';

const fs = require('node:fs');
const path = require('node:path');

const readText = (file) => { try { return fs.readFileSync(file, 'utf8'); } catch { return null; } };

/** The postmaster's pid from its data directory, or null. */
function postmasterPid(pgDir) {
  const pid = Number((readText(path.join(pgDir, 'data', 'postmaster.pid')) || '').split('\n')[0]);
  return pid > 0 ? pid : null;
}

/** [{ pid, database }] of the postmaster's backends (its direct children with a database). */
function backends(pmPid, procRoot = '/proc') {
  const children = (readText(path.join(procRoot, String(pmPid), 'task', String(pmPid), 'children')) || '').trim();
  const out = [];
  for (const pid of children ? children.split(/\s+/).map(Number) : []) {
    const cmd = (readText(path.join(procRoot, String(pid), 'cmdline')) || '').replace(/\0/g, ' ');
    const m = /^postgres: \S+ (\S+) \S+\(\d+\)/.exec(cmd);
    if (m) out.push({ pid, database: m[1] });
  }
  return out;
}

/**
 * Place every backend of the databases in `sutDatabases` in the SUT cell, each other backend in
 * the harness's; `placed` (Map pid → cell) remembers what was moved, so a backend is written once.
 * Returns how many moved now.
 */
function placeBackends(cells, pmPid, sutDatabases, placed, procRoot = '/proc') {
  if (!cells.available || !pmPid) return 0;
  const live = new Set();
  let moved = 0;
  for (const b of backends(pmPid, procRoot)) {
    live.add(b.pid);
    const cell = sutDatabases.has(b.database) ? 'sut' : 'harness';
    if (placed.get(b.pid) === cell) continue;
    if (cells.join(cell, b.pid)) { placed.set(b.pid, cell); moved++; }
  }
  for (const pid of placed.keys()) if (!live.has(pid)) placed.delete(pid);
  return moved;
}

module.exports = { postmasterPid, backends, placeBackends };
