// routes.js — the apps' routes as v3 route resources (cloud_controller_ng
// app/presenters/v3/route_presenter.rb), built on cf-api.js's resource (guid, host, url,
// options, destinations); GET /v3/routes with CC's app_guids / hosts / domain_guids /
// paths filters; PATCH /v3/routes/:guid sets per-route options (`cf update-route -o|-r`),
// validated as CC's RouteUpdateMessage and RouteOptionsMessage, applied by the platform's
// router (route-options.js); POST /v3/routes/:guid/destinations and DELETE
// /v3/routes/:guid/destinations/:guid map and unmap apps (`cf map-route`, `cf unmap-route`);
// POST /v3/routes creates a route no app is mapped to yet (`cf create-route`, `cf map-route`
// onto a new route); DELETE /v3/routes/:guid deletes one with its mappings (`cf delete-route`).
'use strict';

const P = require('./presenters');
const errors = require('./errors');
const { routeResource } = require('../cf-api');
const { updatedOptions } = require('../route-options');
const { UsageError } = require('../platform');
const M = require('./messages');
const V = require('./validate');

// CC's algorithms without the hash_based_routing feature flag (route_options_message.rb),
// which is also what the local router does (round-robin, least-connection).
const LOADBALANCING = ['round-robin', 'least-connection'];

// One route of app `a` (r: cf-api.js routeResource) in CC's full shape.
function route(base, a, r) {
  return {
    ...r,
    created_at: P.ts(a ? a.createdAt : 0),
    updated_at: P.ts(a ? a.updatedAt || a.createdAt : 0),
    destinations: r.destinations.map((d) => ({ ...d, weight: null })),
    metadata: { labels: {}, annotations: {} },
    relationships: { space: { data: { guid: P.SPACE.guid } }, domain: { data: { guid: P.DOMAIN.guid } } },
    links: {
      self: { href: `${base}/v3/routes/${r.guid}` },
      space: { href: `${base}/v3/spaces/${P.SPACE.guid}` },
      domain: { href: `${base}/v3/domains/${P.DOMAIN.guid}` },
      destinations: { href: `${base}/v3/routes/${r.guid}/destinations` },
    },
  };
}

// A route no app is mapped to (platform state.routes): no destinations.
function looseRoute(url, loose = { options: {} }) {
  return routeResource({ guid: '', routes: [], routeOptions: { [url]: loose.options } }, url, []);
}

// Every route once (a route mapped to two apps is one route with two destinations); of
// `apps` only, with every app's destinations.
function allRoutes(base, apps, everyApp = apps) {
  const seen = new Set();
  return apps.flatMap((a) => a.routes.filter((u) => !seen.has(u) && seen.add(u)).map((u) => route(base, a, routeResource(a, u, everyApp))));
}

// CC's route_destinations_presenter.rb: the route's destinations and links.
function destinationsDoc(base, r) {
  return {
    destinations: route(base, null, r).destinations,
    links: { self: { href: `${base}/v3/routes/${r.guid}/destinations` }, route: { href: `${base}/v3/routes/${r.guid}` } },
  };
}

// The body of POST /v3/routes/:guid/destinations → the app guids to map, or a 422 (what
// CC's app/messages/route_update_destinations_message.rb checks: 1-100 destinations, each
// {app: {guid, process?: {type}}, weight?, port?, protocol?}; weights only when replacing all;
// the local platform runs only the web process on its one port, over HTTP/1).
function destinationApps(body) {
  errors.refuseIf(V.unknownKeys(body, ['destinations']));
  const d = body.destinations;
  if (!Array.isArray(d) || !d.length || d.length > 100) throw errors.unprocessable('Destinations must be an array containing between 1 and 100 destination objects.');
  const problems = [];
  const guids = d.map((x, i) => {
    const bad = (m) => { problems.push(`Destinations[${i}]: ${m}`); return null; };
    if (!V.isObject(x)) return bad('must be an object.');
    if (!V.isObject(x.app)) return bad('must have an "app".');
    if (Object.keys(x).some((k) => !['app', 'weight', 'port', 'protocol'].includes(k))) return bad('must have only "app" and optionally "weight", "port" or "protocol".');
    const { guid, process } = x.app;
    if (typeof guid !== 'string' || !guid.length || guid.length > 200 || Object.keys(x.app).some((k) => !['guid', 'process'].includes(k))) {
      return bad('app must have the structure {"guid": "app_guid"}');
    }
    if (process !== undefined && !(V.isObject(process) && typeof process.type === 'string' && process.type)) return bad('process must have the structure {"type": "process_type"}');
    if (x.weight !== undefined && x.weight !== null) return bad('weighted destinations can only be used when replacing all destinations.');
    if (x.port !== undefined && x.port !== null && !(Number.isInteger(x.port) && x.port >= 1024 && x.port <= 65535)) return bad('port must be a positive integer between 1024 and 65535 inclusive.');
    if (x.protocol !== undefined && x.protocol !== null && !['http1', 'http2', 'tcp'].includes(x.protocol)) return bad("protocol must be 'http1', 'http2' or 'tcp'.");
    if (process && process.type !== 'web') return bad(`process type ${process.type} is not run by the local platform (only web)`);
    if ((x.port !== undefined && x.port !== null) || (x.protocol && x.protocol !== 'http1')) return bad('the local platform routes to the app\'s one port over http1 only');
    return guid;
  });
  errors.refuseIf(problems);
  return guids;
}

// The body of PATCH /v3/routes/:guid → [options to set as `k=v`, option names to remove],
// or CC's 422 with its messages (route_update_message.rb, validators.rb OptionsValidator).
function optionChanges(body) {
  errors.refuseIf([...V.unknownKeys(body, ['options', 'metadata']), ...V.metadata(body.metadata)]);
  const o = body.options;
  if (o === undefined) return [[], []];
  if (!o || typeof o !== 'object' || Array.isArray(o)) throw errors.unprocessable("Options 'options' is not a valid object");
  const unknown = Object.keys(o).filter((k) => k !== 'loadbalancing' && o[k] !== null && o[k] !== '');
  if (unknown.length) throw errors.unprocessable(`Options Unknown field(s): '${unknown.join("', '")}'`);
  const lb = o.loadbalancing;
  if (lb === undefined || lb === null || lb === '') return [[], lb === undefined ? [] : ['loadbalancing']];
  if (!LOADBALANCING.includes(lb)) throw errors.unprocessable(`Options Loadbalancing must be one of '${LOADBALANCING.join(', ')}' if present`);
  return [[`loadbalancing=${lb}`], []];
}

function register(router, { platform, base, jobs }) {
  const findRoute = (guid) => {
    for (const a of Object.values(platform.state.apps)) {
      const url = a.routes.find((u) => routeResource(a, u).guid === guid);
      if (url) return { app: a, url, resource: routeResource(a, url, Object.values(platform.state.apps)) };
    }
    for (const [url, loose] of Object.entries(platform.state.routes)) {
      const resource = looseRoute(url, loose);
      if (resource.guid === guid) return { app: { createdAt: loose.createdAt }, url, resource, loose };
    }
    throw errors.resourceNotFound('Route');
  };
  const ctx = { platform, base, jobs, findRoute };
  registerReads(router, ctx);
  registerDestinations(router, ctx);
  registerChanges(router, ctx);
}

// The routes, one route, its destinations.
function registerReads(router, { platform, base, findRoute }) {
  router.add('GET', '/v3/routes', ({ query }) => {
    const filter = (name) => (query.get(name) === null ? null : query.get(name).split(','));
    const appGuids = filter('app_guids');
    const hosts = filter('hosts');
    const domains = filter('domain_guids');
    const paths = filter('paths');
    const every = Object.values(platform.state.apps);
    const apps = every.filter((a) => !appGuids || appGuids.includes(a.guid));
    const mapped = new Set(every.flatMap((a) => a.routes));
    const loose = appGuids ? [] : Object.entries(platform.state.routes).filter(([u]) => !mapped.has(u)).map(([u, l]) => route(base, { createdAt: l.createdAt }, looseRoute(u, l)));
    const list = [...allRoutes(base, apps, every), ...loose]
      .filter((r) => (!hosts || hosts.includes(r.host)) && (!domains || domains.includes(P.DOMAIN.guid))
        && (!paths || paths.includes(r.path)));
    return P.list(base, '/v3/routes', list);
  });
  router.add('GET', '/v3/routes/:guid', ({ params }) => {
    const { app, resource } = findRoute(params.guid);
    return route(base, app, resource);
  });
  router.add('GET', '/v3/routes/:guid/destinations', ({ params }) => destinationsDoc(base, findRoute(params.guid).resource));
}

// Mapping apps to a route and unmapping them.
function registerDestinations(router, { platform, base, findRoute }) {
  // CC's insert_destinations (routes_controller.rb, app/actions/update_route_destinations.rb):
  // 200 with every destination; an app already mapped stays mapped once; an unknown app →
  // 422 `App(s) with guid(s) "G" do not exist.`
  router.add('POST', '/v3/routes/:guid/destinations', async ({ params, body }) => {
    const guids = destinationApps(body);
    await platform.exclusive(async () => {
      const { url } = findRoute(params.guid);
      const missing = guids.filter((g) => !platform.appByGuid(g));
      if (missing.length) throw errors.unprocessable(`App(s) with guid(s) "${missing.join('", "')}" do not exist.`);
      for (const g of guids) await platform.mapRoute({ appName: platform.appByGuid(g).name, url });
    });
    return destinationsDoc(base, findRoute(params.guid).resource);
  });
  // CC's destroy_destination: 204; an unknown destination → 422 `Unable to unmap route from
  // destination. Ensure the route has a destination with this guid.`
  router.add('DELETE', '/v3/routes/:guid/destinations/:dest', async ({ params }) => {
    await platform.exclusive(async () => {
      const { url, resource } = findRoute(params.guid);
      const d = resource.destinations.find((x) => x.guid === params.dest);
      if (!d) throw errors.unprocessable('Unable to unmap route from destination. Ensure the route has a destination with this guid.');
      await platform.unmapRoute({ appName: platform.appByGuid(d.app.guid).name, url });
    });
    return [204, null];
  });
}

// A route's options, its creation and deletion.
function registerChanges(router, { platform, base, jobs, findRoute }) {
  // CC merges the options into the route's and tells the router (route_update.rb); the
  // local router reloads gracefully before this answers.
  router.add('PATCH', '/v3/routes/:guid', async ({ params, body }) => {
    const [set, remove] = optionChanges(body);
    await platform.exclusive(async () => {
      const { url, loose } = findRoute(params.guid);
      if (!set.length && !remove.length) return;
      if (loose) {
        loose.options = updatedOptions(loose.options, set, remove);
        platform.save();
        return;
      }
      const dot = url.indexOf('.');
      await platform.updateRoute({ domain: url.slice(dot + 1), hostname: url.slice(0, dot), options: set, removeOptions: remove })
        .catch((e) => { throw e instanceof UsageError ? errors.unprocessable(e.message) : e; });
    });
    const { app, resource } = findRoute(params.guid);
    return route(base, app, resource);
  });
  // CC's destroy (routes_controller.rb, app/actions/route_delete.rb): 202 and a job that
  // deletes the route and, with it, every app's mapping to it; an unknown route → 404.
  router.add('DELETE', '/v3/routes/:guid', ({ params }) => {
    const { url } = findRoute(params.guid);
    return jobs.start('route.delete', () => platform.exclusive(async () => {
      for (const a of Object.values(platform.state.apps)) {
        if (a.routes.includes(url)) await platform.unmapRoute({ appName: a.name, url });
      }
      delete platform.state.routes[url];
      platform.save();
    }));
  });
  // CC's create (routes_controller.rb, app/actions/route_create.rb): 201 with the route; the
  // local space and domain only; a taken host → 422 `Route already exists with host 'H' for
  // domain 'D'.` (the CLI's RouteNotUniqueError); paths and ports are not run locally.
  router.add('POST', '/v3/routes', async ({ body }) => {
    const b = body;
    errors.refuseIf(M.routeCreate(b));
    if (b.relationships.space.data?.guid !== P.SPACE.guid) throw errors.unprocessable('Invalid space. Ensure that the space exists and you have access to it.');
    if (b.relationships.domain.data?.guid !== P.DOMAIN.guid) throw errors.unprocessable('Invalid domain. Ensure that the domain exists and you have access to it.');
    const host = b.host ?? '';
    if (!host) throw errors.unprocessable('Missing host. Routes in shared domains must have a host defined.');
    if (host === '*') throw errors.unprocessable('Wildcard routes are not run by the local platform');
    if (b.path || (b.port !== undefined && b.port !== null)) throw errors.unprocessable('Routes with a path or a port are not run by the local platform');
    const [set] = optionChanges({ options: b.options });
    const url = `${host.toLowerCase()}.${P.DOMAIN.name}`;
    await platform.exclusive(async () => {
      if (platform.routeExists(url)) throw errors.unprocessable(`Route already exists with host '${host}' for domain '${P.DOMAIN.name}'.`);
      platform.createRoute({ url, options: updatedOptions({}, set) });
    });
    const { app, resource } = findRoute(looseRoute(url).guid);
    return [201, route(base, app, resource)];
  });
}

module.exports = { register, route, allRoutes };
