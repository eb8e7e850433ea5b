'use strict';
// router-usage.js — the local router's CPU over a round (study §7.3: the study checked the
// router's load before blaming the app). The local platform runs its HAProxy router in its
// own cgroup; `cfl router-usage` prints the CPU it used since it started. Read at the end of
// the warm-up and at the end of the round, the difference over the span is the router's mean
// CPU in cores, recorded as rounds.environment.router_cpu_cores, with its cgroup's quota as
// router_cpu_quota_cores (null: none) for scale-until-SLO's router-load rule. On CF the router (Gorouter)
// is the foundation's and its load cannot be observed: nothing is recorded.
const path = require('node:path');
const { capture } = require('../ops/exec');

// The local platform's own verb: not a cf command, so always scripts/cfl.
const CFL = path.join(__dirname, '..', 'cfl');

/** {atNs, cpuNs, quotaCores} now, or null (dry run, CF, no cgroups, the daemon not answering). */
async function readRouterCpu(p) {
  if (p.dryRun || p.name !== 'local') return null;
  const r = await capture([CFL, 'router-usage'], { stderr: 'ignore' });
  if (r.code !== 0) return null;
  try {
    const { cpu_ns: cpuNs, cpu_quota_cores: quota } = JSON.parse(r.stdout);
    const quotaCores = Number.isFinite(quota) && quota > 0 ? quota : null;
    return Number.isFinite(cpuNs) ? { atNs: process.hrtime.bigint(), cpuNs, quotaCores } : null;
  } catch { return null; }
}

/** Mean cores between two readings, or null. */
function routerCores(a, b) {
  if (!a || !b) return null;
  const spanNs = Number(b.atNs - a.atNs);
  return spanNs > 0 ? (b.cpuNs - a.cpuNs) / spanNs : null;
}

module.exports = { readRouterCpu, routerCores };
