// apps.js — apps and their web process (cloud_controller_ng apps_v3_controller.rb,
// processes_controller.rb): list/get, process, stats (instance-usage.js, docs/cf-platform.md §2),
// scale, start/stop/restart, instance restart, delete, environment variables, the app's
// routes and audit events. Each mutation runs through the platform's one-at-a-time queue.
'use strict';

const P = require('./presenters');
const errors = require('./errors');
const { v3Stats } = require('../instance-usage');
const { environmentVariables, routeResource, curl } = require('../cf-api');
const { route } = require('./routes');
const { vcapServices, vcapApplication } = require('../cf-env');
const { USER } = require('./uaa');

function register(router, { platform, base, jobs }) {
  const apps = () => Object.values(platform.state.apps);
  const appOr404 = (guid) => {
    const a = platform.appByGuid(guid);
    if (!a) throw errors.resourceNotFound('App');
    return a;
  };
  const processOr404 = (guid, type = 'web') => {
    const a = platform.appByGuid(guid);
    if (!a || type !== 'web') throw errors.resourceNotFound('Process');
    return a;
  };
  const exclusive = (fn) => platform.exclusive(fn);
  const stats = (a) => v3Stats(a, platform.cell.list(a.name), platform.cpuCores(a));
  const proc = (a) => P.processOf(base, a, platform.startCommandOf ? platform.startCommandOf(a) : a.command);

  router.add('GET', '/v3/apps', ({ query }) => {
    const names = query.get('names');
    const spaces = query.get('space_guids');
    const wanted = (a) => (names === null || names.split(',').includes(a.name))
      && (spaces === null || spaces.split(',').includes(P.SPACE.guid));
    return P.list(base, '/v3/apps', apps().filter(wanted).map((a) => P.app(base, a)));
  });
  router.add('GET', '/v3/apps/:guid', ({ params }) => P.app(base, appOr404(params.guid)));
  router.add('DELETE', '/v3/apps/:guid', ({ params }) => {
    const a = appOr404(params.guid);
    return jobs.start('app.delete', () => exclusive(() => platform.deleteApp({ appName: a.name })));
  });
  router.add('GET', '/v3/apps/:guid/processes', ({ params }) => {
    const a = appOr404(params.guid);
    return P.list(base, `/v3/apps/${a.guid}/processes`, [proc(a)]);
  });
  router.add('GET', '/v3/processes', ({ query }) => {
    const guids = query.get('app_guids');
    const list = apps().filter((a) => guids === null || guids.split(',').includes(a.guid));
    return P.list(base, '/v3/processes', list.map(proc));
  });
  router.add('GET', '/v3/apps/:guid/processes/:type', ({ params }) => proc(processOr404(params.guid, params.type)));
  router.add('GET', '/v3/processes/:guid', ({ params }) => proc(processOr404(params.guid)));
  router.add('GET', '/v3/apps/:guid/processes/:type/stats', ({ params }) => stats(processOr404(params.guid, params.type)));
  router.add('GET', '/v3/processes/:guid/sidecars', ({ params }) => P.list(base, `/v3/processes/${processOr404(params.guid).guid}/sidecars`, []));
  router.add('GET', '/v3/processes/:guid/stats', ({ params }) => stats(processOr404(params.guid)));

  const scale = async ({ params, body }) => {
    const a = processOr404(params.guid, params.type);
    const problems = [];
    const extra = Object.keys(body || {}).filter((k) => !['instances', 'memory_in_mb', 'disk_in_mb', 'log_rate_limit_in_bytes_per_second'].includes(k));
    if (extra.length) problems.push(`Unknown field(s): '${extra.join("', '")}'`);
    // ProcessScaleMessage (app/messages/process_scale_message.rb).
    if (body.instances !== undefined && body.instances !== null) {
      if (!Number.isInteger(body.instances)) problems.push('Instances must be an integer');
      else if (body.instances < 0) problems.push('Instances must be greater than or equal to 0');
    }
    for (const [k, label] of [['memory_in_mb', 'Memory in mb'], ['disk_in_mb', 'Disk in mb']]) {
      if (body[k] === undefined || body[k] === null) continue;
      if (!Number.isInteger(body[k])) problems.push(`${label} must be an integer`);
      else if (body[k] <= 0) problems.push(`${label} must be greater than 0`);
    }
    if (problems.length) throw errors.unprocessable(problems.join(', '));
    await exclusive(async () => {
      if (Number.isInteger(body.memory_in_mb)) a.memoryMb = body.memory_in_mb;
      if (Number.isInteger(body.disk_in_mb)) a.diskMb = body.disk_in_mb;
      if (Number.isInteger(body.instances)) await platform.scale({ appName: a.name, instances: body.instances });
      else platform.save();
    });
    return [202, proc(a)];
  };
  // PATCH /v3/processes/:guid (ProcessUpdateMessage: command, user, health_check,
  // readiness_health_check, metadata). Locally only metadata, and one annotation has an
  // effect: CPU_ANNOTATION, the instance's CPU quota in cores or "none" (null: back to
  // the default that follows memory, docs/cf-platform.md §7). CF has no CPU setting; an
  // annotation is CC's own place for what a platform's tooling keeps on a resource (§14).
  router.add('PATCH', '/v3/processes/:guid', async ({ params, body }) => {
    const a = processOr404(params.guid);
    const fields = Object.keys(body || {});
    const extra = fields.filter((k) => !['command', 'user', 'health_check', 'readiness_health_check', 'metadata'].includes(k));
    if (extra.length) throw errors.unprocessable(`Unknown field(s): '${extra.join("', '")}'`);
    const other = fields.filter((k) => k !== 'metadata');
    if (other.length) throw errors.unprocessable(`${other.join(', ')}: set it in the manifest and push (not updated here locally)`);
    const ann = body.metadata?.annotations || {};
    const unknown = Object.keys(ann).filter((k) => k !== P.CPU_ANNOTATION);
    if (unknown.length) throw errors.unprocessable(`Metadata annotations: only '${P.CPU_ANNOTATION}' is kept locally, got '${unknown.join("', '")}'`);
    if (P.CPU_ANNOTATION in ann) {
      const v = ann[P.CPU_ANNOTATION];
      const n = Number(v);
      if (v !== null && v !== 'none' && !(typeof v === 'string' && Number.isFinite(n) && n >= 0.01)) {
        throw errors.unprocessable(`Metadata annotations: '${P.CPU_ANNOTATION}' must be a number of cores >= 0.01 or "none", got ${JSON.stringify(v)}`);
      }
      await exclusive(async () => {
        await platform.scale({ appName: a.name, cpu: v === null || v === 'none' ? v : n });
        platform.save();
      });
    }
    return proc(a);
  });
  router.add('POST', '/v3/apps/:guid/processes/:type/actions/scale', scale);
  router.add('POST', '/v3/processes/:guid/actions/scale', scale);
  router.add('DELETE', '/v3/apps/:guid/processes/:type/instances/:index', async ({ params }) => {
    const a = processOr404(params.guid, params.type);
    const index = Number(params.index);
    if (!(Number.isInteger(index) && index >= 0 && index < a.instances)) throw errors.resourceNotFound('Instance');
    // CC records the event, stops the instance and answers (processes_controller.rb
    // terminate, process_event_repository.rb record_terminate; docs/cf-platform.md §14);
    // Diego starts it again.
    platform.logs.write(a.name, 'API/0', 'OUT', `Terminating process: "web", index: "${index}"`);
    platform.events.terminated(a, index, { guid: USER.id, name: USER.name });
    await exclusive(() => platform.restartInstance({ appName: a.name, index, wait: false }));
    return [204, null];
  });

  // CC starts and answers at once; the CLI polls the stats until an instance runs.
  const start = async (a) => {
    if (!a.path) throw errors.unprocessable('Assign a droplet before starting this app.');
    await platform.start({ appName: a.name, wait: false });
  };
  router.add('POST', '/v3/apps/:guid/actions/start', async ({ params }) => {
    const a = appOr404(params.guid);
    await exclusive(() => start(a));
    return P.app(base, a);
  });
  router.add('POST', '/v3/apps/:guid/actions/stop', async ({ params }) => {
    const a = appOr404(params.guid);
    await exclusive(() => platform.stop({ appName: a.name }));
    return P.app(base, a);
  });
  router.add('POST', '/v3/apps/:guid/actions/restart', async ({ params }) => {
    const a = appOr404(params.guid);
    await exclusive(async () => {
      await platform.stop({ appName: a.name });
      await start(a);
    });
    return P.app(base, a);
  });

  router.add('GET', '/v3/apps/:guid/environment_variables', ({ params }) => {
    const out = environmentVariables(appOr404(params.guid));
    out.links = { self: { href: `${base}${out.links.self.href}` }, app: { href: `${base}${out.links.app.href}` } };
    return out;
  });
  router.add('PATCH', '/v3/apps/:guid/environment_variables', async ({ params, body }) => {
    const a = appOr404(params.guid);
    const vars = body && body.var;
    if (!vars || typeof vars !== 'object') throw errors.unprocessable('Var must be an object');
    await exclusive(() => {
      for (const [k, v] of Object.entries(vars)) {
        if (v === null) delete a.env[k];
        else a.env[k] = String(v);
      }
      platform.save();
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
