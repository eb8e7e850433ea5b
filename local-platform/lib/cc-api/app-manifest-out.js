// app-manifest-out.js — GET /v3/apps/:guid/manifest (`cf create-app-manifest`): the app as
// a manifest, in the order and with the keys of Cloud Controller's AppManifestPresenter
// (cloud_controller_ng app/presenters/v3/app_manifest_presenter.rb and
// app_manifest_presenters/*), as YAML (app_manifests_controller.rb: application/x-yaml). CC
// leaves out what was never set; locally a health check's interval, invocation timeout and
// start timeout are written only where they differ from the defaults, which the platform
// keeps filled in.
'use strict';

const YAML = require('yaml');
const P = require('./presenters');
const errors = require('./errors');

const DEFAULTS = { invocationTimeoutSec: 1, intervalSec: 30, startTimeoutSec: 60 };
const unlessDefault = (v, d) => (v === undefined || v === null || v === d ? undefined : v);
const compact = (o) => Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined && v !== null));

function processHash(a) {
  const hc = a.healthCheck;
  const rc = a.readinessCheck || { type: 'process' };
  return compact({
    type: 'web', instances: a.instances, memory: `${a.memoryMb}M`, disk_quota: `${a.diskMb}M`, 'log-rate-limit-per-second': -1,
    command: a.command,
    'health-check-type': hc.type,
    'health-check-http-endpoint': hc.type === 'http' ? hc.endpoint : undefined,
    'health-check-invocation-timeout': unlessDefault(hc.invocationTimeoutSec, DEFAULTS.invocationTimeoutSec),
    'health-check-interval': unlessDefault(hc.intervalSec, DEFAULTS.intervalSec),
    'readiness-health-check-type': rc.type,
    'readiness-health-check-http-endpoint': rc.type === 'http' ? rc.endpoint : undefined,
    'readiness-health-check-invocation-timeout': rc.type === 'process' ? undefined : unlessDefault(rc.invocationTimeoutSec, DEFAULTS.invocationTimeoutSec),
    'readiness-health-check-interval': rc.type === 'process' ? undefined : unlessDefault(rc.intervalSec, DEFAULTS.intervalSec),
    timeout: unlessDefault(hc.startTimeoutSec, DEFAULTS.startTimeoutSec),
  });
}

function manifestOf(a) {
  const routes = [...a.routes].sort((x, y) => x.toLowerCase().localeCompare(y.toLowerCase())).map((r) => {
    const opts = a.routeOptions?.[r];
    return compact({ route: r, protocol: 'http1', options: opts && Object.keys(opts).length ? { ...opts } : undefined });
  });
  const app = compact({
    name: a.name,
    env: Object.keys(a.env || {}).length ? { ...a.env } : undefined,
    lifecycle: 'buildpack',
    buildpacks: a.buildpack ? [a.buildpack] : undefined,
    stack: P.STACK.name,
    // AppFeatures: no SSH proxy, no revisions, no k8s-style or file-based bindings here.
    features: { ssh: false, revisions: false, 'service-binding-k8s': false, 'file-based-vcap-services': false },
    services: a.services.length ? [...a.services].sort((x, y) => x.toLowerCase().localeCompare(y.toLowerCase())) : undefined,
    routes: routes.length ? routes : undefined,
    processes: [processHash(a)],
  });
  return `---\n${YAML.stringify({ applications: [app] })}`;
}

function register(router, { platform }) {
  router.add('GET', '/v3/apps/:guid/manifest', ({ params }) => {
    const a = platform.appByGuid(params.guid);
    if (!a) throw errors.resourceNotFound('App');
    return [200, new P.RawBody(manifestOf(a), 'application/x-yaml')];
  });
}

module.exports = { register, manifestOf };
