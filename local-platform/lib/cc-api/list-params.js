// list-params.js — the query parameters of each v3 list the local CC serves, as Cloud
// Controller's list messages declare them (cloud_controller_ng app/messages/FILE: its
// register_allowed_keys, after ListMessage's page, per_page, order_by, created_ats,
// updated_ats, guids and MetadataListMessage's label_selector; its valid_order_by_values),
// and what CC does with them (docs/cf-platform.md §19): a parameter the message does not
// know, a bad page or a bad order_by is 400 CF-BadQueryParameter (10005) naming it;
// `guids` and `names` filter; `order_by` sorts (`-` descending) by created_at, updated_at,
// name, … with CC's default the order of creation.
'use strict';

const errors = require('./errors');
const { pageOf } = require('./pagination');

// message → {file, paths (router patterns), keys (CC's order), order (valid order_by)}.
const MESSAGES = {
  AppsListMessage: { file: 'apps_list_message.rb', paths: ['/v3/apps'],
    keys: 'page per_page order_by created_ats updated_ats guids names organization_guids space_guids stacks include lifecycle_type label_selector',
    order: 'created_at updated_at name state' },
  ProcessesListMessage: { file: 'processes_list_message.rb', paths: ['/v3/processes', '/v3/apps/:guid/processes'],
    keys: 'page per_page order_by created_ats updated_ats guids app_guid types space_guids organization_guids app_guids embed label_selector',
    order: 'created_at updated_at' },
  RoutesListMessage: { file: 'routes_list_message.rb', paths: ['/v3/routes', '/v3/apps/:guid/routes'],
    keys: 'page per_page order_by created_ats updated_ats guids hosts space_guids organization_guids domain_guids paths app_guids include label_selector ports service_instance_guids',
    order: 'created_at updated_at' },
  OrgsListMessage: { file: 'orgs_list_message.rb', paths: ['/v3/organizations'],
    keys: 'page per_page order_by created_ats updated_ats guids names isolation_segment_guid label_selector',
    order: 'created_at updated_at name' },
  SpacesListMessage: { file: 'spaces_list_message.rb', paths: ['/v3/spaces'],
    keys: 'page per_page order_by created_ats updated_ats guids names organization_guids include label_selector',
    order: 'created_at updated_at name' },
  DomainsListMessage: { file: 'domains_list_message.rb', paths: ['/v3/domains', '/v3/organizations/:guid/domains'],
    keys: 'page per_page order_by created_ats updated_ats guids names guids organization_guids label_selector',
    order: 'created_at updated_at' },
  StacksListMessage: { file: 'stacks_list_message.rb', paths: ['/v3/stacks'],
    keys: 'page per_page order_by created_ats updated_ats guids names default label_selector',
    order: 'created_at updated_at name' },
  EventsListMessage: { file: 'events_list_message.rb', paths: ['/v3/audit_events'],
    keys: 'page per_page order_by created_ats updated_ats guids types target_guids space_guids organization_guids',
    order: 'created_at updated_at' },
  PackagesListMessage: { file: 'packages_list_message.rb', paths: ['/v3/packages', '/v3/apps/:guid/packages'],
    keys: 'page per_page order_by created_ats updated_ats guids states types app_guids app_guid space_guids organization_guids label_selector',
    order: 'created_at updated_at' },
  DropletsListMessage: { file: 'droplets_list_message.rb', paths: ['/v3/apps/:guid/droplets', '/v3/packages/:guid/droplets'],
    keys: 'page per_page order_by created_ats updated_ats guids app_guid app_guids current organization_guids package_guid space_guids states label_selector',
    order: 'created_at updated_at' },
  DeploymentsListMessage: { file: 'deployments_list_message.rb', paths: ['/v3/deployments'],
    keys: 'page per_page order_by created_ats updated_ats guids app_guids states status_reasons status_values label_selector',
    order: 'created_at updated_at' },
  ServicePlansListMessage: { file: 'service_plans_list_message.rb', paths: ['/v3/service_plans'],
    keys: 'page per_page order_by created_ats updated_ats guids available fields broker_catalog_ids names organization_guids service_broker_guids service_broker_names service_instance_guids service_offering_guids service_offering_names space_guids include label_selector',
    order: 'created_at updated_at name' },
  ServiceOfferingsListMessage: { file: 'service_offerings_list_message.rb', paths: ['/v3/service_offerings'],
    keys: 'page per_page order_by created_ats updated_ats guids available fields broker_catalog_ids service_broker_guids service_broker_names names space_guids organization_guids label_selector',
    order: 'created_at updated_at name' },
  ServiceBrokersListMessage: { file: 'service_brokers_list_message.rb', paths: ['/v3/service_brokers'],
    keys: 'page per_page order_by created_ats updated_ats guids space_guids names label_selector',
    order: 'created_at updated_at name' },
  ServiceInstancesListMessage: { file: 'service_instances_list_message.rb', paths: ['/v3/service_instances'],
    keys: 'page per_page order_by created_ats updated_ats guids type fields names space_guids organization_guids service_plan_guids service_plan_names label_selector',
    order: 'created_at updated_at name' },
  ServiceCredentialBindingListMessage: { file: 'service_credential_binding_list_message.rb', paths: ['/v3/service_credential_bindings'],
    keys: 'page per_page order_by created_ats updated_ats guids names service_instance_guids service_instance_names service_plan_names service_plan_guids service_offering_names service_offering_guids app_guids app_names include type label_selector',
    order: 'created_at updated_at name' },
  ServiceRouteBindingsListMessage: { file: 'service_route_bindings_list_message.rb', paths: ['/v3/service_route_bindings'],
    keys: 'page per_page order_by created_ats updated_ats guids service_instance_guids service_instance_names route_guids include label_selector',
    order: 'created_at updated_at' },
  SidecarsListMessage: { file: 'sidecars_list_message.rb', paths: ['/v3/processes/:guid/sidecars'],
    keys: 'page per_page order_by created_ats updated_ats guids',
    order: 'created_at updated_at' },
  BuildpacksListMessage: { file: 'buildpacks_list_message.rb', paths: ['/v3/buildpacks'],
    keys: 'page per_page order_by created_ats updated_ats guids stacks names lifecycle page per_page label_selector',
    order: 'created_at updated_at position lifecycle' },
  FeatureFlagsListMessage: { file: 'feature_flags_list_message.rb', paths: ['/v3/feature_flags'],
    keys: 'page per_page order_by created_ats updated_ats guids',
    order: 'name' },
  OrganizationQuotasListMessage: { file: 'organization_quotas_list_message.rb', paths: ['/v3/organization_quotas'],
    keys: 'page per_page order_by created_ats updated_ats guids names organization_guids',
    order: 'created_at updated_at' },
  SpaceQuotasListMessage: { file: 'space_quotas_list_message.rb', paths: ['/v3/space_quotas'],
    keys: 'page per_page order_by created_ats updated_ats guids names organization_guids space_guids',
    order: 'created_at updated_at' },
  TasksListMessage: { file: 'tasks_list_message.rb', paths: ['/v3/tasks', '/v3/apps/:guid/tasks'],
    keys: 'page per_page order_by created_ats updated_ats guids names states app_guids organization_guids space_guids app_guid sequence_ids label_selector',
    order: 'created_at updated_at' },
  IsolationSegmentsListMessage: { file: 'isolation_segments_list_message.rb', paths: ['/v3/isolation_segments'],
    keys: 'page per_page order_by created_ats updated_ats guids names organization_guids label_selector',
    order: 'created_at updated_at name' },
};

const BY_PATH = new Map(Object.entries(MESSAGES).flatMap(([, m]) => m.paths.map((p) => [p, m])));
// The exact time of a resource, where it has one finer than its rendered second (events.js).
const AT_MS = Symbol.for('cfscale.atMs');

// The list message of a router pattern, or null (not a list).
function listMessage(pattern) { return BY_PATH.get(pattern) || null; }

// CC's validation of a list query (ListMessage's PaginationPageValidator and
// PaginationOrderValidator, then the message's NoAdditionalParamsValidator): all problems
// in one 400, as invalid_param!(message.errors.full_messages).
function checkListQuery(message, query) {
  const problems = [];
  try { pageOf(query); } catch (e) { problems.push(e.message.replace(/^The query parameter is invalid: /, '')); }
  const orderBy = query.get('order_by');
  const allowed = message.order.split(' ').filter(Boolean);
  if (orderBy !== null && orderBy !== '' && !new RegExp(`^[+-]?(${allowed.join('|')})$`).test(orderBy)) {
    problems.push(`Order by can only be: ${allowed.map((v) => `'${v}'`).join(', ')}`);
  }
  const keys = message.keys.split(' ');
  const extra = [...new Set([...query.keys()].map((k) => k.replace(/\[.*$/, '')))].filter((k) => !keys.includes(k));
  if (extra.length) problems.push(`Unknown query parameter(s): '${extra.join("', '")}'. Valid parameters are: '${keys.join("', '")}'`);
  if (problems.length) throw errors.badQuery(problems.join(', '));
}

// The resources of a list document filtered by `guids` (and `names` where the message has
// it) and sorted by `order_by`; CC's default order (by id) is the order the handler gives.
function applyListQuery(doc, message, query) {
  if (!doc || !Array.isArray(doc.resources)) return doc;
  let list = doc.resources;
  const split = (k) => (query.get(k) === null ? null : query.get(k).split(','));
  const guids = split('guids');
  if (guids) list = list.filter((r) => guids.includes(r.guid));
  const names = message.keys.split(' ').includes('names') ? split('names') : null;
  if (names) list = list.filter((r) => names.includes(r.name));
  const orderBy = query.get('order_by');
  if (orderBy) {
    const desc = orderBy.startsWith('-');
    const field = orderBy.replace(/^[+-]/, '');
    const key = (r) => (field === 'created_at' && r[AT_MS] !== undefined ? r[AT_MS] : field === 'created_at' || field === 'updated_at' ? Date.parse(r[field]) || 0 : r[field]);
    list = list.map((r, i) => [r, i]).sort(([a, i], [b, j]) => {
      const x = key(a);
      const y = key(b);
      const c = x < y ? -1 : x > y ? 1 : i - j;
      return desc ? -c : c;
    }).map(([r]) => r);
  }
  return { ...doc, resources: list };
}

module.exports = { MESSAGES, listMessage, checkListQuery, applyListQuery };
