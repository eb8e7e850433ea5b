// routes.js — the apps' routes as v3 route resources (cloud_controller_ng
// app/presenters/v3/route_presenter.rb), built on cf-api.js's resource (guid, host, url,
// options, destinations); GET /v3/routes with CC's app_guids / hosts / domain_guids filters.
'use strict';

const P = require('./presenters');
const { routeResource } = require('../cf-api');

// One route of app `a` (r: cf-api.js routeResource) in CC's full shape.
function route(base, a, r) {
  return {
    ...r,
    created_at: a.createdAt,
    updated_at: a.updatedAt || a.createdAt,
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

function register(router, { platform, base }) {
  router.add('GET', '/v3/routes', ({ query }) => {
    const filter = (name) => (query.get(name) === null ? null : query.get(name).split(','));
    const appGuids = filter('app_guids');
    const hosts = filter('hosts');
    const domains = filter('domain_guids');
    const apps = Object.values(platform.state.apps).filter((a) => !appGuids || appGuids.includes(a.guid));
    const list = allRoutes(base, apps)
      .filter((r) => (!hosts || hosts.includes(r.host)) && (!domains || domains.includes(P.DOMAIN.guid)));
    return P.list(base, '/v3/routes', list);
  });
}

module.exports = { register, route, allRoutes };
