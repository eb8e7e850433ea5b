// instance-usage.js — per-instance CPU and memory, sampled every second from the instance's cgroup
// (cpuacct.usage delta / wall time = fraction of one core, as CF's `cpu`; memory usage minus
// inactive file cache, as Garden), or from /proc when cgroups are unavailable; served in the
// cf statistics plugin's JSON line shape (docs/cf-platform.md §1) and the v3 process
// stats shape (§2). Local extensions in both shapes: `cpu_quota` (cores, when the instance
// has one) and `cpu_throttling`
// {periods, throttled_periods, throttled_us}, the cgroup's cpu.stat counters (CFS quota
// throttling), when readable.
'use strict';

const fs = require('node:fs');
const { FDS_QUOTA } = require('./cf-env');

const MB = 1024 * 1024;
const CLOCK_TICKS = 100; // USER_HZ on Linux
const PAGE_SIZE = 4096;

// Fallback without cgroups: sum over the instance's process group.
function procUsage(pgid) {
  let ticks = 0;
  let rssPages = 0;
  for (const d of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    let stat;
    try { stat = fs.readFileSync(`/proc/${d}/stat`, 'utf8'); } catch { continue; }
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    if (Number(f[2]) !== pgid) continue; // field 5: pgrp
    ticks += Number(f[11]) + Number(f[12]); // utime + stime
    rssPages += Number(f[21]);
  }
  return { cpuNs: ticks * (1e9 / CLOCK_TICKS), memBytes: rssPages * PAGE_SIZE };
}

// Take one sample of inst; keeps inst.usage = {time, cpu, mem, disk}.
function sample(inst, cgroups, diskBytes, now = Date.now()) {
  if (!inst.pid) { inst.usage = null; return; }
  const u = cgroups.usage(inst.cgName) || procUsage(inst.pid);
  if (inst.lastCpu && now > inst.lastCpu.t) {
    const cpu = Math.max(0, (u.cpuNs - inst.lastCpu.ns) / ((now - inst.lastCpu.t) * 1e6));
    inst.usage = { time: new Date(now), cpu, mem: u.memBytes, disk: diskBytes };
  } else if (!inst.usage) {
    inst.usage = { time: new Date(now), cpu: 0, mem: u.memBytes, disk: diskBytes };
  }
  if (u.throttling) inst.usage.throttling = u.throttling;
  inst.lastCpu = { ns: u.cpuNs, t: now };
}

// RFC 3339 with +00:00, as CC's Time.now.utc.to_datetime.rfc3339 (§1).
function rfc3339(d) { return `${d.toISOString().slice(0, 19)}+00:00`; }

// A stopped app has no instance lines in the plugin's output; CC's v3 stats list a stopped
// process's instances as DOWN (instances_stats_reporter.rb, handle_no_running_instances), and
// only its desired indexes: an instance a scale-in is stopping is gone from them at once
// (stats_for_app: `next unless index < process.instances`, docs/cf-platform.md §25): `v3: true`.
function indexesOf(app, instances, v3 = false) {
  const n = v3 ? app.instances : Math.max(app.state === 'STARTED' ? app.instances : 0, ...instances.map((i) => i.index + 1), 0);
  return Array.from({ length: n }, (_, i) => i);
}

// GET /v3/apps/GUID/processes/web/stats, as CC's process_stats_presenter.rb presents
// instances_stats_reporter.rb's (docs/cf-platform.md §2): an instance with no process is
// DOWN with only type, index, state, routable, uptime 0, isolation_segment and details; a
// running or starting one carries every field, its usage stamped with the time CC answered
// (RFC 3339, whole seconds), zeros until a first sample exists (missing_process_stats).
function v3Stats(app, instances, cpuQuota, now = new Date()) {
  const byIndex = new Map(instances.map((i) => [i.index, i]));
  const resources = indexesOf(app, instances, true).map((index) => {
    const inst = byIndex.get(index);
    if (!inst || inst.state === 'DOWN') {
      return { type: 'web', index, state: 'DOWN', routable: null, uptime: 0, isolation_segment: null, details: null };
    }
    const running = inst.state === 'RUNNING';
    const u = inst.usage || { cpu: 0, mem: 0, disk: 0 };
    return {
      type: 'web',
      index,
      state: inst.state,
      routable: running && inst.ready !== false,
      usage: {
        time: rfc3339(now),
        cpu: u.cpu,
        cpu_entitlement: cpuQuota ? u.cpu / cpuQuota : null,
        mem: u.mem,
        disk: u.disk,
        log_rate: 0,
      },
      host: '127.0.0.1',
      instance_guid: inst.guid,
      instance_internal_ip: '127.0.0.1',
      instance_ports: inst.port ? [{ external: inst.port, internal: inst.port, external_tls_proxy_port: null, internal_tls_proxy_port: null }] : [],
      uptime: running ? Math.floor((now - inst.since) / 1000) : 0,
      mem_quota: app.memoryMb * MB,
      disk_quota: app.diskMb * MB,
      fds_quota: FDS_QUOTA,
      log_rate_limit: -1,
      isolation_segment: null,
      details: inst.state === 'CRASHED' ? 'crashed' : null,
      ...(cpuQuota ? { cpu_quota: cpuQuota } : {}),
      ...(u.throttling ? { cpu_throttling: u.throttling } : {}),
    };
  });
  return { resources };
}

module.exports = { sample, v3Stats, procUsage, rfc3339 };
