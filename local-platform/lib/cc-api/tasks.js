// tasks.js (cc-api) — /v3/apps/:guid/tasks and /v3/tasks as Cloud Controller serves them
// (cloud_controller_ng app/controllers/v3/tasks_controller.rb, app/messages/task_create_message.rb,
// app/presenters/v3/task_presenter.rb): `cf run-task`, `cf tasks`, `cf terminate-task`. The
// task itself runs in ../tasks.js.
'use strict';

const P = require('./presenters');
const errors = require('./errors');
const V = require('./validate');

const CREATE_KEYS = ['name', 'command', 'disk_in_mb', 'memory_in_mb', 'log_rate_limit_in_bytes_per_second', 'droplet_guid', 'template', 'user', 'metadata'];

// TaskCreateMessage's validations, as full messages.
function createProblems(b) {
  const problems = [
    ...V.unknownKeys(b, CREATE_KEYS),
    ...V.integer('Disk in mb', b.disk_in_mb, { gt: 0 }),
    ...V.integer('Memory in mb', b.memory_in_mb, { gt: 0 }),
  ];
  if (!b.command && !b.template) problems.push('Command No command or template provided');
  if (b.command !== undefined && typeof b.command !== 'string') problems.push('Command must be a string');
  if (b.name !== undefined && typeof b.name !== 'string') problems.push('Name must be a string');
  return problems;
}

function register(router, { platform, base }) {
  const presented = (t) => ({
    guid: t.guid, created_at: P.ts(t.createdAt), updated_at: P.ts(t.updatedAt), sequence_id: t.sequenceId, name: t.name,
    command: t.command, user: null, state: t.state, memory_in_mb: t.memoryMb, disk_in_mb: t.diskMb,
    log_rate_limit_in_bytes_per_second: -1, result: { failure_reason: t.failureReason }, droplet_guid: t.dropletGuid,
    relationships: { app: { data: { guid: t.appGuid } } },
    metadata: { labels: {}, annotations: {} },
    links: {
      self: { href: `${base}/v3/tasks/${t.guid}` }, app: { href: `${base}/v3/apps/${t.appGuid}` },
      cancel: { href: `${base}/v3/tasks/${t.guid}/actions/cancel`, method: 'POST' },
      droplet: { href: `${base}/v3/droplets/${t.dropletGuid}` },
    },
  });
  const appOr404 = (guid) => {
    const a = platform.appByGuid(guid);
    if (!a) throw errors.resourceNotFound('App');
    return a;
  };
  const taskOr404 = (guid) => {
    const t = platform.state.tasks[guid];
    if (!t) throw errors.resourceNotFound('Task');
    return t;
  };
  // TasksListMessage's filters the CLI sends (names, states, sequence_ids) besides CC's generic ones.
  const filtered = (list, query) => {
    const split = (k) => (query.get(k) === null ? null : query.get(k).split(','));
    const [states, seq] = [split('states'), split('sequence_ids')];
    return list.filter((t) => (!states || states.includes(t.state)) && (!seq || seq.includes(String(t.sequenceId))));
  };

  router.add('POST', '/v3/apps/:guid/tasks', ({ params, body }) => platform.exclusive(() => {
    const a = appOr404(params.guid);
    const b = V.isObject(body) ? body : {};
    const problems = createProblems(b);
    if (problems.length) throw errors.unprocessable(problems.join(', '));
    if (b.template) throw errors.unprocessable('Template processes other than the command are not run by the local platform: give a command');
    if (b.droplet_guid && b.droplet_guid !== a.dropletGuid) throw errors.unprocessable('Only the current droplet runs tasks on the local platform');
    if (!a.dropletGuid || !a.path) throw errors.unprocessable('Task must have a droplet. Specify droplet or assign current droplet to app.');
    const t = platform.tasks.create(a, { name: b.name, command: b.command, memoryMb: b.memory_in_mb, diskMb: b.disk_in_mb });
    platform.logs.write(a.name, 'API/0', 'OUT', `Creating task ${t.name} for app with guid ${a.guid}`);
    platform.events.app('audit.app.task.create', a, { data: { task_guid: t.guid, request: { name: t.name, command: '[PRIVATE DATA HIDDEN]', memory_in_mb: t.memoryMb } } });
    return [202, presented(t)];
  }));
  router.add('GET', '/v3/apps/:guid/tasks', ({ params, query }) => {
    const a = appOr404(params.guid);
    return P.list(base, `/v3/apps/${a.guid}/tasks`, filtered(platform.tasks.forApp(a.guid), query).map(presented));
  });
  router.add('GET', '/v3/tasks', ({ query }) => {
    const apps = query.get('app_guids') === null ? null : query.get('app_guids').split(',');
    const list = Object.values(platform.state.tasks).filter((t) => !apps || apps.includes(t.appGuid));
    return P.list(base, '/v3/tasks', filtered(list, query).map(presented));
  });
  router.add('GET', '/v3/tasks/:guid', ({ params }) => presented(taskOr404(params.guid)));
  // CC routes both to tasks#cancel (config/routes.rb); the cf CLI v8 sends the PUT
  // (api/cloudcontroller/ccv3/internal/api_routes.go PutTaskCancelRequest).
  const cancel = ({ params }) => platform.exclusive(() => {
    const t = taskOr404(params.guid);
    try { platform.tasks.cancel(t); } catch (e) { throw errors.unprocessable(e.message); }
    const a = platform.appByGuid(t.appGuid);
    if (a) platform.events.app('audit.app.task.cancel', a, { data: { task_guid: t.guid, request: { name: t.name } } });
    return [202, presented(t)];
  });
  router.add('POST', '/v3/tasks/:guid/actions/cancel', cancel);
  router.add('PUT', '/v3/tasks/:guid/cancel', cancel);
}

module.exports = { register, createProblems };
