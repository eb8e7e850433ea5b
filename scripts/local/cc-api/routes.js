// routes.js — the apps' routes as v3 route resources (cloud_controller_ng
// app/presenters/v3/route_presenter.rb), built on cf-api.js's resource (guid, host, url,
// options, destinations); GET /v3/routes with CC's app_guids / hosts / domain_guids /
// paths filters; PATCH /v3/routes/:guid sets per-route options (`cf update-route -o|-r`),
// validated as CC's RouteUpdateMessage and RouteOptionsMessage, applied by the platform's
// router (route-options.js).
'use strict';

const P = require('./presenters');
const errors = require('./errors');
const { routeResource } = require('../cf-api');
const { UsageError } = require('../platform');

// CC's algorithms without the hash_based_routing feature flag (route_options_message.rb),
// which is also what the local router does (round-robin, least-connection).
const LOADBALANCING = ['round-robin', 'least-connection'];

// One route of app `a` (r: cf-api.js routeResource) in CC's full shape.
function route(base, a, r) {
  return {
    ...r,
    created_at: P.ts(a.createdAt),
    updated_at: P.ts(a.updatedAt || a.createdAt),
    destinations: r.destinations.map((d, i) => ({ guid: `${r.guid.slice(0, -2)}${String(i).padStart(2, '0')}`, ...d, weight: null })),
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

function allRoutes(base, apps) {
  return apps.flatMap((a) => a.routes.map((u) => route(base, a, routeResource(a, u))));
}

// The body of PATCH /v3/routes/:guid → [options to set as `k=v`, option names to remove],
// or CC's 422 with its messages (route_update_message.rb, validators.rb OptionsValidator).
function optionChanges(body) {
  const extra = Object.keys(body || {}).filter((k) => !['options', 'metadata'].includes(k));
  if (extra.length) throw errors.unprocessable(`Unknown field(s): '${extra.join("', '")}'`);
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

function register(router, { platform, base }) {
  const findRoute = (guid) => {
    for (const a of Object.values(platform.state.apps)) {
      const url = a.routes.find((u) => routeResource(a, u).guid === guid);
      if (url) return { app: a, url };
    }
    throw errors.resourceNotFound('Route');
  };
  router.add('GET', '/v3/routes', ({ query }) => {
    const filter = (name) => (query.get(name) === null ? null : query.get(name).split(','));
    const appGuids = filter('app_guids');
    const hosts = filter('hosts');
    const domains = filter('domain_guids');
    const paths = filter('paths');
    const apps = Object.values(platform.state.apps).filter((a) => !appGuids || appGuids.includes(a.guid));
    const list = allRoutes(base, apps)
      .filter((r) => (!hosts || hosts.includes(r.host)) && (!domains || domains.includes(P.DOMAIN.guid))
        && (!paths || paths.includes(r.path)));
    return P.list(base, '/v3/routes', list);
  });
  router.add('GET', '/v3/routes/:guid', ({ params }) => {
    const { app, url } = findRoute(params.guid);
    return route(base, app, routeResource(app, url));
  });
  // CC merges the options into the route's and tells the router (route_update.rb); the
  // local router reloads gracefully before this answers.
  router.add('PATCH', '/v3/routes/:guid', async ({ params, body }) => {
    const [set, remove] = optionChanges(body);
    await platform.exclusive(async () => {
      const { url } = findRoute(params.guid);
      if (!set.length && !remove.length) return;
      const dot = url.indexOf('.');
      await platform.updateRoute({ domain: url.slice(dot + 1), hostname: url.slice(0, dot), options: set, removeOptions: remove })
        .catch((e) => { throw e instanceof UsageError ? errors.unprocessable(e.message) : e; });
    });
    const { app, url } = findRoute(params.guid);
    return route(base, app, routeResource(app, url));
  });
}

module.exports = { register, route, allRoutes };
