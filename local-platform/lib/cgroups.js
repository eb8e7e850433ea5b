// cgroups.js — one cgroup (v1) per instance, like a Garden container: memory limit =
// manifest memory (memsw too, so swap cannot stretch it), CPU quota via CFS, accounting via
// cpuacct. Names: <controller>/cfscale-<hash of CFSCALE_HOME>/<app>-<index>.
// Where cgroups are not writable, instances run unconstrained (said once, in the log).
'use strict';

const fs = require('node:fs');
const path = require('node:path');

const CONTROLLERS = ['memory', 'cpu', 'cpuacct'];
const CFS_PERIOD_US = 100000; // the kernel's default; CFSCALE_CPU_PERIOD_US overrides
const MIN_QUOTA_US = 1000; // the kernel's lower bound for cfs_quota_us
// CF's CPU weight (docs/cf-platform.md §7): 100 × clamp(memory MB, 128, 8192) / 8192
// in integer math, shares = 1024 × weight / 100.
const CPU_WEIGHT_MIN_MB = 128;
const CPU_WEIGHT_MAX_MB = 8192;
const MAX_CPU_SHARES = 1024;
const MIN_CPU_SHARES = 2; // the kernel's lower bound

function cfCpuShares(memoryMb) {
  const weight = Math.floor((100 * Math.min(Math.max(memoryMb, CPU_WEIGHT_MIN_MB), CPU_WEIGHT_MAX_MB)) / CPU_WEIGHT_MAX_MB);
  return Math.max(MIN_CPU_SHARES, Math.floor((MAX_CPU_SHARES * weight) / 100));
}

function readText(file) {
  try { return fs.readFileSync(file, 'utf8'); } catch { return null; }
}

function writeText(file, value) {
  fs.writeFileSync(file, String(value));
}

class Cgroups {
  constructor(root, homeHash, log, periodUs = CFS_PERIOD_US) {
    this.root = root;
    this.periodUs = periodUs;
    this.group = `cfscale-${homeHash}`;
    this.log = log;
    this.available = this.probe();
  }

  probe() {
    try {
      for (const c of CONTROLLERS) {
        const dir = path.join(this.root, c, this.group);
        // Only our group dir: the controller's mount point must exist already.
        try { fs.mkdirSync(dir); } catch (e) { if (e.code !== 'EEXIST') throw e; }
        fs.accessSync(path.join(dir, 'cgroup.procs'), fs.constants.W_OK);
      }
      return true;
    } catch (e) {
      this.log(`cgroups v1 not writable under ${this.root} (${e.code || e.message}): instances run WITHOUT memory limits or CPU quotas`);
      return false;
    }
  }

  dirs(name) {
    const out = {};
    for (const c of CONTROLLERS) out[c] = path.join(this.root, c, this.group, name);
    return out;
  }

  // Create (or reset) the instance's cgroups; returns their paths or null.
  prepare(name, { memoryBytes, cpuCores, cpuShares }) {
    if (!this.available) return null;
    const d = this.dirs(name);
    for (const dir of Object.values(d)) fs.mkdirSync(dir, { recursive: true });
    // memsw must stay >= the memory limit: lower memsw first when shrinking is not needed
    // here because both are set to the same value, in the order the kernel accepts.
    const memsw = path.join(d.memory, 'memory.memsw.limit_in_bytes');
    const hasMemsw = fs.existsSync(memsw);
    const cur = Number(readText(path.join(d.memory, 'memory.limit_in_bytes')));
    if (hasMemsw && memoryBytes < cur) {
      writeText(path.join(d.memory, 'memory.limit_in_bytes'), memoryBytes);
      writeText(memsw, memoryBytes);
    } else {
      if (hasMemsw) writeText(memsw, -1);
      writeText(path.join(d.memory, 'memory.limit_in_bytes'), memoryBytes);
      if (hasMemsw) writeText(memsw, memoryBytes);
    }
    this.setCpu(name, cpuCores, cpuShares);
    return { ...d, oomKillsAtStart: this.oomKills(name) };
  }

  // cpuCores: a CFS quota (null: none); cpuShares: cpu.shares (default 1024, the kernel's).
  setCpu(name, cpuCores, cpuShares = MAX_CPU_SHARES) {
    if (!this.available) return;
    const d = this.dirs(name);
    writeText(path.join(d.cpu, 'cpu.shares'), cpuShares);
    const quota = cpuCores === null ? -1 : Math.round(cpuCores * this.periodUs);
    // Never raised silently: a round run with another quota than asked for would be a lie.
    if (quota !== -1 && quota < MIN_QUOTA_US) {
      throw new Error(`a CPU quota of ${cpuCores} cores is ${quota} µs per ${this.periodUs} µs period, below the kernel's ` +
        `minimum of ${MIN_QUOTA_US} µs: ask for at least ${MIN_QUOTA_US / this.periodUs} cores or raise CFSCALE_CPU_PERIOD_US`);
    }
    // No quota while the period changes: the kernel refuses a period below the current quota.
    writeText(path.join(d.cpu, 'cpu.cfs_quota_us'), -1);
    writeText(path.join(d.cpu, 'cpu.cfs_period_us'), this.periodUs);
    writeText(path.join(d.cpu, 'cpu.cfs_quota_us'), quota);
  }

  // Shell lines that move the wrapper shell ($$) into the cgroups before it execs; only
  // those of `controllers` (default: all).
  enterScript(name, controllers = CONTROLLERS) {
    if (!this.available) return '';
    const d = this.dirs(name);
    return controllers.map((c) => `echo $$ > '${d[c]}/cgroup.procs'`).join(' && ');
  }

  oomKills(name) {
    if (!this.available) return 0;
    const text = readText(path.join(this.dirs(name).memory, 'memory.oom_control')) || '';
    const m = /oom_kill (\d+)/.exec(text);
    if (m) return Number(m[1]);
    return Number(readText(path.join(this.dirs(name).memory, 'memory.failcnt')) || 0);
  }

  // {cpuNs, memBytes} of the instance: usage minus inactive file cache, as Garden reports.
  usage(name) {
    if (!this.available) return null;
    const d = this.dirs(name);
    const cpuNs = Number(readText(path.join(d.cpuacct, 'cpuacct.usage')));
    const usage = Number(readText(path.join(d.memory, 'memory.usage_in_bytes')));
    const stat = readText(path.join(d.memory, 'memory.stat')) || '';
    const m = /^total_inactive_file (\d+)$/m.exec(stat);
    const inactive = m ? Number(m[1]) : 0;
    if (!Number.isFinite(cpuNs) || !Number.isFinite(usage)) return null;
    return { cpuNs, memBytes: Math.max(0, usage - inactive), throttling: this.throttling(name) };
  }

  // The CFS quota's counters since the cgroup was made (cpu.stat): periods with the quota
  // in force, periods in which the instance was throttled, time throttled; null if unreadable.
  throttling(name) {
    const text = readText(path.join(this.dirs(name).cpu, 'cpu.stat'));
    const field = (key) => Number((new RegExp(`^${key} (\\d+)$`, 'm').exec(text || '') || [])[1]);
    const periods = field('nr_periods');
    const throttled = field('nr_throttled');
    const throttledNs = field('throttled_time');
    if (![periods, throttled, throttledNs].every(Number.isFinite)) return null;
    return { periods, throttled_periods: throttled, throttled_us: Math.round(throttledNs / 1000) };
  }

  pids(name) {
    if (!this.available) return [];
    const text = readText(path.join(this.dirs(name).memory, 'cgroup.procs')) || '';
    return text.split('\n').filter(Boolean).map(Number);
  }

  remove(name) {
    if (!this.available) return;
    for (const dir of Object.values(this.dirs(name))) {
      try { fs.rmdirSync(dir); } catch (e) { if (e.code !== 'ENOENT') this.log(`cannot remove cgroup ${dir}: ${e.code}`); }
    }
  }

  // Remove every cgroup of this CFSCALE_HOME (teardown); returns what could not go.
  removeAll() {
    const left = [];
    for (const c of CONTROLLERS) {
      const top = path.join(this.root, c, this.group);
      let names = [];
      try { names = fs.readdirSync(top, { withFileTypes: true }).filter((e) => e.isDirectory()).map((e) => e.name); } catch { continue; }
      for (const n of names) { try { fs.rmdirSync(path.join(top, n)); } catch { left.push(path.join(top, n)); } }
      try { fs.rmdirSync(top); } catch { left.push(top); }
    }
    return left;
  }
}

module.exports = { Cgroups, CFS_PERIOD_US, cfCpuShares };
