// service-instances.js — the marketplace (one broker, offering `postgres`, plan `local`),
// managed service instances (one PostgreSQL database and role each: services.js) and app
// credential bindings, as CC's service_instances_v3_controller.rb and
// service_credential_bindings_controller.rb answer them: creation, deletion and binding are
// jobs (202 + Location), lists filter by names / guids.
'use strict';

const crypto = require('node:crypto');
const P = require('./presenters');
const S = require('./service-presenters');
const errors = require('./errors');
const M = require('./messages');

const split = (query, name) => (query.get(name) === null ? null : query.get(name).split(','));
// The local broker's database is named after the instance (services.js): PostgreSQL's
// identifiers, of at most 63 bytes, in the characters the harness's names use.
const DATABASE_NAME = /^[a-z_][a-z0-9_-]{0,62}$/;

function register(router, { platform, base, jobs }) {
  const services = () => Object.values(platform.state.services);
  const byGuid = (guid) => services().find((s) => s.guid === guid) || null;
  const withIncluded = (out, query) => {
    const inc = S.included(base, query);
    return inc && out.resources.length ? { ...out, included: inc } : out;
  };
  // [svc, app, bindingGuid] of every binding.
  const bindings = () => services().flatMap((svc) => Object.entries(svc.bindings || {})
    .map(([appName, guid]) => [svc, platform.state.apps[appName], guid]).filter(([, app]) => app));
  const ctx = { platform, base, jobs, services, byGuid, withIncluded, bindings };
  registerMarketplace(router, ctx);
  registerInstances(router, ctx);
  registerCredentialBindings(router, ctx);
}

// The marketplace: the one broker, offering and plan; no route services.
function registerMarketplace(router, { base, withIncluded }) {
  const planFilter = (query) => {
    const names = split(query, 'names');
    const offerings = split(query, 'service_offering_names');
    const offeringGuids = split(query, 'service_offering_guids');
    return (!names || names.includes(S.PLAN.name)) && (!offerings || offerings.includes(S.OFFERING.name))
      && (!offeringGuids || offeringGuids.includes(S.OFFERING.guid)) && query.get('available') !== 'false';
  };
  router.add('GET', '/v3/service_plans', ({ query }) => withIncluded(P.list(base, '/v3/service_plans', planFilter(query) ? [S.plan(base)] : []), query));
  router.add('GET', '/v3/service_plans/:guid', ({ params }) => {
    if (params.guid !== S.PLAN.guid) throw errors.resourceNotFound('Service plan');
    return S.plan(base);
  });
  router.add('GET', '/v3/service_offerings', ({ query }) => {
    const names = split(query, 'names');
    const brokers = split(query, 'service_broker_names');
    const ok = (!names || names.includes(S.OFFERING.name)) && (!brokers || brokers.includes(S.BROKER.name));
    return withIncluded(P.list(base, '/v3/service_offerings', ok ? [S.offering(base)] : []), query);
  });
  router.add('GET', '/v3/service_offerings/:guid', ({ params }) => {
    if (params.guid !== S.OFFERING.guid) throw errors.resourceNotFound('Service offering');
    return S.offering(base);
  });
  // Route services (service_route_bindings_controller.rb): the local broker's offering is not
  // one (its `requires` has no route_forwarding), so there are none; `include` gives the
  // included lists CC's decorators add, empty.
  router.add('GET', '/v3/service_route_bindings', ({ query }) => {
    const out = P.list(base, '/v3/service_route_bindings', []);
    const inc = (query.get('include') || '').split(',').filter(Boolean);
    if (inc.length) out.included = Object.fromEntries(inc.map((k) => [k === 'route' ? 'routes' : 'service_instances', []]));
    return out;
  });
  router.add('GET', '/v3/service_route_bindings/:guid', () => { throw errors.resourceNotFound('Service route binding'); });
  router.add('GET', '/v3/service_brokers', () => P.list(base, '/v3/service_brokers', [S.broker(base)]));
}

// Managed service instances: list, show, create and delete (jobs).
function registerInstances(router, { platform, base, jobs, services, byGuid, withIncluded }) {
  router.add('GET', '/v3/service_instances', ({ query }) => {
    const names = split(query, 'names');
    const guids = split(query, 'guids');
    const list = services().filter((s) => (!names || names.includes(s.name)) && (!guids || guids.includes(s.guid)));
    return withIncluded(P.list(base, '/v3/service_instances', list.map((s) => S.instance(base, s))), query);
  });
  router.add('GET', '/v3/service_instances/:guid', ({ params, query }) => {
    const svc = byGuid(params.guid);
    if (!svc) throw errors.resourceNotFound('Service instance');
    const inc = S.included(base, query);
    return inc ? { ...S.instance(base, svc), included: inc } : S.instance(base, svc);
  });
  // Sharing is off (the service_instance_sharing feature flag, foundation.js): no shared
  // spaces (to_many_relationship_presenter.rb; the fields decorators' included lists).
  router.add('GET', '/v3/service_instances/:guid/relationships/shared_spaces', ({ params, query }) => {
    const svc = byGuid(params.guid);
    if (!svc) throw errors.resourceNotFound('Service instance');
    const out = { data: [], links: { self: { href: `${base}/v3/service_instances/${svc.guid}/relationships/shared_spaces` } } };
    if ([...query.keys()].some((k) => k.startsWith('fields['))) out.included = { spaces: [], organizations: [] };
    return out;
  });
  // service_instances_v3_controller.rb create: the message, the space, the plan, the name
  // (taken, or not one the local broker can name its database after), all before the job.
  router.add('POST', '/v3/service_instances', ({ body }) => {
    errors.refuseIf(M.serviceInstanceCreate(body));
    if (body.type !== 'managed') throw errors.unprocessable('Type must be one of \'managed\' (user-provided services are not supported locally)');
    if (body.relationships.space.data?.guid !== P.SPACE.guid) throw errors.unprocessable(`Invalid space. Ensure that the space exists and you have access to it.`);
    if (body.relationships.service_plan.data?.guid !== S.PLAN.guid) throw errors.unprocessable('Invalid service plan. Ensure that the service plan exists, is available, and you have access to it.');
    if (platform.state.services[body.name]) throw errors.unprocessable(`The service instance name is taken: ${body.name}.`);
    if (!DATABASE_NAME.test(body.name)) {
      throw errors.unprocessable(`Service broker error: the local broker names the instance's database after it: '${body.name}' must match ${DATABASE_NAME.source}`);
    }
    return jobs.start('service_instance.create', () => platform.exclusive(async () => {
      try {
        await platform.createService({ offering: S.OFFERING.name, plan: S.PLAN.name, name: body.name });
      } catch (e) { throw errors.unprocessable(`Service broker error: ${e.message}`); }
      platform.state.services[body.name].createdAt = new Date().toISOString();
      platform.save();
    }));
  });
  // CC deletes the instance's bindings first (app/actions/v3/service_instance_delete.rb).
  router.add('DELETE', '/v3/service_instances/:guid', ({ params }) => {
    const svc = byGuid(params.guid);
    if (!svc) throw errors.resourceNotFound('Service instance');
    return jobs.start('service_instance.delete', () => platform.exclusive(async () => {
      for (const appName of Object.keys(svc.bindings || {})) {
        if (platform.state.apps[appName]) platform.unbindService({ appName, name: svc.name });
      }
      await platform.deleteService({ name: svc.name });
    }));
  });
}

// Credential bindings: an app's binding or a service key, listed, shown, created, deleted.
function registerCredentialBindings(router, { platform, base, jobs, services, byGuid, bindings }) {
  // [svc, null, keyGuid, keyName] of every service key (type key: credentials for a
  // client outside the platform, as `cf create-service-key` makes them).
  const keys = () => services().flatMap((svc) => Object.entries(svc.keys || {}).map(([name, guid]) => [svc, null, guid, name]));
  const present = ([svc, app, g, name]) => S.binding(base, svc, app, g, name);

  // CC's ServiceCredentialBindingListMessage filters (type app|key, names,
  // service_instance_guids|names, app_guids); a bad type → 400 (10005).
  router.add('GET', '/v3/service_credential_bindings', ({ query }) => {
    const type = query.get('type');
    if (type !== null && !['app', 'key'].includes(type)) throw errors.badQuery("Type must be one of 'app', 'key'");
    const si = split(query, 'service_instance_guids');
    const siNames = split(query, 'service_instance_names');
    const ap = split(query, 'app_guids');
    const names = split(query, 'names');
    const all = [...(type === 'key' ? [] : bindings()), ...(type === 'app' || ap ? [] : keys())];
    const list = all.filter(([svc, app, , name]) => (!si || si.includes(svc.guid)) && (!siNames || siNames.includes(svc.name))
      && (!ap || (app && ap.includes(app.guid))) && (!names || names.includes(name)));
    const out = P.list(base, '/v3/service_credential_bindings', list.map(present));
    const withApps = list.filter(([, app]) => app);
    if ((query.get('include') || '').split(',').includes('app') && withApps.length) {
      out.included = { apps: [...new Set(withApps.map(([, app]) => app))].map((a) => P.app(base, a)) };
    }
    return out;
  });
  const findBinding = (guid) => [...bindings(), ...keys()].find(([, , g]) => g === guid)
    || (() => { throw errors.resourceNotFound('Service credential binding'); })();
  router.add('GET', '/v3/service_credential_bindings/:guid', ({ params }) => present(findBinding(params.guid)));
  // The broker's credentials (service_credential_bindings_controller.rb details): one
  // database role per instance, so a key's are the instance's.
  router.add('GET', '/v3/service_credential_bindings/:guid/details', ({ params }) => {
    const [svc] = findBinding(params.guid);
    return { credentials: svc.credentials };
  });
  // service_credential_bindings_controller.rb create: the message, the instance and the app
  // ("The … could not be found: 'GUID'"), then the name's uniqueness, before the job.
  router.add('POST', '/v3/service_credential_bindings', ({ body }) => {
    errors.refuseIf(M.credentialBindingCreate(body));
    const siGuid = body.relationships.service_instance.data?.guid;
    const svc = byGuid(siGuid);
    if (!svc) throw errors.unprocessable(`The service instance could not be found: '${siGuid}'`);
    if (body.type === 'key') {
      // service_credential_binding_key_create.rb: a name, unique per instance (docs/cf-platform.md §14).
      if (svc.keys && svc.keys[body.name]) {
        throw errors.unprocessable(`The binding name is invalid. Key binding names must be unique. The service instance already has a key binding with name '${body.name}'.`);
      }
      return jobs.start('service_keys.create', () => platform.exclusive(() => {
        svc.keys = { ...svc.keys, [body.name]: crypto.randomUUID() };
        platform.save();
      }));
    }
    const appGuid = body.relationships.app.data?.guid;
    const app = platform.appByGuid(appGuid);
    if (!app) throw errors.unprocessable(`The app could not be found: '${appGuid}'`);
    if (svc.bindings && svc.bindings[app.name]) throw new errors.CcError(422, 10008, 'CF-UnprocessableEntity', `The app is already bound to the service instance ${svc.name}.`);
    return jobs.start('service_bindings.create', () => platform.exclusive(() => platform.bindService({ appName: app.name, name: svc.name })));
  });
  router.add('DELETE', '/v3/service_credential_bindings/:guid', ({ params }) => {
    const [svc, app, , keyName] = findBinding(params.guid);
    if (!app) {
      return jobs.start('service_keys.delete', () => platform.exclusive(() => {
        delete svc.keys[keyName];
        platform.save();
      }));
    }
    return jobs.start('service_bindings.delete', () => platform.exclusive(() => platform.unbindService({ appName: app.name, name: svc.name })));
  });
}

module.exports = { register };
