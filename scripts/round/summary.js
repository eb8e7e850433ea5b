'use strict';
// summary.js — a round's summary from the results views (round_summary,
// round_instance_usage) and tables (loadgen_runs, instance_events), the verdict that
// decides whether the round failed its own criteria, and its text form.
const { hostCpuLine } = require('./host-cpu');
const { textTable } = require('./text-table');
const { loadSteady, steadyLines } = require('./steady-summary');
const { loadEvents, eventLines } = require('./event-summary');

// A round with more errors than this fraction of its samples failed (run-round.sh
// --max-error-rate): 1 %, loose enough for a short round's connection churn.
const DEFAULT_MAX_ERROR_RATE = 0.01;

/** Load everything the summary shows for one round (null when the round is absent). */
async function loadSummary(client, roundId) {
  const round = (await client.query(
    `SELECT r.*, s.samples, s.ok, s.errors, s.throughput_rps, s.p50_us, s.p95_us, s.p99_us, s.max_us,
            s.send_late_p50_us, s.send_late_p99_us
       FROM rounds r JOIN round_summary s ON s.round_id = r.id WHERE r.id = $1`, [roundId])).rows[0];
  if (!round) return null;
  // One connection runs one query at a time.
  const q = (text) => client.query(text, [roundId]).then((r) => r.rows);
  const errorKinds = await q(`SELECT q.error_kind AS kind, count(*)::int AS n FROM requests q JOIN rounds r ON r.id = q.round_id
        WHERE q.round_id = $1 AND q.error_kind IS NOT NULL
          AND q.intended_at >= round_measured_from(r)
        GROUP BY 1 ORDER BY 2 DESC`);
  const instances = await q(`SELECT u.* FROM round_instance_usage u JOIN rounds r ON r.id = u.round_id AND r.app = u.app
        WHERE u.round_id = $1 ORDER BY u.instance_index`);
  const events = await q('SELECT instance_index, at, kind, detail FROM instance_events WHERE round_id = $1 ORDER BY at, id');
  const loadgens = await q(`SELECT instance_index, status, sent, ok, errors, late, detail,
              cpu_user_ms, cpu_system_ms, eloop_delay_p99_us, eloop_delay_max_us, rss_max_bytes,
              cpu_periods, cpu_throttled_periods, cpu_throttled_ms,
              extract(epoch FROM coalesce(finished_at, now()) - started_at) * 1000 AS wall_ms
         FROM loadgen_runs WHERE round_id = $1 ORDER BY instance_index`);
  const traced = await q(`SELECT (SELECT count(*) FROM server_timings WHERE round_id = $1)::int AS server_timings,
              (SELECT count(*) FROM router_timings WHERE round_id = $1)::int AS router_timings,
              (SELECT count(*) FROM instance_stats WHERE round_id = $1)::int AS instance_stats`);
  // What the collectors caught: requests with a router record (on vcap_request_id, unique
  // across rounds: a lookup per request, whatever the planner believes of this round's size),
  // stats samples against the number expected (report_round_validity).
  const caught = await q(`SELECT count(q.*)::int AS requests, count(rt.vcap_request_id)::int AS routed,
              (SELECT stats_samples FROM report_round_validity WHERE round_id = $1)::int AS stats_samples,
              (SELECT stats_expected FROM report_round_validity WHERE round_id = $1)::int AS stats_expected
         FROM requests q LEFT JOIN router_timings rt ON rt.vcap_request_id = q.vcap_request_id WHERE q.round_id = $1`);
  return {
    round, errorKinds, instances, events, loadgens, traced: traced[0], caught: caught[0],
    steady: await loadSteady(client, roundId), roundEvents: await loadEvents(client, roundId),
  };
}

/** Router records against requests, stats samples against the number expected: a gap shows. */
function caughtLines({ round: r, caught: c }) {
  const statsShort = c.stats_expected !== null && c.stats_samples < c.stats_expected;
  return [
    `router records: ${c.routed} of ${c.requests} requests${c.requests > 0 ? ` (${pct(c.routed / c.requests)})` : ''}`,
    // A window shorter than the stats interval (CF refreshes every ~15 s) expects none: not judged.
    `stats samples in the measured window: ${c.stats_samples}${!c.stats_expected ? ''
      : ` of ${c.stats_expected} expected (one per ${r.environment.stats_interval_s} s per instance)`}`
      + (statsShort ? ': SHORT, samples were lost (CPU and memory figures rest on fewer)' : ''),
  ];
}

// The generator's send lateness p99 above this share of the latency p50: it measured itself
// (the report's 'generator-late' flag, report/lib/report/validity.js, reads the same share).
const GENERATOR_LATE_MAX_SHARE = 0.1;

/** Open model: the generator's send lateness beside the latencies it is part of, flagged when it weighs. */
function generatorLines(r) {
  if (r.send_late_p99_us === null || r.send_late_p99_us === undefined) return [];
  const late = Number(r.send_late_p99_us) > GENERATOR_LATE_MAX_SHARE * Number(r.p50_us);
  return [`generator send lateness (part of the latency): p50 ${ms(r.send_late_p50_us)}, p99 ${ms(r.send_late_p99_us)}`
    + (late ? `: GENERATOR LATE, p99 over ${pct(GENERATOR_LATE_MAX_SHARE, 0)} of the latency p50` : '')];
}

/** Why the round failed its own criteria: [] when it passed. */
function verdict(summary, { maxErrorRate }) {
  const { round, loadgens } = summary;
  const reasons = [];
  const byIndex = new Map(loadgens.map((l) => [l.instance_index, l]));
  for (let i = 0; i < round.loadgens; i++) {
    const l = byIndex.get(i);
    if (!l) reasons.push(`loadgen ${i} never started`);
    else if (l.status !== 'done') reasons.push(`loadgen ${i} did not finish (${l.status}${l.detail ? `: ${l.detail}` : ''})`);
  }
  const samples = Number(round.samples);
  if (samples === 0) reasons.push('no samples');
  const rate = errorRate(round);
  if (samples > 0 && rate > maxErrorRate) {
    reasons.push(`error rate ${pct(rate, 2)} above --max-error-rate ${pct(maxErrorRate, 2)}`);
  }
  return reasons;
}

function errorRate(round) {
  const samples = Number(round.samples);
  return samples > 0 ? Number(round.errors) / samples : 0;
}

const pct = (fraction, digits = 1) => `${(fraction * 100).toFixed(digits)} %`;
const ms = (us) => (us === null || us === undefined ? '-' : `${(Number(us) / 1000).toFixed(2)} ms`);
const mb = (bytes) => (bytes === null || bytes === undefined ? '-' : `${(Number(bytes) / 1048576).toFixed(1)} MB`);
// CPU wanted but not given: throttled CFS periods of the loadgen's cgroup ('-' when it could not see cpu.stat).
const throttled = (l) => (l.cpu_periods === null || l.cpu_periods === undefined ? '-'
  : `${l.cpu_throttled_periods}/${l.cpu_periods} periods, ${l.cpu_throttled_ms} ms`);
const num = (v, digits = 1) => (v === null || v === undefined ? '-' : Number(v).toFixed(digits));

const table = (header, rows) => textTable(header, rows, '  ');

/** The summary as lines of text. */
function formatSummary(summary, reasons) {
  const { round: r, errorKinds, instances, events, loadgens, traced } = summary;
  const load = r.model === 'closed' ? `parallel ${r.parallel}` : `rate ${r.rate}/s`;
  const length = r.duration_ms ? `${Number(r.duration_ms) / 1000}s` : `${r.requests} requests`;
  const kinds = errorKinds.map((k) => `${k.kind} ${k.n}`).join(', ');
  const lines = [
    `round ${r.id}: ${r.app} on ${r.platform}, ${r.app_instances} instance(s), `
      + `${r.loadgens} loadgen(s) x ${load}, ${length}, scenario ${r.scenario}${r.label ? `, label ${r.label}` : ''}`,
    `requests: ${r.samples} after warm-up, ${r.ok} ok, ${r.errors} errors (${pct(errorRate(r), 2)})${kinds ? ` [${kinds}]` : ''}`,
    `throughput: ${num(r.throughput_rps)} req/s`,
    `latency: p50 ${ms(r.p50_us)}, p95 ${ms(r.p95_us)}, p99 ${ms(r.p99_us)}, max ${ms(r.max_us)}`,
    ...generatorLines(r),
    ...steadyLines(summary.steady),
    ...eventLines(summary.roundEvents || { events: [] }),
    'app instances:',
    ...(instances.length === 0 ? ['  (no stats samples)'] : table(
      ['index', 'cpu avg', 'cpu max', 'cpu quota', 'mem avg', 'mem max', 'mem quota', 'samples'],
      instances.map((u) => [u.instance_index, pct(u.cpu_avg ?? 0), pct(u.cpu_max ?? 0),
        u.cpu_quota_cores === null ? '-' : `${num(u.cpu_quota_cores, 2)} cores`,
        mb(u.mem_avg_bytes), mb(u.mem_max_bytes), mb(u.mem_quota_bytes), u.samples]))),
    `restarts/crashes: ${events.length === 0 ? 'none' : ''}`,
    ...events.map((e) => `  instance ${e.instance_index ?? '?'}: ${e.kind}${e.detail ? ` (${e.detail})` : ''} at ${e.at.toISOString()}`),
    'loadgens:',
    ...table(['index', 'status', 'sent', 'ok', 'errors', 'late', 'cpu', 'throttled', 'eloop p99', 'eloop max', 'rss max'],
      loadgens.map((l) => [l.instance_index, l.status, l.sent, l.ok, l.errors, l.late,
        l.cpu_user_ms === null ? '-' : pct((Number(l.cpu_user_ms) + Number(l.cpu_system_ms ?? 0)) / Math.max(1, l.wall_ms)),
        throttled(l), ms(l.eloop_delay_p99_us), ms(l.eloop_delay_max_us), mb(l.rss_max_bytes)])),
    `traced: ${traced.server_timings} server timings, ${traced.router_timings} router records, `
      + `${traced.instance_stats} stats samples`,
    ...caughtLines(summary),
    ...(r.environment?.host_cpu ? [hostCpuLine(r.environment.host_cpu)] : []),
    ...(Number(r.db_outage_ms) > 0 ? [`results database: unreachable for ${(Number(r.db_outage_ms) / 1000).toFixed(1)} s `
      + 'during the round (writes held and made once it was back)'] : []),
    reasons.length === 0 ? `verdict: ok` : `verdict: FAILED: ${reasons.join('; ')}`,
  ];
  return lines;
}

module.exports = { loadSummary, verdict, formatSummary, errorRate, DEFAULT_MAX_ERROR_RATE };
