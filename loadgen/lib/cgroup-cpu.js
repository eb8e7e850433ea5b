'use strict';
// The CPU the generator wanted but was not given: its own cgroup's cpu.stat (nr_periods,
// nr_throttled and the throttled time), read at run start and end. A throttled loadgen
// measures its own starvation, not the app (docs/cf-platform.md §7). The cgroup comes from
// /proc/self/cgroup: cgroup v2 "0::PATH" → ROOT/PATH/cpu.stat (throttled_usec); v1
// "N:cpu,cpuacct:PATH" → ROOT/<the cpu mount>/PATH/cpu.stat (throttled_time in ns). Inside a
// container's cgroup namespace PATH is "/" and the file sits at the mount's root. null when
// no cpu.stat is visible.

const fs = require('node:fs');
const path = require('node:path');

const CGROUP_ROOT = '/sys/fs/cgroup';

/** Candidate cpu.stat paths for the process whose /proc/PID/cgroup text is given, best first. */
function cpuStatPaths(cgroupText, root = CGROUP_ROOT) {
  const v1 = [];
  const v2 = [];
  const mountRoots = [];
  for (const line of cgroupText.split('\n')) {
    const m = /^(\d+):([^:]*):(.*)$/.exec(line.trim());
    if (!m) continue;
    if (m[1] === '0' && m[2] === '') {
      v2.push(path.join(root, m[3], 'cpu.stat'));
      mountRoots.push(path.join(root, 'cpu.stat'));
    } else if (m[2].split(',').includes('cpu')) {
      for (const mount of [m[2], 'cpu,cpuacct', 'cpu']) {
        v1.push(path.join(root, mount, m[3], 'cpu.stat'));
        mountRoots.push(path.join(root, mount, 'cpu.stat'));
      }
    }
  }
  // v1 first: when the cpu controller is on v1, v2's cpu.stat has no throttling fields.
  // The mount roots last: a container without a cgroup namespace may see its own cgroup
  // there while /proc/self/cgroup names the host's path.
  return [...new Set([...v1, ...v2, ...mountRoots])];
}

/** {periods, throttledPeriods, throttledUs} of a cpu.stat text, or null without the fields. */
function parseCpuStat(text) {
  const v = {};
  for (const line of text.split('\n')) {
    const [k, n] = line.trim().split(/\s+/);
    if (k) v[k] = Number(n);
  }
  if (v.nr_periods === undefined || v.nr_throttled === undefined) return null;
  const throttledUs = v.throttled_usec !== undefined ? v.throttled_usec : Math.round((v.throttled_time || 0) / 1000);
  return { periods: v.nr_periods, throttledPeriods: v.nr_throttled, throttledUs };
}

/** The first readable cpu.stat with throttling fields for this process: a reader, or null. */
function openCpuStat(cgroupFile = '/proc/self/cgroup', root = CGROUP_ROOT) {
  let text;
  try { text = fs.readFileSync(cgroupFile, 'utf8'); } catch { return null; }
  for (const p of cpuStatPaths(text, root)) {
    let stat;
    try { stat = parseCpuStat(fs.readFileSync(p, 'utf8')); } catch { continue; }
    if (stat) return { path: p, read: () => { try { return parseCpuStat(fs.readFileSync(p, 'utf8')); } catch { return null; } } };
  }
  return null;
}

/** loadgen_runs columns of the change between two readings (all null when either is). */
function throttlingDelta(start, end) {
  if (!start || !end) return { cpu_periods: null, cpu_throttled_periods: null, cpu_throttled_ms: null };
  return {
    cpu_periods: end.periods - start.periods,
    cpu_throttled_periods: end.throttledPeriods - start.throttledPeriods,
    cpu_throttled_ms: Math.round((end.throttledUs - start.throttledUs) / 1000),
  };
}

module.exports = { cpuStatPaths, parseCpuStat, openCpuStat, throttlingDelta };
