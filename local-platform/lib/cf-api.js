// cf-api.js — a JSON subset of the CF v3 API the Cloud Controller (cc-api/) reuses: apps by name,
// one app, its web process, process stats (docs/cf-platform.md §2), its user-provided
// environment variables, its routes (with their options) and crash audit events with CC's
// created_ats filter (§9). curl() answers { status, doc } as CC would: errors are CC's
// error documents with CC's status (unknown path: 404 CF-NotFound).
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
function guidOf(text) {
  const h = crypto.createHash('sha1').update(text).digest('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20, 32)}`;
}

// A route is its URL: every app that lists it is one of its destinations, as CC keeps one
// route with a destination per mapped app (app/models/runtime/route_mapping_model.rb). Its
// options are the first app's (the one that created it; docs/cf-platform.md §15).
function routeResource(app, url, apps = [app]) {
  const dot = url.indexOf('.');
  const guid = guidOf(`route ${url}`);
  const mapped = apps.filter((a) => a.routes.includes(url));
  const owner = mapped[0] || app;
  return {
    guid,
    protocol: 'http',
    host: dot > 0 ? url.slice(0, dot) : '',
    path: '',
    port: null,
    url,
    options: { ...(owner.routeOptions?.[url] || {}) },
    destinations: mapped.map((a) => ({ guid: guidOf(`destination ${guid} ${a.guid}`), app: { guid: a.guid, process: { type: 'web' } }, port: 8080, protocol: 'http1' })),
  };
}

function list(resources) {
  return { pagination: { total_results: resources.length, total_pages: 1, next: null, previous: null }, resources };
}

// An error CC answers with: its HTTP status and error document (cloud_controller_ng
// errors/v2.yml: name, code, http_code; the v3 document titles it CF-<name>).
class CcError extends Error {
  constructor(status, name, code, detail) {
    super(detail);
    this.status = status;
    this.doc = { errors: [{ detail, title: `CF-${name}`, code }] };
  }
}
const notFound = (what) => new CcError(404, 'ResourceNotFound', 10010, `${what} not found`);

// CC's TimestampValidator (app/messages/validators.rb): whole seconds in UTC only. Its
// advanced filter (app/fetchers/base_list_fetcher.rb) compares with the stored time, to the
// microsecond: gt and lte T reach to the end of the whole second T (T + 0.999999 s).
const CC_TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/;
const CREATED_AT_OPERATORS = {
  gt: (atMs, t) => atMs > t + 999.999, gte: (atMs, t) => atMs >= t,
  lt: (atMs, t) => atMs < t, lte: (atMs, t) => atMs <= t + 999.999,
};

/**
 * The created_ats[OP]=T filters of a query as [(atMs) => boolean]; a malformed one is CC's
 * 400 CF-BadQueryParameter with the message of CC's validator (problems joined by ", ").
 */
function createdAtFilters(query) {
  const filters = [];
  const problems = [];
  for (const [key, value] of query) {
    const m = /^created_ats(?:\[([^\]]*)\])?$/.exec(key);
    if (!m) continue;
    const op = m[1];
    const compare = op === undefined
      ? (atMs, t) => atMs >= t && atMs <= t + 999.999 // created_ats=T: within the second T
      : CREATED_AT_OPERATORS[op];
    if (!compare) problems.push(`Created ats Invalid relational operator: '${op}'`);
    const values = op === undefined ? value.split(',') : [value];
    if (op !== undefined && value.includes(',')) {
      problems.push('Created ats only accepts one value when using a relational operator');
      continue;
    }
    if (values.some((v) => !CC_TIMESTAMP.test(v))) {
      problems.push("Created ats has an invalid timestamp format. Timestamps should be formatted as 'YYYY-MM-DDThh:mm:ssZ'");
      continue;
    }
    if (compare) filters.push((atMs) => values.some((v) => compare(atMs, Date.parse(v))));
  }
  if (problems.length) throw new CcError(400, 'BadQueryParameter', 10005, `The query parameter is invalid: ${problems.join(', ')}`);
  return filters;
}

function auditEvents(platform, query) {
  const list = (name) => (query.get(name) ? query.get(name).split(',') : null);
  return platform.events.auditEvents({ targets: list('target_guids'), types: list('types'), createdAt: createdAtFilters(query) });
}

function route(platform, rawPath, { v3Stats }) {
  const url = new URL(rawPath, 'http://cfl.local');
  const p = url.pathname.replace(/\/+$/, '');
  const apps = Object.values(platform.state.apps);
  if (p === '/v3/apps') {
    const names = url.searchParams.get('names');
    const wanted = names ? names.split(',') : null;
    return list(apps.filter((a) => !wanted || wanted.includes(a.name)).map(appResource));
  }
  if (p === '/v3/audit_events') return auditEvents(platform, url.searchParams);
  let m = /^\/v3\/(?:apps\/([^/]+)\/processes\/web|processes\/([^/]+))(\/stats)?$/.exec(p);
  if (m) {
    const app = platform.appByGuid(m[1] || m[2]);
    if (!app) throw notFound('Process');
    if (m[3]) return v3Stats(app, platform.cell.list(app.name), platform.cpuCores(app));
    return processResource(app);
  }
  m = /^\/v3\/apps\/([^/]+)\/environment_variables$/.exec(p);
  if (m) {
    const app = platform.appByGuid(m[1]);
    if (!app) throw notFound('App');
    return environmentVariables(app);
  }
  m = /^\/v3\/apps\/([^/]+)\/routes$/.exec(p);
  if (m) {
    const app = platform.appByGuid(m[1]);
    if (!app) throw notFound('App');
    return list(app.routes.map((r) => routeResource(app, r, Object.values(platform.state.apps))));
  }
  m = /^\/v3\/apps\/([^/]+)$/.exec(p);
  if (m) {
    const app = platform.appByGuid(m[1]);
    if (!app) throw notFound('App');
    return appResource(app);
  }
  throw new CcError(404, 'NotFound', 10000, 'Unknown request');
}

/** GET PATH → { status, doc }: 200 and the resource, or CC's error status and document. */
function curl(platform, rawPath, opts) {
  try {
    return { status: 200, doc: route(platform, rawPath, opts) };
  } catch (e) {
    if (e instanceof CcError) return { status: e.status, doc: e.doc };
    throw e;
  }
}

module.exports = { curl, environmentVariables, routeResource };
