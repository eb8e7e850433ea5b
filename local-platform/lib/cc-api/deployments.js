// deployments.js (cc-api) — /v3/deployments as Cloud Controller serves it
// (cloud_controller_ng app/controllers/v3/deployments_controller.rb,
// app/messages/deployment_create_message.rb, app/presenters/v3/deployment_presenter.rb):
// `cf push --strategy rolling`, `cf restart --strategy rolling`, `cf cancel-deployment`.
// The deployment itself, and the updater that rolls it: ../deployments.js.
'use strict';

const P = require('./presenters');
const errors = require('./errors');
const V = require('./validate');
const { scaleProblems } = require('./processes');
const { QuotaError, StateError } = require('../deployments');

const CREATE_KEYS = ['relationships', 'droplet', 'revision', 'strategy', 'options', 'metadata'];
const OPTION_KEYS = ['canary', 'max_in_flight', 'web_instances', 'memory_in_mb', 'disk_in_mb', 'log_rate_limit_in_bytes_per_second'];

// DeploymentCreateMessage's validations, as full messages.
function createProblems(b) {
  const problems = [...V.unknownKeys(b, CREATE_KEYS)];
  if (b.strategy !== undefined && b.strategy !== null && !['rolling', 'canary'].includes(b.strategy)) {
    problems.push(`Strategy '${b.strategy}' is not a supported deployment strategy`);
  }
  if (b.revision && b.droplet) problems.push("Droplet Cannot set both fields 'droplet' and 'revision'");
  const o = b.options;
  if (o === undefined || o === null) return problems;
  if (!V.isObject(o)) return [...problems, 'Options must be an object'];
  const extra = Object.keys(o).filter((k) => !OPTION_KEYS.includes(k));
  if (extra.length) problems.push(`Options has unsupported key(s): ${extra.join(', ')}`);
  const scale = { instances: o.web_instances, memory_in_mb: o.memory_in_mb, disk_in_mb: o.disk_in_mb, log_rate_limit_in_bytes_per_second: o.log_rate_limit_in_bytes_per_second };
  problems.push(...scaleProblems(scale).map((m) => m.replace(/^Instances/, 'Web instances')));
  if (o.max_in_flight !== undefined && o.max_in_flight !== null && !(Number.isInteger(o.max_in_flight) && o.max_in_flight >= 1)) {
    problems.push('Max in flight must be an integer greater than 0');
  }
  if (o.canary !== undefined && b.strategy !== 'canary') problems.push('Options canary are only valid for Canary deployments');
  return problems;
}

// A deployment in CC's v3 shape (app/presenters/v3/deployment_presenter.rb).
function deploymentOf(base, d) {
  return {
    guid: d.guid, created_at: P.ts(d.createdAt), updated_at: P.ts(d.updatedAt),
    status: {
      value: d.statusValue, reason: d.statusReason,
      details: { last_successful_healthcheck: P.ts(d.lastHealthyAt), last_status_change: P.ts(d.statusUpdatedAt), ...(d.error ? { error: d.error } : {}) },
    },
    strategy: d.strategy,
    options: {
      max_in_flight: d.maxInFlight,
      ...(d.webInstances !== null ? { web_instances: d.webInstances } : {}),
      ...(d.memoryMb !== null ? { memory_in_mb: d.memoryMb } : {}),
      ...(d.diskMb !== null ? { disk_in_mb: d.diskMb } : {}),
    },
    droplet: { guid: d.dropletGuid }, previous_droplet: { guid: d.previousDropletGuid },
    new_processes: d.processGuid ? [{ guid: d.processGuid, type: 'web' }] : [],
    revision: null,
    relationships: { app: { data: { guid: d.appGuid } } },
    metadata: { labels: {}, annotations: {} },
    links: {
      self: { href: `${base}/v3/deployments/${d.guid}` },
      app: { href: `${base}/v3/apps/${d.appGuid}` },
      ...(['DEPLOYING', 'CANCELING'].includes(d.state) ? { cancel: { href: `${base}/v3/deployments/${d.guid}/actions/cancel`, method: 'POST' } } : {}),
    },
  };
}

function register(router, { platform, base }) {
  const deps = () => platform.deployments;
  const deploymentOr404 = (guid) => {
    const d = deps().records[guid];
    if (!d) throw errors.resourceNotFound('Deployment');
    return d;
  };

  router.add('POST', '/v3/deployments', ({ body }) => {
    const b = V.isObject(body) ? body : {};
    const problems = createProblems(b);
    if (problems.length) throw errors.unprocessable(problems.join(', '));
    const app = platform.appByGuid(b.relationships?.app?.data?.guid);
    if (!app) throw errors.unprocessable('Unable to use app. Ensure that the app exists and you have access to it.');
    if (b.revision) throw errors.unprocessable('Cannot create deployment from a revision for an app without revisions enabled');
    if (b.strategy === 'canary') throw errors.unprocessable("Strategy 'canary' is not run by the local platform (rolling is)");
    return platform.exclusive(async () => {
      const droplet = dropletFor(platform, app, b.droplet?.guid);
      const o = b.options || {};
      let dep;
      try {
        dep = await deps().create(app, {
          droplet, maxInFlight: o.max_in_flight ?? 1, webInstances: o.web_instances ?? undefined,
          memoryMb: o.memory_in_mb ?? undefined, diskMb: o.disk_in_mb ?? undefined,
        });
      } catch (e) {
        if (e instanceof QuotaError) {
          throw errors.unprocessable(`${e.message} for organization ${P.ORG.name}. This organization's quota may not be large enough to support rolling deployments or your configured max-in-flight.`);
        }
        throw e;
      }
      platform.logs.write(app.name, 'API/0', 'OUT', `Creating deployment for app with guid ${app.guid}`);
      platform.events.app('audit.app.deployment.create', app, {
        data: { deployment_guid: dep.guid, droplet_guid: dep.dropletGuid, type: null, revision_guid: null, request: b, strategy: dep.strategy },
      });
      return [201, deploymentOf(base, dep)];
    });
  });

  router.add('GET', '/v3/deployments', ({ query }) => {
    const filter = (k) => (query.get(k) === null ? null : query.get(k).split(','));
    const [apps, states, values, reasons] = ['app_guids', 'states', 'status_values', 'status_reasons'].map(filter);
    const list = Object.values(deps().records).filter((d) => (!apps || apps.includes(d.appGuid)) && (!states || states.includes(d.state))
      && (!values || values.includes(d.statusValue)) && (!reasons || reasons.includes(d.statusReason)));
    return P.list(base, '/v3/deployments', list.map((d) => deploymentOf(base, d)));
  });
  router.add('GET', '/v3/deployments/:guid', ({ params }) => deploymentOf(base, deploymentOr404(params.guid)));

  router.add('POST', '/v3/deployments/:guid/actions/cancel', ({ params }) => platform.exclusive(() => {
    const d = deploymentOr404(params.guid);
    try { deps().cancel(d); } catch (e) {
      if (e instanceof StateError) throw errors.unprocessable(e.message);
      throw e;
    }
    const app = platform.appByGuid(d.appGuid);
    platform.logs.write(app.name, 'API/0', 'OUT', `Cancelling deployment for app with guid ${app.guid}`);
    platform.events.app('audit.app.deployment.cancel', app, { data: { deployment_guid: d.guid, droplet_guid: d.dropletGuid } });
    return [200, null];
  }));
  // Only a paused canary deployment continues (deployment_continue.rb).
  router.add('POST', '/v3/deployments/:guid/actions/continue', ({ params }) => {
    const d = deploymentOr404(params.guid);
    throw errors.unprocessable(`Cannot continue a deployment with status: ${d.statusValue} and reason: ${d.statusReason}`);
  });
}

// DeploymentTargetState's droplet: the one named (it must be the app's: AppAssignDroplet), else
// the app's current one.
function dropletFor(platform, app, guid) {
  if (guid) {
    const d = platform.bits && platform.bits.droplet(guid, Object.values(platform.state.apps));
    if (!d || d.appGuid !== app.guid) throw errors.unprocessable('Unable to assign current droplet. Ensure the droplet exists and belongs to this app.');
    return d;
  }
  if (!app.dropletGuid || !app.path) throw errors.unprocessable('Invalid droplet. Please specify a droplet in the request or set a current droplet for the app.');
  return { guid: app.dropletGuid, path: app.path, buildpack: app.buildpack, command: app.command };
}

module.exports = { register, createProblems };
