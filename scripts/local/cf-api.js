// cf-api.js — the JSON subset of the CF v3 API behind `cfl curl PATH`: apps by name,
// one app, its web process, process stats (docs/cf-platform.md §2), its user-provided
// environment variables, its routes (with their options) and crash audit events. Unknown paths answer like CC: a CF-NotFound error body.
'use strict';

const crypto = require('node:crypto');

function appResource(app) {
  return {
    guid: app.guid,
    name: app.name,
    state: app.state,
    created_at: app.createdAt,
    updated_at: app.createdAt,
    lifecycle: { type: 'buildpack', data: { buildpacks: [app.buildpack], stack: 'cflinuxfs4' } },
    links: { self: { href: `/v3/apps/${app.guid}` }, processes: { href: `/v3/apps/${app.guid}/processes` } },
  };
}

function processResource(app) {
  return {
    guid: app.guid,
    type: 'web',
    command: app.command,
    instances: app.instances,
    memory_in_mb: app.memoryMb,
    disk_in_mb: app.diskMb,
    health_check: { type: app.healthCheck.type, data: { timeout: app.healthCheck.startTimeoutSec, endpoint: app.healthCheck.type === 'http' ? app.healthCheck.endpoint : null } },
    relationships: { app: { data: { guid: app.guid } } },
  };
}

// GET /v3/apps/:guid/environment_variables: only the user-provided variables (manifest env
// + set-env), never VCAP_* or the other platform variables.
function environmentVariables(app) {
  return {
    var: { ...app.env },
    links: { self: { href: `/v3/apps/${app.guid}/environment_variables` }, app: { href: `/v3/apps/${app.guid}` } },
  };
}

// GET /v3/apps/:guid/routes: the v3 route resource; `options` holds what was set
// (manifest options.loadbalancing, update-route -o), as CC returns it.
function routeResource(app, url) {
  const h = crypto.createHash('sha1').update(`${app.guid} ${url}`).digest('hex');
  const dot = url.indexOf('.');
  return {
    guid: `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20, 32)}`,
    protocol: 'http',
    host: dot > 0 ? url.slice(0, dot) : '',
    path: '',
    port: null,
    url,
    options: { ...(app.routeOptions?.[url] || {}) },
    destinations: [{ app: { guid: app.guid, process: { type: 'web' } }, port: 8080, protocol: 'http1' }],
  };
}

function list(resources) {
  return { pagination: { total_results: resources.length, total_pages: 1, next: null, previous: null }, resources };
}

function notFound() {
  return { errors: [{ detail: 'Unknown request', title: 'CF-NotFound', code: 10000 }] };
}

function curl(platform, rawPath, { v3Stats }) {
  const url = new URL(rawPath, 'http://cfl.local');
  const p = url.pathname.replace(/\/+$/, '');
  const apps = Object.values(platform.state.apps);
  if (p === '/v3/apps') {
    const names = url.searchParams.get('names');
    const wanted = names ? names.split(',') : null;
    return list(apps.filter((a) => !wanted || wanted.includes(a.name)).map(appResource));
  }
  if (p === '/v3/audit_events') return platform.events.auditEvents(url.searchParams);
  let m = /^\/v3\/(?:apps\/([^/]+)\/processes\/web|processes\/([^/]+))(\/stats)?$/.exec(p);
  if (m) {
    const app = platform.appByGuid(m[1] || m[2]);
    if (!app) return { errors: [{ detail: 'Process not found', title: 'CF-ResourceNotFound', code: 10010 }] };
    if (m[3]) return v3Stats(app, platform.cell.list(app.name), platform.cpuCores(app));
    return processResource(app);
  }
  m = /^\/v3\/apps\/([^/]+)\/environment_variables$/.exec(p);
  if (m) {
    const app = platform.appByGuid(m[1]);
    return app ? environmentVariables(app) : { errors: [{ detail: 'App not found', title: 'CF-ResourceNotFound', code: 10010 }] };
  }
  m = /^\/v3\/apps\/([^/]+)\/routes$/.exec(p);
  if (m) {
    const app = platform.appByGuid(m[1]);
    return app ? list(app.routes.map((r) => routeResource(app, r))) : { errors: [{ detail: 'App not found', title: 'CF-ResourceNotFound', code: 10010 }] };
  }
  m = /^\/v3\/apps\/([^/]+)$/.exec(p);
  if (m) {
    const app = platform.appByGuid(m[1]);
    return app ? appResource(app) : { errors: [{ detail: 'App not found', title: 'CF-ResourceNotFound', code: 10010 }] };
  }
  return notFound();
}

module.exports = { curl, environmentVariables, routeResource };
