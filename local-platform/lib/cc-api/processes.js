// processes.js — the web process of each app (cloud_controller_ng processes_controller.rb):
// list/get, stats (instance-usage.js, docs/cf-platform.md §2), scale, update (health checks,
// command, the local CPU annotation), instance restart. Every change is validated whole,
// quota included, before it is saved (§17); Diego's part (starting and stopping instances)
// runs after the answer, as CC answers a scale at once (platform.converge).
'use strict';

const P = require('./presenters');
const errors = require('./errors');
const V = require('./validate');
const { v3Stats } = require('../instance-usage');

const SCALE_KEYS = ['instances', 'memory_in_mb', 'disk_in_mb', 'log_rate_limit_in_bytes_per_second'];
const UPDATE_KEYS = ['command', 'user', 'health_check', 'readiness_health_check', 'metadata'];

// CC's ProcessScaleMessage (app/messages/process_scale_message.rb).
function scaleProblems(body) {
  return [
    ...V.unknownKeys(body, SCALE_KEYS),
    ...V.integer('Instances', body.instances, { gte: 0 }),
    ...V.integer('Memory in mb', body.memory_in_mb, { gt: 0 }),
    ...V.integer('Disk in mb', body.disk_in_mb, { gt: 0 }),
    ...V.integer('Log rate limit in bytes per second', body.log_rate_limit_in_bytes_per_second, { gte: -1, lte: 2 ** 63 - 1 }),
  ];
}

// CC's ProcessUpdateMessage (app/messages/process_update_message.rb) plus what the local
// platform keeps: one annotation, its CPU quota (docs/cf-platform.md §7, §14).
function updateProblems(body) {
  const problems = [...V.unknownKeys(body, UPDATE_KEYS)];
  if ('command' in body && body.command !== null && (typeof body.command !== 'string' || !body.command.length || body.command.length > 4096)) {
    problems.push('Command must be between 1 and 4096 characters');
  }
  if ('user' in body && body.user !== null) {
    if (typeof body.user !== 'string' || !body.user.length || [...body.user].length > 255) problems.push('User must be between 1 and 255 characters');
    else if (body.user !== 'vcap') problems.push("User 'vcap' is the only user the local platform runs");
  }
  problems.push(...V.healthCheck('Health check', body.health_check));
  problems.push(...V.healthCheck('Readiness health check', body.readiness_health_check, { timeout: false }));
  if (body.metadata !== undefined) {
    const m = body.metadata;
    const shape = V.metadata(m);
    if (shape.length) problems.push(...shape);
    else {
      const ann = m.annotations || {};
      const unknown = Object.keys(ann).filter((k) => k !== P.CPU_ANNOTATION);
      if (unknown.length) problems.push(`Metadata annotations: only '${P.CPU_ANNOTATION}' is kept locally, got '${unknown.join("', '")}'`);
      const v = ann[P.CPU_ANNOTATION];
      if (v !== undefined && v !== null && v !== 'none' && !(typeof v === 'string' && Number.isFinite(Number(v)) && Number(v) >= 0.01)) {
        problems.push(`Metadata annotations: '${P.CPU_ANNOTATION}' must be a number of cores >= 0.01 or "none", got ${JSON.stringify(v)}`);
      }
    }
  }
  return problems;
}

// The app's health check after a PATCH's health_check (only the keys given change; a new
// type drops an http endpoint that no longer applies).
function updatedHealthCheck(hc, given) {
  if (!given) return hc;
  const d = given.data || {};
  const next = { ...hc };
  if (given.type) next.type = given.type;
  if (d.timeout !== undefined) next.startTimeoutSec = d.timeout === null ? 60 : Number(d.timeout);
  if (d.invocation_timeout !== undefined) next.invocationTimeoutSec = d.invocation_timeout === null ? 1 : Number(d.invocation_timeout);
  if (d.interval !== undefined) next.intervalSec = d.interval === null ? 30 : Number(d.interval);
  if (d.endpoint !== undefined) next.endpoint = d.endpoint === null ? '/' : d.endpoint;
  return next;
}

function register(router, { platform, base }) {
  const apps = () => Object.values(platform.state.apps);
  const deployments = () => platform.deployments;
  // During a rolling deployment an app has two web processes (../deployments.js); CC's
  // /v3/apps/:guid/processes/web is the newest (process_fetcher.rb fetch_for_app_by_type).
  // → { a: the app, p: the process { guid, key, instances, original } }
  const processOr404 = (guid, type) => {
    if (type === undefined) {
      const found = deployments().byGuid(guid);
      if (found) return { a: found.app, p: found.proc };
    }
    const a = platform.appByGuid(guid);
    if (!a || (type !== undefined && type !== 'web')) throw errors.resourceNotFound('Process');
    const list = deployments().processes(a);
    return { a, p: type === undefined ? list[0] : list[list.length - 1] };
  };
  const exclusive = (fn) => platform.exclusive(fn);
  // The process as its own record: instances, droplet and guid its own.
  const recordOf = ({ a, p }) => ({
    ...(deployments().record(p.key) || a), instances: p.instances, ...(p.original ? {} : { processGuid: p.guid, createdAt: p.createdAt }),
  });
  const stats = (x) => v3Stats(recordOf(x), platform.cell.list(x.p.key), platform.cpuCores(x.a));
  const proc = (x) => P.processOf(base, recordOf(x), x.a.command);
  const all = (a) => deployments().processes(a).map((p) => proc({ a, p }));
  const body = (ctx) => (V.isObject(ctx.body) ? ctx.body : {});
  const ctx = { platform, base, apps, deployments, processOr404, exclusive, stats, proc, all, body };
  registerReads(router, ctx);
  registerScale(router, ctx);
  registerUpdates(router, ctx);
}

// The processes and their stats, by app or by guid.
function registerReads(router, { platform, base, apps, processOr404, stats, proc, all }) {
  router.add('GET', '/v3/apps/:guid/processes', ({ params }) => {
    const a = platform.appByGuid(params.guid);
    if (!a) throw errors.resourceNotFound('App');
    return P.list(base, `/v3/apps/${a.guid}/processes`, all(a));
  });
  router.add('GET', '/v3/processes', ({ query }) => {
    const guids = query.get('app_guids');
    const list = apps().filter((a) => guids === null || guids.split(',').includes(a.guid));
    return P.list(base, '/v3/processes', list.flatMap(all));
  });
  router.add('GET', '/v3/apps/:guid/processes/:type', ({ params }) => proc(processOr404(params.guid, params.type)));
  router.add('GET', '/v3/processes/:guid', ({ params }) => proc(processOr404(params.guid)));
  router.add('GET', '/v3/apps/:guid/processes/:type/stats', ({ params }) => stats(processOr404(params.guid, params.type)));
  router.add('GET', '/v3/processes/:guid/sidecars', ({ params }) => P.list(base, `/v3/processes/${processOr404(params.guid).p.guid}/sidecars`, []));
  router.add('GET', '/v3/processes/:guid/stats', ({ params }) => stats(processOr404(params.guid)));
}

// `cf scale`: instances, memory, disk.
function registerScale(router, { platform, deployments, processOr404, exclusive, proc, body }) {
  // CC saves the new scale, records audit.app.process.scale and answers 202; Diego starts
  // or stops instances afterwards (processes_controller.rb scale, process_scale.rb).
  const scale = async (ctx) => {
    const { params } = ctx;
    const b = body(ctx);
    const { a, p } = processOr404(params.guid, params.type);
    const problems = scaleProblems(b);
    if (problems.length) throw errors.unprocessable(problems.join(', '));
    // process_scale.rb: no scale of a web process while the app deploys.
    if (deployments().deploying(a) || !p.original) throw errors.unprocessable('Cannot scale this process while a deployment is in flight.');
    const given = (k) => b[k] !== undefined && b[k] !== null;
    let count = false;
    await exclusive(() => {
      const next = {
        ...a,
        ...(given('instances') ? { instances: Number(b.instances) } : {}),
        ...(given('memory_in_mb') ? { memoryMb: Number(b.memory_in_mb) } : {}),
        ...(given('disk_in_mb') ? { diskMb: Number(b.disk_in_mb) } : {}),
      };
      const over = platform.quotaErrors(next);
      if (over.length) throw errors.unprocessable(over.join(', '));
      count = next.instances !== a.instances || platform.held.has(a.name);
      platform.held.delete(a.name); // a scale CC accepts is one the platform runs
      Object.assign(a, { instances: next.instances, memoryMb: next.memoryMb, diskMb: next.diskMb });
      platform.save();
      const request = Object.fromEntries(SCALE_KEYS.filter((k) => k in b).map((k) => [k, b[k]]));
      platform.logs.write(a.name, 'API/0', 'OUT', 'Scaling process: "web"');
      platform.events.app('audit.app.process.scale', a, { data: { process_guid: a.guid, process_type: 'web', request } });
    });
    if (count) platform.converge(a.name);
    // The process as it is now (its instance count the new one).
    return [202, proc(processOr404(params.guid, params.type))];
  };
  router.add('POST', '/v3/apps/:guid/processes/:type/actions/scale', scale);
  router.add('POST', '/v3/processes/:guid/actions/scale', scale);
}

// A process's command, health checks and CPU annotation; terminating one instance.
function registerUpdates(router, { platform, processOr404, exclusive, proc, body }) {
  // PATCH /v3/processes/:guid: command and health checks take effect at the next start (CC
  // and Diego: the desired LRP changes, the running instances keep theirs until restarted);
  // the CPU annotation applies at once (§7).
  router.add('PATCH', '/v3/processes/:guid', async (ctx) => {
    const b = body(ctx);
    const { a } = processOr404(ctx.params.guid);
    const problems = updateProblems(b);
    if (problems.length) throw errors.unprocessable(problems.join(', '));
    await exclusive(async () => {
      const ann = b.metadata?.annotations || {};
      if (P.CPU_ANNOTATION in ann) {
        const v = ann[P.CPU_ANNOTATION];
        await platform.scale({ appName: a.name, cpu: v === null || v === 'none' ? v : Number(v) });
      }
      if ('command' in b) a.command = b.command;
      a.healthCheck = updatedHealthCheck(a.healthCheck, b.health_check);
      if (b.readiness_health_check) a.readinessCheck = updatedHealthCheck(a.readinessCheck || { type: 'process', endpoint: '/', invocationTimeoutSec: 1, intervalSec: 30 }, b.readiness_health_check);
      const request = Object.fromEntries(Object.entries(b).filter(([k]) => k !== 'metadata').map(([k, v]) => [k, k === 'command' ? '[PRIVATE DATA HIDDEN]' : v]));
      if (Object.keys(request).length) {
        platform.logs.write(a.name, 'API/0', 'OUT', 'Updating process: "web"');
        platform.events.app('audit.app.process.update', a, { data: { process_guid: a.guid, process_type: 'web', request } });
      }
      platform.save();
    });
    return proc(processOr404(ctx.params.guid));
  });

  router.add('DELETE', '/v3/apps/:guid/processes/:type/instances/:index', async ({ params }) => {
    const { a } = processOr404(params.guid, params.type);
    const index = Number(params.index);
    const live = platform.cell.list(a.name).some((i) => i.index === index);
    if (!(Number.isInteger(index) && index >= 0 && index < a.instances && live)) throw errors.resourceNotFound('Instance');
    // CC records the event, stops the instance and answers (processes_controller.rb
    // terminate, process_event_repository.rb record_terminate; docs/cf-platform.md §14);
    // Diego starts it again.
    platform.logs.write(a.name, 'API/0', 'OUT', `Terminating process: "web", index: "${index}"`);
    platform.events.terminated(a, index);
    await exclusive(() => platform.restartInstance({ appName: a.name, index, wait: false }));
    return [204, null];
  });
}

module.exports = { register, scaleProblems, updateProblems };
