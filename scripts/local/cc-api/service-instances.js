// service-instances.js — the marketplace (one broker, offering `postgres`, plan `local`),
// managed service instances (one PostgreSQL database and role each: services.js) and app
// credential bindings, as CC's service_instances_v3_controller.rb and
// service_credential_bindings_controller.rb answer them: creation, deletion and binding are
// jobs (202 + Location), lists filter by names / guids.
'use strict';

const P = require('./presenters');
const S = require('./service-presenters');
const errors = require('./errors');

const split = (query, name) => (query.get(name) === null ? null : query.get(name).split(','));

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
  router.add('GET', '/v3/service_brokers', () => P.list(base, '/v3/service_brokers', [S.broker(base)]));

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
  router.add('POST', '/v3/service_instances', ({ body }) => {
    if (body.type !== 'managed') throw errors.unprocessable('Type must be one of \'managed\' (user-provided services are not supported locally)');
    if (typeof body.name !== 'string' || !body.name) throw errors.unprocessable('Name must be a string');
    if (body.relationships?.space?.data?.guid !== P.SPACE.guid) throw errors.unprocessable(`Invalid space. Ensure that the space exists and you have access to it.`);
    if (body.relationships?.service_plan?.data?.guid !== S.PLAN.guid) throw errors.unprocessable('Invalid service plan. Ensure that the service plan exists, is available, and you have access to it.');
    if (platform.state.services[body.name]) throw errors.unprocessable(`The service instance name is taken: ${body.name}.`);
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

  router.add('GET', '/v3/service_credential_bindings', ({ query }) => {
    const si = split(query, 'service_instance_guids');
    const ap = split(query, 'app_guids');
    const list = bindings().filter(([svc, app]) => (!si || si.includes(svc.guid)) && (!ap || ap.includes(app.guid)));
    const out = P.list(base, '/v3/service_credential_bindings', list.map(([svc, app, g]) => S.binding(base, svc, app, g)));
    if ((query.get('include') || '').split(',').includes('app') && list.length) {
      out.included = { apps: [...new Set(list.map(([, app]) => app))].map((a) => P.app(base, a)) };
    }
    return out;
  });
  router.add('POST', '/v3/service_credential_bindings', ({ body }) => {
    if (body.type !== 'app') throw errors.unprocessable('Type must be \'app\' (route bindings are not supported locally)');
    const svc = byGuid(body.relationships?.service_instance?.data?.guid);
    if (!svc) throw errors.unprocessable('Service instance not found');
    const app = platform.appByGuid(body.relationships?.app?.data?.guid);
    if (!app) throw errors.unprocessable('Could not find app');
    if (svc.bindings && svc.bindings[app.name]) throw new errors.CcError(422, 10008, 'CF-UnprocessableEntity', `The app is already bound to the service instance ${svc.name}.`);
    return jobs.start('service_bindings.create', () => platform.exclusive(() => platform.bindService({ appName: app.name, name: svc.name })));
  });
  router.add('DELETE', '/v3/service_credential_bindings/:guid', ({ params }) => {
    const found = bindings().find(([, , g]) => g === params.guid);
    if (!found) throw errors.resourceNotFound('Service credential binding');
    const [svc, app] = found;
    return jobs.start('service_bindings.delete', () => platform.exclusive(() => platform.unbindService({ appName: app.name, name: svc.name })));
  });
}

module.exports = { register };
