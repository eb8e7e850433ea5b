// synthetic.js (test helper) — realistic rounds written straight into the results
// tables: requests (with errors and warm-up samples), loadgen health, instance stats,
// server and router timings joined by correlation id, instance events. The figures follow
// a simple model so tests know the answers (e.g. throughput = requests / measured span).
'use strict';

let clock = Date.parse('2026-11-21T10:00:00Z');

// A round's environment as run-round.sh records it on the local platform with cells.
const SYNTHETIC_ENV = { host_cpu: { cells: { sut_cpus: '1', harness_cpus: '0', sut_busy: 0.5, harness_busy: 0.5 } }, cpu_per_gb: 1.0 };

/**
 * Insert one finished round. p: {app, instances, loadgens, parallel|rate, label,
 * experiment, requests (after warm-up), coverage (fraction of the measured part the samples
 * span, default 1), latencyMs, errorEvery, cpuPerInstance,
 * memMbPerInstance, loadgenCpu, late, restarts, status, warmupMs, durationMs, columns (other
 * rounds columns to set, e.g. {timeout_ms: 5000, plan: {loadbalancing: 'least-connection'}})}.
 * Returns the round id.
 */
async function insertRound(client, p) {
  const durationMs = p.durationMs ?? 10_000;
  const warmupMs = p.warmupMs ?? 2_000;
  const start = new Date(clock);
  clock += durationMs + 5_000;
  const finished = new Date(start.getTime() + durationMs);
  const open = p.rate !== undefined;
  const { rows } = await client.query(
    `INSERT INTO rounds (start_at, finished_at, status, platform, app, target_url, app_instances, loadgens, model,
       parallel, rate, duration_ms, warmup_ms, scenario, label, experiment, git_rev, versions, environment, settings)
     VALUES ($1, $2, $3, 'local', $4, 'http://127.0.0.1:48888', $5, $6, $7, $8, $9, $10, $11, 'read', $12, $13,
       'abc1234', $14, $15, $16) RETURNING id`,
    [start, finished, p.status ?? 'done', p.app, p.instances, p.loadgens, open ? 'open' : 'closed',
      open ? null : p.parallel, open ? p.rate : null, durationMs, warmupMs, p.label ?? null, p.experiment ?? null,
      { node: 'v20.20.2', app: p.app }, SYNTHETIC_ENV, p.settings ?? {}]);
  const id = rows[0].id;
  // Other recorded parameters, as run-round.sh writes them (timeout_ms, plan, environment...).
  for (const [col, v] of Object.entries(p.columns ?? {})) {
    if (!/^[a-z_]+$/.test(col)) throw new Error(`insertRound: bad column ${col}`);
    await client.query(`UPDATE rounds SET ${col} = $2 WHERE id = $1`, [id, v]);
  }
  const n = p.requests ?? 200;
  const measureMs = (durationMs - warmupMs) * (p.coverage ?? 1);
  // n requests spread over the measured span, plus 20 warm-up requests to be excluded.
  await client.query(
    `INSERT INTO requests (correlation_id, round_id, loadgen_index, op, intended_at, started_at, latency_us,
       status, error_kind, app_instance, vcap_request_id)
     SELECT gen_random_uuid(), $1::bigint, i % $2, 'read', t, t, lat, CASE WHEN err THEN 503 ELSE 200 END,
            CASE WHEN err THEN 'status' END, i % $3, 'vcap-' || $1::bigint || '-' || i
       FROM (SELECT i,
                    $4::timestamptz + make_interval(secs => ($5 + (i - 1) * $6 / $7) / 1000.0) AS t,
                    (($8::float8 * 1000) * (0.8 + 0.4 * ((i * 7919) % 100) / 100.0))::bigint AS lat,
                    ($9::int > 0 AND i % $9::int = 0) AS err
               FROM generate_series(1, $7) i) s`,
    [id, p.loadgens, p.instances, start, warmupMs, measureMs - 1, n, p.latencyMs ?? 10, p.errorEvery ?? 0]);
  await client.query(
    `INSERT INTO requests (correlation_id, round_id, loadgen_index, op, intended_at, started_at, latency_us, status)
     SELECT gen_random_uuid(), $1, 0, 'read', t, t, 900000, 200
       FROM (SELECT $2::timestamptz + make_interval(secs => i / 100.0) AS t FROM generate_series(1, 20) i) s`, [id, start]);
  // Where the time went: router 85 %, app 70 %, pool wait 5 %, database 40 % of the loadgen's.
  await client.query(
    `INSERT INTO server_timings (round_id, app, instance_index, correlation_id, route, status, started_at,
       handler_us, pool_wait_us, db_us)
     SELECT round_id, $2, app_instance, correlation_id::text, 'GET /ads/{id}', status, started_at,
            latency_us * 0.7, latency_us * 0.05, latency_us * 0.4
       FROM requests WHERE round_id = $1 AND app_instance IS NOT NULL`, [id, p.app]);
  await client.query(
    `INSERT INTO router_timings (round_id, platform, app, at, method, path, status, response_time_us,
       gorouter_time_us, app_index, vcap_request_id)
     SELECT round_id, 'local', $2, started_at, 'GET', '/ads/1', status, latency_us * 0.85, 100, app_instance, vcap_request_id
       FROM requests WHERE round_id = $1 AND vcap_request_id IS NOT NULL`, [id, p.app]);
  for (let lg = 0; lg < p.loadgens; lg++) {
    const cpuMs = Math.round((p.loadgenCpu ?? 0.2) * durationMs);
    await client.query(
      `INSERT INTO loadgen_runs (round_id, instance_index, status, started_at, finished_at, sent, ok, errors, late,
         cpu_user_ms, cpu_system_ms, eloop_delay_p99_us, eloop_delay_max_us)
       VALUES ($1, $2, 'done', $3, $4, $5, $5, 0, $6, $7, 0, $8, $8)`,
      [id, lg, start, finished, Math.ceil(n / p.loadgens), p.late ?? 0, cpuMs, p.eloopP99Us ?? 2000]);
  }
  for (let k = 0; k < p.instances; k++) {
    for (let s = 0; s < 4; s++) {
      const at = new Date(start.getTime() + warmupMs + 1000 + s * 2000);
      const jitter = 1 + ((s + k) % 3 - 1) * 0.02;
      await client.query(
        `INSERT INTO instance_stats (round_id, platform, app, instance_index, sampled_at, state, cpu, mem_bytes,
           mem_quota_bytes, cpu_quota_cores, source)
         VALUES ($1, 'local', $2, $3, $4, 'RUNNING', $5, $6, $7, $8, 'local')`,
        [id, p.app, k, at, (p.cpuPerInstance ?? 0.5) * jitter, Math.round((p.memMbPerInstance ?? 100) * 2 ** 20 * jitter),
          800 * 2 ** 20, p.cpuQuota ?? 1.0]);
    }
  }
  for (let r = 0; r < (p.restarts ?? 0); r++) {
    await client.query(
      `INSERT INTO instance_events (round_id, platform, app, instance_index, at, kind, detail)
       VALUES ($1, 'local', $2, 0, $3, 'crash', 'out of memory')`, [id, p.app, new Date(start.getTime() + 3000)]);
  }
  return id;
}

/**
 * A whole synthetic experiment: node-app and java-app, 1 and 2 instances, 2 load steps,
 * 3 interleaved repetitions. Java serves 1.4× the requests of Node.js; p95 is the same for
 * both (a difference that is not there). Round 2 of java-app ×2 at 4 loadgens had a crash;
 * repetition 3 at 4 loadgens had a saturated generator. Returns the round ids in order.
 */
async function insertExperiment(client, name) {
  const ids = [];
  for (let rep = 1; rep <= 3; rep++) {
    for (const k of [1, 2]) {
      for (const lg of [2, 4]) {
        for (const app of ['node-app', 'java-app']) {
          const base = app === 'node-app' ? 100 : 140;
          ids.push(await insertRound(client, {
            app, instances: k, loadgens: lg, parallel: 1, label: `exp:${name}:${app}:default:i${k}:l${lg}:p1:rep${rep}`,
            requests: Math.round(base * lg * (k === 1 ? 1 : 1.6)) + rep * 7, latencyMs: 5 + lg / k,
            cpuPerInstance: (app === 'node-app' ? 0.2 : 0.15) * lg, memMbPerInstance: app === 'node-app' ? 60 : 300,
            restarts: rep === 2 && k === 2 && lg === 4 && app === 'java-app' ? 1 : 0,
            loadgenCpu: rep === 3 && lg === 4 ? 0.95 : 0.3,
          }));
        }
      }
    }
  }
  return ids;
}

module.exports = { insertRound, insertExperiment };
