// purge.js — `cfl purge`: everything a platform keeps, also outside the clone, listed, and
// removed once the platform is down. A platform keeps its state in CFSCALE_HOME (state.json,
// logs, its cf logins, the droplets; PostgreSQL's data when postgres may enter the home), its
// PostgreSQL data in OUTSIDE_PG_ROOT/<hash of the home> when it may not (a clone only root can
// enter, config.js pgDirOf), and its cgroups, <controller>/cfscale-<hash>, cgroups.js.
//
// API:
//   purgeList(cfg) → [{ what, path, kind: 'dir'|'cgroup' }], only what exists
//   unsafeHome(cfg) → why CFSCALE_HOME must not be removed whole, or null
//   removePurged(list) → the paths that could not be removed
'use strict';

const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { OUTSIDE_PG_ROOT, REPO_ROOT } = require('./config');

// The controllers cgroups.js makes a group in (its CONTROLLERS).
const CGROUP_CONTROLLERS = ['memory', 'cpu', 'cpuacct'];
// Files a platform's daemon writes into its home: one of them marks a home as a platform's.
const HOME_MARKERS = ['daemon.json', 'daemon.log', 'state.json', 'uaa.key'];

const exists = (p) => { try { fs.lstatSync(p); return true; } catch { return false; } };
const inside = (child, parent) => child === parent || child.startsWith(`${parent}${path.sep}`);

function purgeList(cfg) {
  const list = [];
  if (exists(cfg.home)) list.push({ what: 'state (CFSCALE_HOME: state, logs, droplets, cf logins)', path: cfg.home, kind: 'dir' });
  const outside = path.join(OUTSIDE_PG_ROOT, cfg.homeHash);
  if (exists(outside)) list.push({ what: 'PostgreSQL data outside the home', path: outside, kind: 'dir' });
  for (const c of CGROUP_CONTROLLERS) {
    const dir = path.join(cfg.cgroupRoot, c, `cfscale-${cfg.homeHash}`);
    if (exists(dir)) list.push({ what: `cgroup (${c})`, path: dir, kind: 'cgroup' });
  }
  return list;
}

// A CFSCALE_HOME set to a directory of the user's own (their home, the clone) is never removed.
function unsafeHome(cfg) {
  const home = path.resolve(cfg.home);
  if (!exists(home)) return null;
  for (const [what, dir] of [['the root directory', '/'], ['your home directory', os.homedir()], ['the clone', REPO_ROOT]]) {
    if (inside(path.resolve(dir), home)) return `CFSCALE_HOME=${home} holds ${what}`;
  }
  if (!HOME_MARKERS.some((f) => exists(path.join(home, f)))) {
    return `CFSCALE_HOME=${home} has none of a platform's files (${HOME_MARKERS.join(', ')})`;
  }
  return null;
}

// A cgroup is removed with rmdir, innermost first (its control files cannot be unlinked).
function removeCgroup(dir, left) {
  let subs = [];
  try { subs = fs.readdirSync(dir, { withFileTypes: true }).filter((e) => e.isDirectory()).map((e) => e.name); } catch { return; }
  for (const s of subs) removeCgroup(path.join(dir, s), left);
  try { fs.rmdirSync(dir); } catch (e) { if (e.code !== 'ENOENT') left.push(dir); }
}

function removePurged(list) {
  const left = [];
  for (const item of list) {
    if (item.kind === 'cgroup') removeCgroup(item.path, left);
    else {
      try { fs.rmSync(item.path, { recursive: true, force: true }); } catch { left.push(item.path); }
    }
  }
  // The directory every home's outside data shares goes with the last of them.
  try { fs.rmdirSync(OUTSIDE_PG_ROOT); } catch { /* another home's data, or none */ }
  return left;
}

module.exports = { purgeList, unsafeHome, removePurged };
