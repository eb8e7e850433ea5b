// cells.js — the two cells of this machine, as cpuset cgroups (v1): the system under test (the
// app instances, and the backends of their databases) on CPUs of its own, the harness (loadgens,
// router, results database, this daemon, run-round and its collectors) on the rest. On CF these
// are different VMs: the app on a Diego cell, the loadgens, Gorouter and the results database
// elsewhere (docs/cf-platform.md §24). Sharing two cores, every figure would measure the host.
//
// Groups: cpuset/cfscale-<hash of CFSCALE_HOME>/{sut,harness,shield}. A process joins a cell by
// writing its pid to the cell's cgroup.procs; its children inherit it.
//
// The shield: a cell is a set of CPUs, not a reservation, and the machine's other processes
// (the root cpuset's) still run on the SUT's CPUs. While a round measures, run-round raises the
// shield (`cfl cells --shield SECONDS`): every process of the root cpuset moves to the shield
// group, on the harness's CPUs, and back when it is lowered, as `cset shield` does for a
// benchmark. It lowers itself after SECONDS, so a run-round that dies never leaves it up.
// Processes of other cgroups (another platform's cells) are left where they are.
'use strict';

const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { parseCpuList, formatCpuList } = require('../../lib/cpu-list');

const CELLS = ['sut', 'harness'];
const GROUPS = [...CELLS, 'shield'];
// Passes over a group's processes before giving up on those forked during the move.
const MOVE_PASSES = 20;

const readText = (file) => { try { return fs.readFileSync(file, 'utf8').trim(); } catch { return null; } };

/** The CPUs this machine has online. */
function onlineCpus(sysRoot = '/sys/devices/system/cpu') {
  const text = readText(path.join(sysRoot, 'online'));
  return text ? parseCpuList(text) : [...Array(os.availableParallelism()).keys()];
}

/**
 * The split: { sut: [cpu], harness: [cpu] }, or null (no cells). spec: CFSCALE_SUT_CPUS — a CPU
 * list, "off", or "" for the default: the upper half of the online CPUs (rounded down, at
 * least one), the rest to the harness; a machine with one CPU has no cells.
 */
function splitCpus(spec, online) {
  if (spec === 'off') return null;
  if (spec === '' || spec === undefined) {
    if (online.length < 2) return null;
    const n = Math.floor(online.length / 2);
    return { sut: online.slice(online.length - n), harness: online.slice(0, online.length - n) };
  }
  const sut = parseCpuList(spec);
  const missing = sut.filter((c) => !online.includes(c));
  if (missing.length) throw new Error(`CFSCALE_SUT_CPUS ${spec}: CPU ${missing.join(', ')} not online (online: ${formatCpuList(online)})`);
  const harness = online.filter((c) => !sut.includes(c));
  if (!sut.length || !harness.length) throw new Error(`CFSCALE_SUT_CPUS ${spec} must leave at least one of the CPUs ${formatCpuList(online)} to the harness`);
  return { sut, harness };
}

class Cells {
  /**
   * split: splitCpus(...) or null; root: the cgroup root; group: cfscale-<hash>; make: false only
   * to remove them; shieldFrom: the cpuset group whose processes the shield takes (default the
   * root cpuset: the whole machine; a test gives a group of its own).
   */
  constructor({ root, group, split, log, make = true, shieldFrom = null }) {
    this.split = split;
    this.log = log;
    this.root = path.join(root, 'cpuset');
    this.shieldFrom = shieldFrom || this.root;
    this.top = path.join(this.root, group);
    this.available = split && make ? this.make(root) : false;
  }

  dir(cell) { return path.join(this.top, cell); }

  make(root) {
    try {
      const parent = path.join(root, 'cpuset');
      const mems = readText(path.join(parent, 'cpuset.mems'));
      // A child's CPUs and memory nodes must lie inside its parent's, set before any task joins.
      fs.mkdirSync(this.top, { recursive: true });
      fs.writeFileSync(path.join(this.top, 'cpuset.cpus'), readText(path.join(parent, 'cpuset.cpus')));
      fs.writeFileSync(path.join(this.top, 'cpuset.mems'), mems);
      for (const cell of GROUPS) {
        fs.mkdirSync(this.dir(cell), { recursive: true });
        fs.writeFileSync(path.join(this.dir(cell), 'cpuset.cpus'), formatCpuList(this.split[cell === 'shield' ? 'harness' : cell]));
        fs.writeFileSync(path.join(this.dir(cell), 'cpuset.mems'), mems);
      }
      return true;
    } catch (e) {
      this.log(`cpuset cgroups not writable under ${root} (${e.code || e.message}): no cells, the system under test shares every CPU with the harness`);
      return false;
    }
  }

  /** Move a process (all its threads) into a cell; false when it is gone or there are no cells. */
  join(cell, pid) {
    if (!this.available) return false;
    try { fs.writeFileSync(path.join(this.dir(cell), 'cgroup.procs'), String(pid)); return true; } catch { return false; }
  }

  /** Shell words that move the wrapper shell ($$) into a cell before it execs ('' without cells). */
  enterScript(cell) {
    return this.available ? `echo $$ > '${path.join(this.dir(cell), 'cgroup.procs')}'` : '';
  }

  /** The pids in a cell. */
  pids(cell) {
    return (readText(path.join(this.dir(cell), 'cgroup.procs')) || '').split('\n').filter(Boolean).map(Number);
  }

  /**
   * Raise the shield: the root cpuset's processes onto the harness's CPUs; returns how many moved.
   * Called again while up, it takes what started there since (kernel threads bound to a CPU stay).
   */
  raiseShield() {
    if (!this.available) return 0;
    let moved = 0;
    // A process forked while a pass runs lands in its parent's group: passes until one moves none.
    for (let pass = 0; pass < MOVE_PASSES; pass++) {
      let now = 0;
      for (const pid of this.rootPids()) if (this.join('shield', pid)) now++;
      moved += now;
      if (now === 0) break;
    }
    return moved;
  }

  /** Lower the shield: its processes back where it took them from, until it is empty; returns how many. */
  lowerShield() {
    return this.drain('shield', this.shieldFrom);
  }

  /** Every process of a cell into the cgroup dir `to`, pass after pass until it is empty; returns how many moved. */
  drain(cell, to) {
    let moved = 0;
    for (let pass = 0; pass < MOVE_PASSES; pass++) {
      const pids = this.pids(cell);
      if (pids.length === 0) break;
      for (const pid of pids) {
        try { fs.writeFileSync(path.join(to, 'cgroup.procs'), String(pid)); moved++; } catch { /* gone */ }
      }
    }
    return moved;
  }

  rootPids() {
    return (readText(path.join(this.shieldFrom, 'cgroup.procs')) || '').split('\n').filter(Boolean).map(Number);
  }

  /** What `cfl cells` and `cfl status` show: { sut_cpus, harness_cpus } as CPU lists, or null. */
  describe() {
    if (!this.available) return null;
    return { sut_cpus: formatCpuList(this.split.sut), harness_cpus: formatCpuList(this.split.harness) };
  }

  /** Every process back to the parent cpuset, then the groups gone (teardown). */
  removeAll() {
    if (!this.split) return;
    for (const cell of GROUPS) {
      this.drain(cell, this.root);
      try { fs.rmdirSync(this.dir(cell)); } catch { /* absent or busy */ }
    }
    try { fs.rmdirSync(this.top); } catch { /* absent or busy */ }
  }
}

module.exports = { Cells, CELLS, GROUPS, splitCpus, parseCpuList, formatCpuList, onlineCpus };
