// envelope-store.js — log-cache's in-memory store: every line the platform writes to an
// app's log (app-log.js: APP, RTR, CELL, HEALTH, API, STG) kept as a loggregator v2 LOG
// envelope under the app's guid (log-cache's source id), newest MAX_PER_SOURCE per app,
// and read as log-cache reads: [start_time, end_time), envelope types, limit, descending
// (cloudfoundry/log-cache-release src/internal/routing/local_store_reader.go,
// src/internal/cache/store/store.go). Like log-cache it is memory only: a daemon restart
// forgets it (the files under $CFSCALE_HOME/logs keep the lines).
'use strict';

// log-cache keeps 100,000 envelopes per source (src/internal/cache/log_cache.go
// maxPerSource) and prunes further under memory pressure. Three times that here: a local
// round's router lines read from this store once the loadgens are done (collect-logs.js
// --since; run-round's routerLogAfterWindow) must all be there, warm-up included (a
// 60 s gate and a 60 s window at 2,500 req/s); about 1 KB of the daemon's memory a line.
const MAX_PER_SOURCE = 300000;
const DEFAULT_LIMIT = 100;
const MAX_LIMIT = 1000;

class LogCacheError extends Error {}

// "APP/PROC/WEB/0" → ["APP/PROC/WEB", "0"]: the CLI prints [source_type/instance_id].
function splitSource(source) {
  const i = source.lastIndexOf('/');
  return i > 0 ? [source.slice(0, i), source.slice(i + 1)] : [source, ''];
}

/** The index of the first entry of `list` (ascending ts) with ts >= t; list.length when none. */
function firstAtOrAfter(list, t) {
  let lo = 0;
  let hi = list.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (list[mid].ts < t) lo = mid + 1; else hi = mid;
  }
  return lo;
}

class EnvelopeStore {
  constructor(maxPerSource = MAX_PER_SOURCE) {
    this.maxPerSource = maxPerSource;
    this.sources = new Map(); // source id → [{ts (BigInt ns), sourceType, instanceId, stream, message, tags}]
    this.lastNs = 0n;
  }

  // Timestamps in ns, strictly increasing: the CLI walks on from the last one + 1 ns.
  now(ms = Date.now()) {
    const ns = BigInt(ms) * 1000000n;
    this.lastNs = ns > this.lastNs ? ns : this.lastNs + 1n;
    return this.lastNs;
  }

  add(sourceId, source, stream, message, tags = {}, ms = Date.now()) {
    let list = this.sources.get(sourceId);
    if (!list) { list = []; this.sources.set(sourceId, list); }
    const [sourceType, instanceId] = splitSource(source);
    list.push({ ts: this.now(ms), sourceType, instanceId, stream, message, tags });
    // Drop in blocks, not one by one, so a busy source does not shift the array per line.
    if (list.length > this.maxPerSource + this.maxPerSource / 10) list.splice(0, list.length - this.maxPerSource);
  }

  forget(sourceId) { this.sources.delete(sourceId); }

  // q: URLSearchParams of GET /api/v1/read/:source_id → envelopes in protojson shape.
  read(sourceId, q) {
    const int = (name, def) => {
      const v = q.get(name);
      if (v === null || v === '') return def;
      if (!/^-?\d+$/.test(v)) throw new LogCacheError(`invalid ${name}: ${v}`);
      return BigInt(v);
    };
    const start = int('start_time', 0n);
    let end = int('end_time', 0n);
    const limit = Number(int('limit', 0n));
    if (end !== 0n && start > end) throw new LogCacheError(`StartTime (${start}) must be before EndTime (${end})`);
    if (limit > MAX_LIMIT) throw new LogCacheError(`Limit (${limit}) must be 1000 or less`);
    if (limit < 0) throw new LogCacheError(`Limit (${limit}) must be greater than zero`);
    if (end === 0n) end = BigInt(Date.now()) * 1000000n + 1000000n;
    const types = q.getAll('envelope_types').filter((t) => t !== 'ANY');
    // Only LOG envelopes are kept: a read for other types alone finds nothing.
    if (types.length && !types.includes('LOG')) return [];
    // The list is in strictly increasing ts: the window is found by bisection, not a scan
    // (the CLI polls several times a second while a round fills the list).
    const list = this.sources.get(sourceId) || [];
    const from = firstAtOrAfter(list, start);
    const to = firstAtOrAfter(list, end);
    const n = limit || DEFAULT_LIMIT;
    const picked = q.get('descending') === 'true' ? list.slice(Math.max(from, to - n), to).reverse() : list.slice(from, Math.min(to, from + n));
    return picked.map((e) => envelope(sourceId, e));
  }

  meta() {
    const out = {};
    for (const [id, list] of this.sources) {
      if (!list.length) continue;
      out[id] = { count: String(list.length), expired: '0', oldestTimestamp: String(list[0].ts), newestTimestamp: String(list[list.length - 1].ts) };
    }
    return out;
  }
}

// A loggregator v2 Envelope with a Log message, as log-cache's HTTP gateway writes it
// (cloudfoundry/loggregator-api v2/envelope.proto; int64 as a string, bytes in base64).
function envelope(sourceId, e) {
  return {
    timestamp: String(e.ts),
    source_id: sourceId,
    instance_id: e.instanceId,
    deprecated_tags: {},
    tags: { ...e.tags, source_type: e.sourceType },
    log: { payload: Buffer.from(e.message, 'utf8').toString('base64'), type: e.stream === 'ERR' ? 'ERR' : 'OUT' },
  };
}

module.exports = { EnvelopeStore, LogCacheError, splitSource, MAX_PER_SOURCE };
