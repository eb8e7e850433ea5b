'use strict';
// host-cpu.js — where this machine's CPU went during a local round: the system under test
// (the app's instances, the backends of the app databases) beside the harness (the loadgens,
// the results database's backends, the router, the platform daemon, run-round with its
// collectors and cf calls), PostgreSQL's own processes that serve both, and the rest. On CF
// none of the harness runs on the app's cell; here it shares the cores, so a round records
// what measuring cost (rounds.environment.host_cpu, the summary, the report).
//
// readHostCpu(where) → a snapshot; hostCpuCores(a, b) → mean cores per part between two.
// where: { group (cgroup name cfscale-<hash>), app, daemonPid, pgDataDir, resultsDb, selfPid }.
// Instances are read from their cgroups' cpuacct (ns, exited processes included), the rest
// from /proc/PID/stat (a process that exits between two snapshots is not counted).
const fs = require('node:fs');
const path = require('node:path');

const CPUACCT = '/sys/fs/cgroup/cpuacct';
// USER_HZ: the unit of /proc/PID/stat's times and /proc/stat (100 on Linux x86_64).
const TICKS_PER_S = 100;

const SUT = ['app', 'app_db'];
const HARNESS = ['loadgens', 'results_db', 'router', 'daemon', 'control'];
const PARTS = [...SUT, ...HARNESS, 'pg_shared', 'other_instances', 'other'];

const readText = (f) => { try { return fs.readFileSync(f, 'utf8'); } catch { return null; } };

/**
 * Busy ticks of all CPUs and of each: /proc/stat's user, nice, system, irq and softirq (not idle
 * or iowait; not steal, the hypervisor's; guest time is already in user and nice).
 * { all, perCpu: { N: ticks } }.
 */
function busyTicks(text = readText('/proc/stat') || '') {
  const out = { all: 0, perCpu: {} };
  for (const line of text.split('\n')) {
    const m = /^cpu(\d*)\s+(.*)$/.exec(line);
    if (!m) continue;
    const [user, nice, system, , , irq, softirq] = m[2].trim().split(/\s+/).map(Number);
    const busy = user + nice + system + (irq || 0) + (softirq || 0);
    if (m[1] === '') out.all = busy; else out.perCpu[m[1]] = busy;
  }
  return out;
}

/** { pid: { ppid, ticks, cmd, cgroup } } of every process (its cpuacct cgroup path). */
function processes() {
  const out = new Map();
  for (const name of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    const stat = readText(`/proc/${name}/stat`);
    if (!stat) continue;
    // comm may hold spaces and parentheses: the fields start after its last ')'.
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const cg = /^\d+:[^:]*\bcpuacct\b[^:]*:(.*)$/m.exec(readText(`/proc/${name}/cgroup`) || '');
    out.set(Number(name), {
      ppid: Number(f[1]), ticks: Number(f[11]) + Number(f[12]),
      cmd: (readText(`/proc/${name}/cmdline`) || '').replace(/\0/g, ' ').trim(), cgroup: cg ? cg[1] : '',
    });
  }
  return out;
}

/** The part an instance cgroup (<app>-<index> or _router) of our group belongs to. */
function cgroupPart(dir, app) {
  if (dir === '_router') return 'router';
  if (/^loadgen-\d+$/.test(dir)) return 'loadgens';
  return dir.startsWith(`${app}-`) && /-\d+$/.test(dir) ? 'app' : 'other_instances';
}

/** A snapshot: { atNs, busyTicks, ns: {part: ns} (summed per part), byPid: the control's ns per process }. */
function readHostCpu({ group, app, daemonPid = null, pgDataDir = null, resultsDb = null, selfPid = process.pid }) {
  const ns = Object.fromEntries(PARTS.map((p) => [p, 0]));
  const base = path.join(CPUACCT, group);
  let dirs = [];
  try { dirs = fs.readdirSync(base, { withFileTypes: true }).filter((d) => d.isDirectory()).map((d) => d.name); } catch { /* no cgroups */ }
  for (const d of dirs) ns[cgroupPart(d, app)] += Number(readText(path.join(base, d, 'cpuacct.usage')) || 0);
  const procs = processes();
  const postmaster = pgDataDir ? Number((readText(path.join(pgDataDir, 'data', 'postmaster.pid')) || '').split('\n')[0]) : null;
  // run-round and everything it started (collectors, cf) is the round's control.
  const control = new Set([selfPid]);
  for (let grown = true; grown;) {
    grown = false;
    for (const [pid, p] of procs) if (!control.has(pid) && control.has(p.ppid)) { control.add(pid); grown = true; }
  }
  const byPid = new Map();
  for (const [pid, p] of procs) {
    if (p.cgroup.startsWith(`/${group}/`)) continue; // counted from its cgroup
    let part = 'other';
    if (pid === daemonPid) part = 'daemon';
    else if (control.has(pid)) part = 'control';
    else if (postmaster && (pid === postmaster || p.ppid === postmaster)) {
      // A backend's title: "postgres: USER DATABASE HOST(PORT) STATE"; the rest are the server's own.
      const m = /^postgres: (\S+) (\S+) \S+\(\d+\)/.exec(p.cmd);
      part = !m ? 'pg_shared' : m[2] === resultsDb ? 'results_db' : 'app_db';
    }
    ns[part] += (p.ticks * 1e9) / TICKS_PER_S;
    if (part === 'control') byPid.set(pid, (p.ticks * 1e9) / TICKS_PER_S);
  }
  const ticks = busyTicks();
  return { atNs: process.hrtime.bigint(), busyTicks: ticks.all, perCpu: ticks.perCpu, ns, byPid };
}

const round2 = (x) => Math.round(x * 1000) / 1000;

/**
 * How busy each cell's CPUs were between two snapshots (cells: `cfl cells`' { sut_cpus,
 * harness_cpus } as lists of CPU numbers): { sut_cpus, harness_cpus, sut_busy, harness_busy },
 * each busy a fraction of the cell's CPUs (0-1); null without cells.
 */
function cellsBusy(a, b, spanS, cells) {
  if (!cells || !a.perCpu || !b.perCpu) return null;
  const busy = (cpus) => cpus.reduce((t, c) => t + Math.max(0, (b.perCpu[c] ?? 0) - (a.perCpu[c] ?? 0)), 0) / TICKS_PER_S / spanS / cpus.length;
  return { sut_cpus: cells.sut_cpus, harness_cpus: cells.harness_cpus, sut_busy: round2(busy(cells.sut)), harness_busy: round2(busy(cells.harness)) };
}

/**
 * Mean cores per part between two snapshots, the sums of the system under test and of the
 * harness, the machine's busy cores and what of them no part holds, and with cells how busy
 * each cell's CPUs were: { span_s, busy_cores, sut_cores, harness_cores, rest_cores, parts, cells }.
 */
function hostCpuCores(a, b, cells = null) {
  if (!a || !b) return null;
  const spanS = Number(b.atNs - a.atNs) / 1e9;
  if (!(spanS > 0)) return null;
  const parts = Object.fromEntries(PARTS.map((p) => [p, round2(Math.max(0, b.ns[p] - a.ns[p]) / 1e9 / spanS)]));
  const sum = (names) => round2(names.reduce((t, n) => t + parts[n], 0));
  const busy = round2((b.busyTicks - a.busyTicks) / TICKS_PER_S / spanS);
  // The busy time no part holds: the kernel's (interrupts, the network stack's softirqs), and
  // processes that ended between the snapshots.
  const rest = round2(Math.max(0, busy - sum(PARTS)));
  return { span_s: round2(spanS), busy_cores: busy, sut_cores: sum(SUT), harness_cores: sum(HARNESS), rest_cores: rest, parts, cells: cellsBusy(a, b, spanS, cells) };
}

/** One summary line: where the host's CPU went. */
function hostCpuLine(h) {
  if (!h) return null;
  const f = (x) => x.toFixed(2);
  const p = h.parts;
  return `host CPU over the round: ${f(h.busy_cores)} cores busy; system under test ${f(h.sut_cores)} (app ${f(p.app)}, `
    + `its database ${f(p.app_db)}), harness ${f(h.harness_cores)} (loadgens ${f(p.loadgens)}, results database ${f(p.results_db)}, `
    + `router ${f(p.router)}, platform daemon ${f(p.daemon)}, run-round and collectors ${f(p.control)}), PostgreSQL's own `
    + `${f(p.pg_shared)}, other processes ${f(p.other + p.other_instances)}, the kernel and ended processes ${f(h.rest_cores ?? 0)}`
    + (h.cells ? `; cells: the system under test's CPU ${h.cells.sut_cpus} ${Math.round(100 * h.cells.sut_busy)} % busy, `
      + `the harness's CPU ${h.cells.harness_cpus} ${Math.round(100 * h.cells.harness_busy)} % busy` : '; no cells: the harness shared the CPUs of the system under test');
}

module.exports = { readHostCpu, hostCpuCores, hostCpuLine, cgroupPart, busyTicks, SUT, HARNESS, PARTS };
