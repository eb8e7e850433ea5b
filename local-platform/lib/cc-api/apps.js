// apps.js — apps (cloud_controller_ng apps_controller.rb): list/get, start/stop/restart
// within the org quota, delete, environment variables, the app's routes, features (ssh) and
// the audit events (docs/cf-platform.md §18). The web process: processes.js. Each mutation
// is validated first and runs through the platform's one-at-a-time queue.
'use strict';

const P = require('./presenters');
const errors = require('./errors');
const { v3Stats } = require('../instance-usage');
const { environmentVariables, routeResource, curl } = require('../cf-api');
const { route } = require('./routes');
const { vcapServices, vcapApplication } = require('../cf-env');
const V = require('./validate');
const { renameApp } = require('../app-rename');

function register(router, { platform, base, jobs }) {
  const apps = () => Object.values(platform.state.apps);
  const appOr404 = (guid) => {
    const a = platform.appByGuid(guid);
    if (!a) throw errors.resourceNotFound('App');
    return a;
  };
  const exclusive = (fn) => platform.exclusive(fn);
  const user = (a, type, data) => platform.events.app(type, a, { data });
  const ctx = { platform, base, jobs, apps, appOr404, exclusive, user };
  registerRecords(router, ctx);
  registerLifecycle(router, ctx);
  registerEnvironment(router, ctx);
}

// The app records: list, show, rename, delete.
function registerRecords(router, { platform, base, jobs, apps, appOr404, exclusive, user }) {
  router.add('GET', '/v3/apps', ({ query }) => {
    const names = query.get('names');
    const spaces = query.get('space_guids');
    const wanted = (a) => (names === null || names.split(',').includes(a.name))
      && (spaces === null || spaces.split(',').includes(P.SPACE.guid));
    return P.list(base, '/v3/apps', apps().filter(wanted).map((a) => P.app(base, a)));
  });
  router.add('GET', '/v3/apps/:guid', ({ params }) => P.app(base, appOr404(params.guid)));
  // `cf rename` (apps_controller.rb update, AppUpdateMessage, app_update.rb): the name only;
  // lifecycle and metadata are not kept locally.
  router.add('PATCH', '/v3/apps/:guid', async ({ params, body }) => {
    const a = appOr404(params.guid);
    const b = V.isObject(body) ? body : {};
    const problems = V.unknownKeys(b, ['name', 'lifecycle', 'metadata']);
    if ('name' in b && (typeof b.name !== 'string' || !b.name.length)) problems.push(typeof b.name === 'string' ? "Name can't be blank" : 'Name must be a string');
    else if (typeof b.name === 'string' && b.name.length > 255) problems.push('Name is too long (maximum is 255 characters)');
    // The router's backends carry the name (haproxy-config.js): HAProxy's name characters only.
    else if (typeof b.name === 'string' && !/^[A-Za-z0-9._:-]+$/.test(b.name)) problems.push("Name must be letters, digits, '.', '_', ':' or '-' on the local platform");
    if (problems.length) throw errors.unprocessable(problems.join(', '));
    await exclusive(async () => {
      if (b.name !== undefined && b.name !== a.name) {
        if (platform.state.apps[b.name]) throw errors.unprocessable(`App with the name '${b.name}' already exists.`);
        await renameApp(platform, a, b.name);
      }
      user(a, 'audit.app.update', { request: Object.fromEntries(Object.entries(b).filter(([k]) => k === 'name')) });
    });
    return P.app(base, a);
  });
  // CC's delete (apps_controller.rb destroy, app_delete.rb): the delete request and a stop
  // are recorded, the app goes with its bindings and route mappings; its routes stay.
  router.add('DELETE', '/v3/apps/:guid', ({ params }) => {
    const a = appOr404(params.guid);
    platform.logs.write(a.name, 'API/0', 'OUT', `Deleted app with guid ${a.guid}`);
    user(a, 'audit.app.delete-request', { request: { recursive: true } });
    return jobs.start('app.delete', () => exclusive(async () => {
      if (a.state === 'STARTED') user(a, 'audit.app.stop', { delete_triggered: true, reason: 'stopped as part of app deletion' });
      await platform.deleteApp({ appName: a.name });
      if (platform.bits) platform.bits.discardApp(a.guid);
    }));
  });
}

// Start, stop, restart.
function registerLifecycle(router, { platform, base, appOr404, exclusive, user }) {
  // CC starts and answers at once; the CLI polls the stats until an instance runs. A start
  // the org quota cannot hold is CC's 422 with the quota's message (app_start.rb, §17).
  const startable = (a) => {
    if (!a.path) throw errors.unprocessable('Assign a droplet before starting this app.');
    const over = platform.quotaErrors({ ...a, state: 'STARTED' });
    if (over.length) throw errors.unprocessable(over.join(', '));
  };
  const start = async (a) => {
    startable(a);
    await platform.start({ appName: a.name, wait: false });
  };
  // app_event_repository.rb: start, stop and restart are the user's events, each with an
  // API line in the app's log.
  const action = (verb, run, done) => router.add('POST', `/v3/apps/:guid/actions/${verb}`, async ({ params }) => {
    const a = appOr404(params.guid);
    await exclusive(async () => {
      await run(a);
      platform.logs.write(a.name, 'API/0', 'OUT', `${done} app with guid ${a.guid}`);
      user(a, `audit.app.${verb}`, {});
    });
    return P.app(base, a);
  });
  action('start', start, 'Starting');
  action('stop', (a) => platform.stop({ appName: a.name }), 'Stopping');
  action('restart', async (a) => {
    startable(a);
    await platform.stop({ appName: a.name });
    await start(a);
  }, 'Restarted');
}

// An app's environment, its routes, and the audit events.
function registerEnvironment(router, { platform, base, appOr404, exclusive, user }) {
  router.add('GET', '/v3/apps/:guid/environment_variables', ({ params }) => {
    const out = environmentVariables(appOr404(params.guid));
    out.links = { self: { href: `${base}${out.links.self.href}` }, app: { href: `${base}${out.links.app.href}` } };
    return out;
  });
  // UpdateEnvironmentVariablesMessage: no VCAP_*, VMC*, PORT; string or null values.
  router.add('PATCH', '/v3/apps/:guid/environment_variables', async ({ params, body }) => {
    const a = appOr404(params.guid);
    const b = V.isObject(body) ? body : {};
    const problems = [...V.unknownKeys(b, ['var']), ...V.environmentVariables('Var', b.var)];
    if (problems.length) throw errors.unprocessable(problems.join(', '));
    await exclusive(() => {
      for (const [k, v] of Object.entries(b.var)) {
        if (v === null) delete a.env[k];
        else a.env[k] = v;
      }
      platform.save();
      user(a, 'audit.app.update', { request: { environment_variables: '[PRIVATE DATA HIDDEN]' } });
    });
    return environmentVariables(a);
  });
  // `cf env`: CC's app_env_presenter.rb; VCAP_APPLICATION without the per-instance keys
  // (CC's VarsBuilder has no instance).
  router.add('GET', '/v3/apps/:guid/env', ({ params }) => {
    const a = appOr404(params.guid);
    const vcapApp = vcapApplication(a, {});
    for (const k of ['instance_id', 'instance_index', 'port', 'host']) delete vcapApp[k];
    return {
      environment_variables: { ...a.env },
      staging_env_json: {},
      running_env_json: {},
      system_env_json: { VCAP_SERVICES: vcapServices(a, platform.state.services) },
      application_env_json: { VCAP_APPLICATION: vcapApp },
    };
  });
  router.add('GET', '/v3/apps/:guid/routes', ({ params }) => {
    const a = appOr404(params.guid);
    return P.list(base, `/v3/apps/${a.guid}/routes`, a.routes.map((u) => route(base, a, routeResource(a, u))));
  });
  // cf-api.js holds CC's audit-event filters (target_guids, types, created_ats: §9), with
  // CC's error when a filter is malformed.
  router.add('GET', '/v3/audit_events', ({ query }) => {
    const { status, doc } = curl(platform, `/v3/audit_events?${query}`, { v3Stats });
    if (status !== 200) throw errors.fromDocument(status, doc);
    return doc;
  });
}

module.exports = { register };
