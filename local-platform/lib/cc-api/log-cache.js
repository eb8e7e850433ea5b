// log-cache.js — the log-cache read API the CLI uses for `cf logs [--recent]` and the
// staging log of `cf push` (cloudfoundry/log-cache-release src/README.md: GET
// /api/v1/info, /api/v1/read/<source-id>, /api/v1/meta; go-log-cache v2 client.go picks
// the /api/v1 paths from the info version). Served on the CC port (root
// `links.log_cache`). The envelopes are the lines the platform writes to each app's log
// (envelope-store.js), under the app's guid; unknown source ids read as empty, as in
// log-cache. Read errors answer as log-cache's gRPC gateway does: 500 with the message.
'use strict';

const { LogCacheError } = require('./envelope-store');

// log-cache-release's version line at the time of the CLI read (≥ 2.1.0: /api/v1 paths).
const LOG_CACHE_VERSION = '3.0.0';

function register(router, { logCache }) {
  router.add('GET', '/api/v1/info', () => ({ version: LOG_CACHE_VERSION, vm_uptime: String(Math.floor(process.uptime())) }), { public: true });
  router.add('GET', '/api/v1/meta', () => ({ meta: logCache.meta() }));
  router.add('GET', '/api/v1/read/:sourceId', ({ params, query }) => {
    try {
      return { envelopes: { batch: logCache.read(params.sourceId, query) } };
    } catch (e) {
      if (!(e instanceof LogCacheError)) throw e;
      return [500, { code: 2, message: e.message, details: [] }];
    }
  });
}

// Every line written to an app's log becomes an envelope of the app's guid.
// The tags are the same for every line of an app: one frozen object per app, not one per line
// (a busy router writes thousands of lines a second).
function feed(logCache, platform) {
  const tagsOf = new Map(); // guid → tags
  platform.logs.addListener((appName, source, stream, message) => {
    const a = platform.state.apps[appName];
    if (!a) return;
    let tags = tagsOf.get(a.guid);
    if (!tags || tags.app_name !== a.name) {
      tags = Object.freeze({ app_id: a.guid, app_name: a.name, organization_name: 'local', space_name: 'local' });
      tagsOf.set(a.guid, tags);
    }
    logCache.add(a.guid, source, stream, message, tags);
  });
}

module.exports = { register, feed };
