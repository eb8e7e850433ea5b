// presenters.js — the local platform's objects in Cloud Controller's v3 shapes
// (cloud_controller_ng app/presenters/v3/: app_presenter.rb, process_presenter.rb,
// organization_presenter.rb, space_presenter.rb, domain_presenter.rb, stack_presenter.rb,
// paginated_list_presenter.rb). `base` is the API's own URL, for links.
'use strict';

// The org quota's guid (quota.js).
const QUOTA_GUID = '7c2a9a0e-0c8e-4c1a-9a51-0000000000e1';

// One org and one space, as on PCF Dev (cfdev's `cfdev-org` / `cfdev-space`): here `local`.
const ORG = { guid: '7c2a9a0e-0c8e-4c1a-9a51-0000000000a1', name: 'local' };
const SPACE = { guid: '7c2a9a0e-0c8e-4c1a-9a51-0000000000b1', name: 'local' };
const DOMAIN = { guid: '7c2a9a0e-0c8e-4c1a-9a51-0000000000c1', name: 'localhost' };
const STACK = { guid: '7c2a9a0e-0c8e-4c1a-9a51-0000000000d1', name: 'cflinuxfs4' };
const EPOCH = '2026-01-01T00:00:00Z';
// CC renders times to the second (lib/cloud_controller.rb: ActiveSupport::JSON::Encoding
// .time_precision = 0): 2026-11-23T21:51:12Z. The platform keeps milliseconds.
const ts = (iso) => (iso ? String(iso).replace(/\.\d+Z$/, 'Z') : iso);
const META = () => ({ labels: {}, annotations: {} });
// The local CPU quota of a process's instances, in cores or "none" (cc-api/apps.js PATCH):
// the name the harness sets it by (lib/cpu-quota.js).
const { CPU_ANNOTATION } = require('../../../lib/cpu-quota');

// {pagination, resources} of everything: server.js cuts it to the page asked for (pagination.js).
function list(base, path, resources) {
  const href = `${base}${path}`;
  return {
    pagination: {
      total_results: resources.length, total_pages: 1,
      first: { href }, last: { href }, next: null, previous: null,
    },
    resources,
  };
}

function org(base) {
  return {
    guid: ORG.guid, created_at: EPOCH, updated_at: EPOCH, name: ORG.name, suspended: false,
    relationships: { quota: { data: { guid: QUOTA_GUID } } },
    metadata: META(),
    links: {
      self: { href: `${base}/v3/organizations/${ORG.guid}` },
      domains: { href: `${base}/v3/organizations/${ORG.guid}/domains` },
      default_domain: { href: `${base}/v3/organizations/${ORG.guid}/domains/default` },
      quota: { href: `${base}/v3/organization_quotas/${QUOTA_GUID}` },
    },
  };
}

// A space of the org: `local`, or one `cf create-space` made ({guid, name, createdAt}).
function space(base, s = null) {
  const g = s ? s.guid : SPACE.guid;
  const at = s ? ts(s.createdAt) : EPOCH;
  return {
    guid: g, created_at: at, updated_at: at, name: s ? s.name : SPACE.name,
    relationships: { organization: { data: { guid: ORG.guid } }, quota: { data: null } },
    metadata: META(),
    links: {
      self: { href: `${base}/v3/spaces/${g}` },
      features: { href: `${base}/v3/spaces/${g}/features` },
      organization: { href: `${base}/v3/organizations/${ORG.guid}` },
      apply_manifest: { href: `${base}/v3/spaces/${g}/actions/apply_manifest`, method: 'POST' },
    },
  };
}

function domain(base) {
  return {
    guid: DOMAIN.guid, created_at: EPOCH, updated_at: EPOCH, name: DOMAIN.name,
    internal: false, router_group: null, supported_protocols: ['http'],
    metadata: META(),
    relationships: { organization: { data: null }, shared_organizations: { data: [] } },
    links: {
      self: { href: `${base}/v3/domains/${DOMAIN.guid}` },
      route_reservations: { href: `${base}/v3/domains/${DOMAIN.guid}/route_reservations` },
    },
  };
}

function stack(base) {
  return {
    guid: STACK.guid, created_at: EPOCH, updated_at: EPOCH, name: STACK.name,
    description: 'this machine, standing in for Cloud Foundry Linux-based filesystem (Ubuntu 22.04)',
    build_rootfs_image: STACK.name, run_rootfs_image: STACK.name, default: true, deprecated_at: null,
    metadata: META(), links: { self: { href: `${base}/v3/stacks/${STACK.guid}` } },
  };
}

function app(base, a) {
  const g = a.guid;
  const u = (p) => ({ href: `${base}/v3/apps/${g}${p}` });
  return {
    guid: g, created_at: ts(a.createdAt), updated_at: ts(a.updatedAt || a.createdAt), name: a.name,
    state: a.state,
    lifecycle: { type: 'buildpack', data: { buildpacks: a.buildpack ? [a.buildpack] : [], stack: STACK.name } },
    relationships: { space: { data: { guid: SPACE.guid } }, current_droplet: { data: { guid: a.dropletGuid || null } } },
    metadata: META(),
    links: {
      self: u(''), environment_variables: u('/environment_variables'),
      space: { href: `${base}/v3/spaces/${SPACE.guid}` },
      processes: u('/processes'), packages: u('/packages'), current_droplet: u('/droplets/current'),
      droplets: u('/droplets'), tasks: u('/tasks'),
      start: { ...u('/actions/start'), method: 'POST' }, stop: { ...u('/actions/stop'), method: 'POST' },
      revisions: u('/revisions'), deployed_revisions: u('/revisions/deployed'), features: u('/features'),
    },
  };
}

// process_presenter.rb's readiness_health_check; `process` when none was set.
function readinessOf(rc) {
  if (!rc || rc.type === 'process') return { type: 'process', data: { invocation_timeout: null, interval: null } };
  const data = { invocation_timeout: rc.invocationTimeoutSec, interval: rc.intervalSec };
  if (rc.type === 'http') data.endpoint = rc.endpoint;
  return { type: rc.type, data };
}

// A web process of app `a`: the app's own has the app's guid, as CC gives the web process
// the app's guid; a rolling deployment's (`a.processGuid`) has its own.
function processOf(base, a, command) {
  const hc = a.healthCheck;
  const data = { timeout: hc.startTimeoutSec, invocation_timeout: hc.invocationTimeoutSec, interval: hc.intervalSec };
  if (hc.type === 'http') data.endpoint = hc.endpoint;
  const g = a.processGuid || a.guid;
  return {
    guid: g, created_at: ts(a.createdAt), updated_at: ts(a.updatedAt || a.createdAt), version: a.version || g,
    type: 'web', command: command === undefined ? a.command : command, user: 'vcap',
    instances: a.instances, memory_in_mb: a.memoryMb, disk_in_mb: a.diskMb,
    log_rate_limit_in_bytes_per_second: -1,
    health_check: { type: hc.type, data },
    readiness_health_check: readinessOf(a.readinessCheck),
    relationships: { app: { data: { guid: a.guid } }, revision: null },
    metadata: { labels: {}, annotations: a.cpuQuota === undefined || a.cpuQuota === null ? {} : { [CPU_ANNOTATION]: String(a.cpuQuota) } },
    links: {
      self: { href: `${base}/v3/processes/${g}` },
      scale: { href: `${base}/v3/processes/${g}/actions/scale`, method: 'POST' },
      app: { href: `${base}/v3/apps/${a.guid}` },
      space: { href: `${base}/v3/spaces/${SPACE.guid}` },
      stats: { href: `${base}/v3/processes/${g}/stats` },
      process_instances: { href: `${base}/v3/processes/${g}/process_instances` },
    },
  };
}

// A body that is not JSON (a manifest's YAML), sent as it is with its content type.
class RawBody {
  constructor(text, contentType) {
    this.text = text;
    this.contentType = contentType;
  }
}

module.exports = { RawBody, CPU_ANNOTATION, QUOTA_GUID, ORG, SPACE, DOMAIN, STACK, EPOCH, ts, list, org, space, domain, stack, app, processOf };
