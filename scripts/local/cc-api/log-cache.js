// log-cache.js — the log-cache read API the CLI polls while staging and for `cf logs`
// (go-log-cache v2 rpc/logcache_v1/egress.pb.gw.go: GET /api/v1/read/{source_id},
// /api/v1/meta; GET /api/v1/info). Served on the CC port (root `links.log_cache`). No
// envelopes yet: reads answer an empty batch, so `cf push` prints no staging log and no
// log-cache errors.
'use strict';

function register(router) {
  router.add('GET', '/api/v1/info', () => ({ version: '3.0.0', vm_uptime: String(Math.floor(process.uptime())) }), { public: true });
  router.add('GET', '/api/v1/meta', () => ({ meta: {} }));
  router.add('GET', '/api/v1/read/:sourceId', () => ({ envelopes: { batch: [] } }));
}

module.exports = { register };
