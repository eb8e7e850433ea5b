// service-presenters.js — the PostgreSQL broker's catalog and its instances and bindings in
// CC's shapes (cloud_controller_ng app/presenters/v3/service_offering_presenter.rb,
// service_plan_presenter.rb, service_broker_presenter.rb, service_instance_presenter.rb,
// service_credential_binding_presenter.rb), with the `include` / `fields[...]` parts the CLI
// asks for (app/decorators/field_*_decorator.rb).
'use strict';

const P = require('./presenters');

const EPOCH = '2026-01-01T00:00:00Z';
const BROKER = { guid: '7c2a9a0e-0c8e-4c1a-9a51-0000000000e1', name: 'cfscale-postgres' };
const OFFERING = { guid: '7c2a9a0e-0c8e-4c1a-9a51-0000000000e2', name: 'postgres', description: 'PostgreSQL 15: one database and role per service instance' };
const PLAN = { guid: '7c2a9a0e-0c8e-4c1a-9a51-0000000000e3', name: 'local', description: 'a database on the local platform\'s PostgreSQL cluster' };
const META = () => ({ labels: {}, annotations: {} });

const broker = (base) => ({
  guid: BROKER.guid, name: BROKER.name, url: base, created_at: EPOCH, updated_at: EPOCH,
  relationships: {}, metadata: META(), links: { self: { href: `${base}/v3/service_brokers/${BROKER.guid}` } },
});

const offering = (base) => ({
  guid: OFFERING.guid, name: OFFERING.name, description: OFFERING.description, available: true,
  tags: ['postgres', 'postgresql'], requires: [], created_at: EPOCH, updated_at: EPOCH, shareable: false,
  documentation_url: null,
  broker_catalog: { id: OFFERING.guid, metadata: {}, features: { plan_updateable: false, bindable: true, instances_retrievable: false, bindings_retrievable: false, allow_context_updates: false } },
  relationships: { service_broker: { data: { guid: BROKER.guid } } },
  metadata: META(),
  links: {
    self: { href: `${base}/v3/service_offerings/${OFFERING.guid}` },
    service_plans: { href: `${base}/v3/service_plans?service_offering_guids=${OFFERING.guid}` },
    service_broker: { href: `${base}/v3/service_brokers/${BROKER.guid}` },
  },
});

const plan = (base) => ({
  guid: PLAN.guid, created_at: EPOCH, updated_at: EPOCH, name: PLAN.name, visibility_type: 'public',
  available: true, free: true, costs: [], description: PLAN.description, maintenance_info: {},
  broker_catalog: { id: PLAN.guid, metadata: {}, maximum_polling_duration: null, features: { bindable: true, plan_updateable: false } },
  schemas: { service_instance: { create: { parameters: {} }, update: { parameters: {} } }, service_binding: { create: { parameters: {} } } },
  relationships: { service_offering: { data: { guid: OFFERING.guid } } },
  metadata: META(),
  links: {
    self: { href: `${base}/v3/service_plans/${PLAN.guid}` },
    service_offering: { href: `${base}/v3/service_offerings/${OFFERING.guid}` },
    visibility: { href: `${base}/v3/service_plans/${PLAN.guid}/visibility` },
  },
});

// `fields[RESOURCE]=a,b` of the query: {RESOURCE: [a, b]}.
function fieldsOf(query) {
  const out = {};
  for (const [k, v] of query) {
    const m = /^fields\[(.+)\]$/.exec(k);
    if (m) out[m[1]] = v.split(',');
  }
  return out;
}

// Keep only the dotted `keys` (e.g. relationships.service_broker) of `obj`.
function pick(obj, keys) {
  const out = {};
  for (const key of keys) {
    const [head, ...rest] = key.split('.');
    if (!(head in obj)) continue;
    out[head] = rest.length ? { ...(out[head] || {}), ...pick(obj[head], [rest.join('.')]) } : obj[head];
  }
  return out;
}

// The `included` block for the catalog resources a query names in include / fields.
function included(base, query) {
  const inc = {};
  const fields = fieldsOf(query);
  const includes = (query.get('include') || '').split(',').filter(Boolean);
  const add = (key, full, names) => {
    if (names) inc[key] = [pick(full, names)];
    else if (names === null) inc[key] = [full];
  };
  const f = (...keys) => { for (const k of keys) if (fields[k]) return fields[k]; return undefined; };
  add('service_plans', plan(base), f('service_plan') || undefined);
  add('service_offerings', offering(base), includes.includes('service_offering') ? null : f('service_offering', 'service_plan.service_offering'));
  add('service_brokers', broker(base), f('service_offering.service_broker', 'service_plan.service_offering.service_broker'));
  return Object.keys(inc).length ? inc : undefined;
}

function instance(base, svc) {
  const g = svc.guid;
  return {
    guid: g, created_at: P.ts(svc.createdAt) || EPOCH, updated_at: P.ts(svc.createdAt) || EPOCH, name: svc.name,
    tags: [], last_operation: { type: 'create', state: 'succeeded', description: '', created_at: P.ts(svc.createdAt) || EPOCH, updated_at: P.ts(svc.createdAt) || EPOCH },
    type: 'managed', maintenance_info: {}, upgrade_available: false, dashboard_url: null,
    relationships: { space: { data: { guid: P.SPACE.guid } }, service_plan: { data: { guid: PLAN.guid } } },
    metadata: META(),
    links: {
      self: { href: `${base}/v3/service_instances/${g}` },
      space: { href: `${base}/v3/spaces/${P.SPACE.guid}` },
      service_credential_bindings: { href: `${base}/v3/service_credential_bindings?service_instance_guids=${g}` },
      service_route_bindings: { href: `${base}/v3/service_route_bindings?service_instance_guids=${g}` },
      service_plan: { href: `${base}/v3/service_plans/${PLAN.guid}` },
      parameters: { href: `${base}/v3/service_instances/${g}/parameters` },
      shared_spaces: { href: `${base}/v3/service_instances/${g}/relationships/shared_spaces` },
    },
  };
}

// An app binding (app given) or a service key (app null, name given): CC's
// service_credential_binding_presenter.rb, which leaves out the app for a key.
function binding(base, svc, app, guid, name = null) {
  const rel = { service_instance: { data: { guid: svc.guid } } };
  const links = { service_instance: { href: `${base}/v3/service_instances/${svc.guid}` } };
  if (app) {
    rel.app = { data: { guid: app.guid } };
    links.app = { href: `${base}/v3/apps/${app.guid}` };
  }
  return {
    guid, created_at: P.ts(svc.createdAt) || EPOCH, updated_at: P.ts(svc.createdAt) || EPOCH, name, type: app ? 'app' : 'key',
    last_operation: { type: 'create', state: 'succeeded', description: '', created_at: EPOCH, updated_at: EPOCH },
    metadata: META(),
    relationships: rel,
    links: {
      self: { href: `${base}/v3/service_credential_bindings/${guid}` },
      details: { href: `${base}/v3/service_credential_bindings/${guid}/details` },
      ...links,
    },
  };
}

module.exports = { BROKER, OFFERING, PLAN, broker, offering, plan, included, instance, binding };
