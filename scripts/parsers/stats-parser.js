'use strict';
// stats-parser.js — one parsed stats JSON value → `instance_stats` rows (pure, no I/O).
//
// Two shapes are understood (docs/cf-platform.md):
//   * §1 the cf statistics plugin (`cf statistics APP --debug [--full]`): one object per
//     instance and poll,
//     {"instance_index":"0","metrics":…}. The index is a STRING. Without --full,
//     metrics = usage {time,cpu,mem,disk}; with --full, metrics = {state, stats:{uptime,
//     mem_quota, disk_quota, usage:{…}}} and the local platform adds stats.cpu_quota (cores).
//   * §2 a v3 stats document (`cf curl /v3/apps/GUID/processes/web/stats`):
//     {"resources":[{index, state, uptime, mem_quota, disk_quota, usage:{time, cpu,
//     cpu_entitlement, mem, disk}}]}; usage is {} when CC has no data, cpu_entitlement
//     and the quotas may be null.
// Units as given: cpu is a fraction of one core (§1, §7), memory and disk in bytes,
// uptime in seconds.
//
// `usage.time` is the time CC answered, not the time the sample was taken (§1, §2), and
// cells send a new sample only every ~15 s (§1 Freshness): 1 s polls repeat the same
// values under new times. StatsDeduper drops such repeats: a row whose metrics equal the
// instance's previous kept row is dropped unless that one is ENVELOPE_INTERVAL_SEC old
// (then it is kept, so a flat metric still gets one row per platform interval).
//
// Both shapes carry the instance's `host` (the cell's address, §1 and §2; locally 127.0.0.1):
// a row gets it when it is there.
//
// The local platform adds `stats.cpu_quota` (cores) and `cpu_throttling` {periods,
// throttled_periods, throttled_us} (its cgroup's cpu.stat counters) to both shapes; a
// row gets the three throttling columns only when they are there.
//
// A DOWN/CRASHED instance has no usage and no time (§1 reporter_mixins): it is kept with
// the read time (whole seconds, so 1 s polls do not multiply it) and null metrics, so the
// report sees the instance was down. A RUNNING instance without usage is skipped: it
// says nothing.

const { ENVELOPE_INTERVAL_SEC } = require('../ops/stats-source');
const ROW_COLUMNS = [
  'instance_index', 'sampled_at', 'state', 'cpu', 'cpu_entitlement', 'mem_bytes',
  'mem_quota_bytes', 'cpu_quota_cores', 'disk_bytes', 'disk_quota_bytes', 'uptime_s', 'source',
  'cpu_periods', 'cpu_throttled_periods', 'cpu_throttled_us', 'host',
];

/** Number or null; anything else (strings, NaN, objects) is null. */
function num(v) {
  return typeof v === 'number' && Number.isFinite(v) ? v : null;
}

/** Integer byte/second counts (bigint columns) or null. */
function int(v) {
  const n = num(v);
  return n === null ? null : Math.round(n);
}

/** The instance index: integer ≥ 0 from a number or a decimal string, else null. */
function parseIndex(v) {
  if (typeof v === 'number' && Number.isInteger(v) && v >= 0) return v;
  if (typeof v === 'string' && /^[0-9]{1,9}$/.test(v)) return Number(v);
  return null;
}

/** ISO timestamp string or null when absent or unparsable. */
function parseTime(v) {
  if (typeof v !== 'string' || v === '') return null;
  const ms = Date.parse(v);
  return Number.isNaN(ms) ? null : new Date(ms).toISOString();
}

function isObject(v) {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

/**
 * Build one row from the common parts of both shapes.
 * @returns {{row?: object, skip?: string}}
 */
function buildRow({ index, state, usage, stats, source, readAt }) {
  if (index === null) return { skip: 'bad instance index' };
  const sampledAt = parseTime(usage && usage.time);
  const hasUsage = sampledAt !== null;
  if (!hasUsage && (state === null || state === 'RUNNING')) return { skip: 'no usage' };
  const readSecond = new Date(Math.floor(readAt.getTime() / 1000) * 1000).toISOString();
  const th = hasUsage && isObject(stats.cpu_throttling) ? stats.cpu_throttling : null;
  return {
    row: {
      instance_index: index,
      sampled_at: hasUsage ? sampledAt : readSecond,
      state,
      cpu: hasUsage ? num(usage.cpu) : null,
      cpu_entitlement: hasUsage ? num(usage.cpu_entitlement) : null,
      mem_bytes: hasUsage ? int(usage.mem) : null,
      mem_quota_bytes: int(stats.mem_quota),
      cpu_quota_cores: num(stats.cpu_quota),
      disk_bytes: hasUsage ? int(usage.disk) : null,
      disk_quota_bytes: int(stats.disk_quota),
      uptime_s: int(stats.uptime),
      source,
      ...(th ? { cpu_periods: int(th.periods), cpu_throttled_periods: int(th.throttled_periods), cpu_throttled_us: int(th.throttled_us) } : {}),
      // The cell (or, locally, the machine) the instance runs on: placement (study §5.4).
      ...(typeof stats.host === 'string' && stats.host !== '' ? { host: stats.host } : {}),
    },
  };
}

/** Plugin shape (§1), full or not. */
function pluginRows(value, source, readAt) {
  const index = parseIndex(value.instance_index);
  const m = value.metrics;
  if (!isObject(m)) return [{ skip: 'metrics missing' }];
  if ('stats' in m || 'state' in m) {
    const stats = isObject(m.stats) ? m.stats : {};
    const usage = isObject(stats.usage) ? stats.usage : null;
    const state = typeof m.state === 'string' ? m.state : null;
    return [buildRow({ index, state, usage, stats, source, readAt })];
  }
  // Not --full: metrics is the usage itself; no state, no quotas.
  return [buildRow({ index, state: null, usage: m, stats: {}, source, readAt })];
}

/** v3 stats document (§2): every resource of the process. */
function v3Rows(value, readAt) {
  return value.resources.map((r) => {
    if (!isObject(r)) return { skip: 'resource not an object' };
    const usage = isObject(r.usage) ? r.usage : null;
    const state = typeof r.state === 'string' ? r.state : null;
    return buildRow({ index: parseIndex(r.index), state, usage, stats: r, source: 'v3', readAt });
  });
}

/**
 * Rows of one parsed JSON value.
 * @param {unknown} value one JSON value from the stream
 * @param {{platform: 'local'|'cf', readAt?: Date}} options
 * @returns {{rows: object[], skipped: string[]}} skipped holds one reason per dropped entry
 */
function statsRows(value, { platform, readAt = new Date() }) {
  let results;
  if (isObject(value) && 'instance_index' in value) {
    results = pluginRows(value, platform === 'local' ? 'local' : 'plugin', readAt);
  } else if (isObject(value) && Array.isArray(value.resources)) {
    results = v3Rows(value, readAt);
  } else {
    results = [{ skip: 'unknown shape' }];
  }
  const rows = [];
  const skipped = [];
  for (const r of results) {
    if (r.row) rows.push(r.row);
    else skipped.push(r.skip);
  }
  return { rows, skipped };
}

const COMPARED = ['state', 'cpu', 'cpu_entitlement', 'mem_bytes', 'disk_bytes', 'mem_quota_bytes', 'cpu_quota_cores',
  'cpu_periods', 'cpu_throttled_periods'];

/** Drops repeated samples of an instance (see the header). State per instance index. */
class StatsDeduper {
  constructor(intervalSec = ENVELOPE_INTERVAL_SEC) {
    this.intervalMs = intervalSec * 1000;
    this.last = new Map(); // instance_index -> last kept row
  }

  /** @returns {boolean} true when the row is new information and should be written */
  keep(row) {
    const prev = this.last.get(row.instance_index);
    if (prev && COMPARED.every((k) => prev[k] === row[k])) {
      const ageMs = Date.parse(row.sampled_at) - Date.parse(prev.sampled_at);
      if (ageMs < this.intervalMs) return false;
    }
    this.last.set(row.instance_index, row);
    return true;
  }
}

module.exports = { statsRows, StatsDeduper, ROW_COLUMNS, ENVELOPE_INTERVAL_SEC, parseIndex };
