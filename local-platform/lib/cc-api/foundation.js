// foundation.js — what a foundation's operator sets and the cf CLI reads around the apps
// (docs/cf-platform.md §17): feature flags (CC's defaults), the buildpacks the local staging
// knows, the org's quota (sized from this machine, quota.js) and the space's (none), the
// isolation segments (none), and whether an app can be reached by `cf ssh` (no: the local
// platform has no SSH proxy, as its root document's app_ssh says).
'use strict';

const P = require('./presenters');
const errors = require('./errors');
const { presentOrgQuota, guidOf } = require('../quota');

// CC's FeatureFlag::DEFAULT_FLAGS (app/models/runtime/feature_flag.rb), in its order.
const FEATURE_FLAGS = {
  user_org_creation: false, private_domain_creation: true, app_bits_upload: true, app_scaling: true,
  route_creation: true, service_instance_creation: true, diego_docker: false, diego_cnb: false,
  set_roles_by_username: true, unset_roles_by_username: true, task_creation: true, env_var_visibility: true,
  space_scoped_private_broker_creation: true, space_developer_env_var_visibility: true,
  service_instance_sharing: false, hide_marketplace_from_unauthenticated_users: false,
  resource_matching: true, route_sharing: false, hash_based_routing: false,
};

// The buildpacks manifest.js and bits.js detect or accept, in detection order.
const BUILDPACKS = ['nodejs_buildpack', 'java_buildpack', 'go_buildpack', 'binary_buildpack'];

function register(router, { platform, base }) {
  const flag = (name) => ({
    name, enabled: FEATURE_FLAGS[name], updated_at: null, custom_error_message: null,
    links: { self: { href: `${base}/v3/feature_flags/${name}` } },
  });
  // FeatureFlagsListMessage orders by name by default.
  router.add('GET', '/v3/feature_flags', () => P.list(base, '/v3/feature_flags', Object.keys(FEATURE_FLAGS).sort().map(flag)));
  router.add('GET', '/v3/feature_flags/:name', ({ params }) => {
    if (!Object.hasOwn(FEATURE_FLAGS, params.name)) throw errors.resourceNotFound('Feature flag');
    return flag(params.name);
  });

  // buildpack_presenter.rb; the stack the local platform stands in for.
  const buildpack = (name, i) => {
    const guid = guidOf(`buildpack ${name}`);
    return {
      guid, created_at: P.EPOCH, updated_at: P.EPOCH, name, stack: P.STACK.name, state: 'READY',
      lifecycle: 'buildpack', filename: null, position: i + 1, enabled: true, locked: false,
      metadata: { labels: {}, annotations: {} },
      links: { self: { href: `${base}/v3/buildpacks/${guid}` }, upload: { href: `${base}/v3/buildpacks/${guid}/upload`, method: 'POST' } },
    };
  };
  router.add('GET', '/v3/buildpacks', ({ query }) => {
    const names = query.get('names') === null ? null : query.get('names').split(',');
    return P.list(base, '/v3/buildpacks', BUILDPACKS.map(buildpack).filter((b) => !names || names.includes(b.name)));
  });
  router.add('GET', '/v3/buildpacks/:guid', ({ params }) => {
    const b = BUILDPACKS.map(buildpack).find((x) => x.guid === params.guid);
    if (!b) throw errors.resourceNotFound('Buildpack');
    return b;
  });

  const orgQuota = () => presentOrgQuota(base, platform.quota, P.ORG.guid, P.EPOCH);
  router.add('GET', '/v3/organization_quotas', ({ query }) => {
    const names = query.get('names');
    const orgs = query.get('organization_guids');
    const ok = (names === null || names.split(',').includes(platform.quota.name)) && (orgs === null || orgs.split(',').includes(P.ORG.guid));
    return P.list(base, '/v3/organization_quotas', ok ? [orgQuota()] : []);
  });
  router.add('GET', '/v3/organization_quotas/:guid', ({ params }) => {
    if (params.guid !== platform.quota.guid) throw errors.resourceNotFound('Organization quota');
    return orgQuota();
  });
  // The local space has no quota of its own (space_presenter: relationships.quota null).
  router.add('GET', '/v3/space_quotas', () => P.list(base, '/v3/space_quotas', []));
  router.add('GET', '/v3/space_quotas/:guid', () => { throw errors.resourceNotFound('Space quota'); });

  // to_one_relationship_presenter.rb: no isolation segment.
  const noSegment = (path) => ({ data: null, links: { self: { href: `${base}${path}` } } });
  router.add('GET', '/v3/spaces/:guid/relationships/isolation_segment', ({ params }) => {
    if (params.guid !== P.SPACE.guid) throw errors.resourceNotFound('Space');
    return noSegment(`/v3/spaces/${P.SPACE.guid}/relationships/isolation_segment`);
  });
  router.add('GET', '/v3/organizations/:guid/relationships/default_isolation_segment', ({ params }) => {
    if (params.guid !== P.ORG.guid) throw errors.resourceNotFound('Organization');
    return noSegment(`/v3/organizations/${P.ORG.guid}/relationships/default_isolation_segment`);
  });
  router.add('GET', '/v3/isolation_segments', () => P.list(base, '/v3/isolation_segments', []));

  // No security groups: instances listen and connect on this machine's loopback, unfiltered.
  for (const kind of ['running', 'staging']) {
    router.add('GET', `/v3/spaces/:guid/${kind}_security_groups`, ({ params }) => {
      if (params.guid !== P.SPACE.guid) throw errors.resourceNotFound('Space');
      return P.list(base, `/v3/spaces/${P.SPACE.guid}/${kind}_security_groups`, []);
    });
  }
  router.add('GET', '/v3/security_groups', () => P.list(base, '/v3/security_groups', []));

  // app_ssh_status_presenter.rb: globally off (no SSH proxy here).
  router.add('GET', '/v3/apps/:guid/ssh_enabled', ({ params }) => {
    if (!platform.appByGuid(params.guid)) throw errors.resourceNotFound('App');
    return { enabled: false, reason: 'ssh is disabled globally' };
  });
  // `cf running-environment-variable-group`, `cf staging-environment-variable-group`: none set
  // (environment_variable_group_presenter.rb; an operator sets them with set-*-group).
  router.add('GET', '/v3/environment_variable_groups/:name', ({ params }) => {
    if (!['running', 'staging'].includes(params.name)) throw errors.resourceNotFound('Environment variable group');
    return { updated_at: null, name: params.name, var: {}, links: { self: { href: `${base}/v3/environment_variable_groups/${params.name}` } } };
  });
  router.add('GET', '/v3/spaces/:guid/features/ssh', ({ params }) => {
    if (params.guid !== P.SPACE.guid) throw errors.resourceNotFound('Space');
    return { name: 'ssh', description: 'Enable SSHing into apps in the space.', enabled: false };
  });
}

module.exports = { register, FEATURE_FLAGS, BUILDPACKS };
