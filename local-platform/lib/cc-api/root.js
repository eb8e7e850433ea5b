// root.js — the unauthenticated entry points: GET / (the links the CLI follows to the v3
// API, UAA and login: cloud_controller_ng app/controllers/runtime/root_controller.rb),
// GET /v3 (v3_root), GET /v3/info (info_presenter.rb), GET /v3/jobs/:guid, and UAA's
// POST /oauth/token and GET /login, served on the same port.
'use strict';

const errors = require('./errors');

// The CC API version answered in / (cloud_controller_v3.meta.version). cf CLI v8 wants
// at least 3.183.0 (docs/cf-platform.md §11); this is the version of the CC release the
// emulated shapes were read from.
const CC_API_VERSION = '3.228.0';
const V3_LINKS = ['app_usage_events', 'apps', 'audit_events', 'buildpacks', 'builds', 'deployments', 'domains',
  'droplets', 'environment_variable_groups', 'feature_flags', 'info', 'isolation_segments', 'organizations',
  'organization_quotas', 'packages', 'processes', 'resource_matches', 'roles', 'routes', 'security_groups',
  'service_brokers', 'service_instances', 'service_credential_bindings', 'service_offerings', 'service_plans',
  'service_route_bindings', 'service_usage_events', 'spaces', 'space_quotas', 'stacks', 'tasks', 'users'];

// What /v3/info's name says: the scripts never take this API for a foundation's.
const INFO_NAME = 'cfscale-local';

function register(router, { base, uaa, jobs, basicUser, platform }) {
  const pub = { public: true };
  router.add('GET', '/', () => ({
    links: {
      self: { href: base },
      cloud_controller_v3: { href: `${base}/v3`, meta: { version: CC_API_VERSION } },
      network_policy_v0: { href: `${base}/networking/v0/external` },
      network_policy_v1: { href: `${base}/networking/v1/external` },
      login: { href: base },
      uaa: { href: base },
      credhub: null,
      routing: null,
      logging: null,
      log_cache: { href: base },
      log_stream: null,
      app_ssh: { href: null, meta: { host_key_fingerprint: null, oauth_client: 'ssh-proxy' } },
    },
  }), pub);
  router.add('GET', '/v3', () => {
    const links = { self: { href: `${base}/v3` } };
    for (const k of V3_LINKS) links[k] = { href: `${base}/v3/${k}` };
    return { links };
  }, pub);
  router.add('GET', '/v3/info', () => ({
    build: INFO_NAME,
    cli_version: { minimum: null, recommended: null },
    // An operator's own keys (capi-release cc.info.custom): where the routes are served, since
    // no DNS here resolves the apps domain to the router (docs/cf-platform.md §22).
    custom: { router_https_url: platform.routerHttpsUrl },
    description: 'cfscale local platform: PostgreSQL, HAProxy and cgroups on this machine',
    name: INFO_NAME,
    version: 0,
    osbapi_version: '2.15',
    rate_limits: { enabled: false, general_limit: null, reset_interval_in_minutes: null },
    links: { self: { href: `${base}/v3/info` }, support: { href: null } },
  }), pub);
  router.add('GET', '/v3/jobs/:guid', ({ params }) => {
    const job = jobs.present(params.guid);
    if (!job) throw errors.resourceNotFound('Job');
    return job;
  });
  router.add('POST', '/oauth/token', ({ req, body }) => uaa.token(body, basicUser(req)), pub);
  router.add('GET', '/login', () => uaa.loginInfo(), pub);
}

module.exports = { register, CC_API_VERSION, INFO_NAME };
