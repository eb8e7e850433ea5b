// orgs.js — the one org, its spaces (`local`, and those `cf create-space` made), the shared domain (`localhost`, the
// routes' domain in manifests/vars-local.yml) and the stack: enough for `cf login -o -s`,
// `cf target` and the lookups push makes. Name filters (`names=`) as CC's list endpoints.
'use strict';

const P = require('./presenters');
const errors = require('./errors');

// CC's `names` filter: comma-separated; absent → everything.
function byNames(query, name) {
  const names = query.get('names');
  return names === null || names.split(',').includes(name);
}

function register(router, { platform, base }) {
  router.add('GET', '/v3/organizations', ({ query }) => P.list(base, '/v3/organizations', byNames(query, P.ORG.name) ? [P.org(base)] : []));
  router.add('GET', '/v3/organizations/:guid', ({ params }) => {
    if (params.guid !== P.ORG.guid) throw errors.resourceNotFound('Organization');
    return P.org(base);
  });
  router.add('GET', '/v3/organizations/:guid/domains', () => P.list(base, `/v3/organizations/${P.ORG.guid}/domains`, [P.domain(base)]));
  router.add('GET', '/v3/organizations/:guid/domains/default', () => P.domain(base));
  // `local`, and the spaces `cf create-space` made (spaces.js).
  const spaces = () => [P.space(base), ...Object.values(platform.state.spaces).map((s) => P.space(base, s))];
  router.add('GET', '/v3/spaces', ({ query }) => {
    const orgs = query.get('organization_guids');
    const inOrg = orgs === null || orgs.split(',').includes(P.ORG.guid);
    return P.list(base, '/v3/spaces', inOrg ? spaces().filter((s) => byNames(query, s.name)) : []);
  });
  router.add('GET', '/v3/spaces/:guid', ({ params }) => {
    const s = spaces().find((x) => x.guid === params.guid);
    if (!s) throw errors.resourceNotFound('Space');
    return s;
  });
  router.add('GET', '/v3/domains', ({ query }) => P.list(base, '/v3/domains', byNames(query, P.DOMAIN.name) ? [P.domain(base)] : []));
  router.add('GET', '/v3/domains/:guid', ({ params }) => {
    if (params.guid !== P.DOMAIN.guid) throw errors.resourceNotFound('Domain');
    return P.domain(base);
  });
  router.add('GET', '/v3/stacks', ({ query }) => P.list(base, '/v3/stacks', byNames(query, P.STACK.name) ? [P.stack(base)] : []));
}

module.exports = { register };
