'use strict';
// round-usage.js — what the round's neighbours used while it ran (round.js): the
// --front-proxies' CPU and connections (front-proxies.js), the local router's CPU
// (router-usage.js) and where the host's CPU went (host-cpu.js). Each is read at the end of
// the warm-up (the start with the steady-state gate) and again once the loadgens are done;
// the difference goes into rounds.environment (front_proxy_usage; router_cpu_cores,
// router_cpu_quota_cores; host_cpu) with one summary line each. All three are local only.
//
// startRoundUsage(p, { app, dbUrl, withFrontProxies }, fromMs) → Promise<{ stop(conn, roundId) → Promise, cancel() }>
//   p: ops Platform; app: the app measured; dbUrl: the results database's URL (its backends
//   are a part of host_cpu); fromMs: from now to the end of the warm-up. stop reads again,
//   prints the lines and records the figures (conn: a results-db.js Connection); a figure
//   that cannot be recorded is said so, one that cannot be read is left out.
const frontProxies = require('./front-proxies');
const { localCells } = require('./local-cells');
const { readRouterCpu, routerCores } = require('./router-usage');
const { hostCpuCores, hostCpuLine, readHostCpu } = require('./host-cpu');

const ENVIRONMENT_SQL = (fields) =>
  `UPDATE rounds SET environment = COALESCE(environment, '{}') || jsonb_build_object(${fields}) WHERE id = $1`;

/** An UPDATE that may fail: true when it was written. */
const recorded = (conn, sql, params) => conn.query(sql, params).then(() => true, () => false);

/**
 * Where the parts of this machine's CPU are to be found (host-cpu.js), from `cfl status`: the
 * instances' cgroup, the daemon's pid, PostgreSQL's data dir; the results database's name.
 */
async function hostCpuPlaces(p, app, dbUrl) {
  const s = await p.cflQuery('status', { stderr: 'ignore' });
  if (s.code !== 0) return null;
  const group = /cgroups:\s+on \((cfscale-[0-9a-f]+)\)/.exec(s.stdout)?.[1];
  if (!group) return null;
  return {
    group, app, cells: await localCells(p), daemonPid: Number(/daemon pid (\d+)/.exec(s.stdout)?.[1]) || null,
    pgDataDir: /^postgres: .*, data in (.+)$/m.exec(s.stdout)?.[1] ?? null,
    resultsDb: decodeURIComponent(new URL(dbUrl).pathname.slice(1)),
  };
}

/** The front proxies' CPU and connections over the round: into rounds.environment and one line. */
async function recordFrontUsage(p, conn, roundId, before) {
  const usage = frontProxies.usageBetween(await before, await frontProxies.readUsage(p));
  if (!usage) return p.cli.log('front proxies: usage not readable');
  p.cli.log(frontProxies.usageLine(usage));
  if (!(await recorded(conn, ENVIRONMENT_SQL("'front_proxy_usage', $2::jsonb"), [roundId, JSON.stringify(usage)]))) {
    p.cli.log('front proxies: usage not recorded');
  }
}

/** The local router's CPU over the round (router-usage.js): into rounds.environment and one line. */
async function recordRouterUsage(p, conn, roundId, before) {
  const after = await readRouterCpu(p);
  const cores = routerCores(await before, after);
  if (cores === null) return;
  const quota = after.quotaCores;
  p.cli.log(`router (HAProxy) over the round: ${cores.toFixed(3)} cores (quota ${quota === null ? 'none' : `${quota} cores`})`);
  const sql = ENVIRONMENT_SQL("'router_cpu_cores', $2::float8, 'router_cpu_quota_cores', $3::float8");
  if (!(await recorded(conn, sql, [roundId, cores, quota]))) p.cli.log('router: usage not recorded');
}

/** The host's CPU over the round by part (host-cpu.js) into rounds.environment.host_cpu, and a line. */
async function recordHostCpu(p, conn, roundId, places, before) {
  const h = places && hostCpuCores(await before, readHostCpu(places), places.cells);
  if (!h) return;
  p.cli.log(hostCpuLine(h));
  if (!(await recorded(conn, ENVIRONMENT_SQL("'host_cpu', $2::jsonb"), [roundId, JSON.stringify(h)]))) {
    p.cli.log('host CPU: not recorded');
  }
}

async function startRoundUsage(p, { app, dbUrl, withFrontProxies }, fromMs) {
  const local = p.name === 'local';
  // The readings at the end of the warm-up (promises of them): null until their timer fired (or unreadable).
  const before = { front: null, router: null, host: null };
  const timers = [];
  if (withFrontProxies) timers.push(setTimeout(() => { before.front = frontProxies.readUsage(p); }, fromMs));
  if (local) timers.push(setTimeout(() => { before.router = readRouterCpu(p); }, fromMs));
  const places = local ? await hostCpuPlaces(p, app, dbUrl) : null;
  if (places) timers.push(setTimeout(() => { before.host = readHostCpu(places); }, fromMs));
  return {
    /** The readings not taken yet are not taken (a round that ended early). */
    cancel() {
      for (const t of timers) clearTimeout(t);
    },
    async stop(conn, roundId) {
      for (const t of timers) clearTimeout(t);
      if (withFrontProxies) await recordFrontUsage(p, conn, roundId, before.front);
      await recordRouterUsage(p, conn, roundId, before.router);
      await recordHostCpu(p, conn, roundId, places, before.host);
    },
  };
}

module.exports = { startRoundUsage };
