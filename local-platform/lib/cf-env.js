// cf-env.js — the environment of one app instance, shaped like a Diego container's
// (docs/cf-platform.md §4): PORT, CF_INSTANCE_*, MEMORY_LIMIT, VCAP_APPLICATION,
// VCAP_SERVICES, DATABASE_URL, TMPDIR/TMP/TEMP (the instance's own temp dir, as a container
// has its own /tmp), plus the app's own env (which cannot override the CF variables, but
// may set TMPDIR).
'use strict';

const { ORG, SPACE } = require('./cc-api/presenters');
const { loadConfig } = require('./config');

const FDS_QUOTA = 16384;
// What a container gets from the host besides the CF variables.
// Not TMPDIR: each instance has its own (instance.tmpDir).
const PASSED_THROUGH = ['PATH', 'HOME', 'LANG', 'TZ', 'JAVA_HOME'];

// VCAP_SERVICES: keyed by label, each binding as a CF broker would present it.
function vcapServices(app, services) {
  const out = {};
  for (const name of app.services) {
    const svc = services[name];
    if (!svc) continue;
    (out[svc.label] = out[svc.label] || []).push({
      label: svc.label,
      provider: null,
      plan: svc.plan,
      name: svc.name,
      instance_guid: svc.guid,
      instance_name: svc.name,
      binding_guid: svc.bindings?.[app.name] || null,
      binding_name: null,
      credentials: svc.credentials,
      syslog_drain_url: null,
      volume_mounts: [],
      tags: svc.tags,
    });
  }
  return out;
}

function vcapApplication(app, instance) {
  return {
    application_id: app.guid,
    application_name: app.name,
    application_uris: app.routes,
    application_version: app.version,
    // The platform's Cloud Controller (cc-api/), as CF gives its API URL.
    cf_api: `http://127.0.0.1:${loadConfig().apiPort}`,
    host: '0.0.0.0',
    instance_id: instance.guid,
    instance_index: instance.index,
    limits: { disk: app.diskMb, fds: FDS_QUOTA, mem: app.memoryMb },
    name: app.name,
    organization_id: ORG.guid,
    organization_name: ORG.name,
    port: instance.port,
    process_id: app.processGuid || app.guid,
    process_type: 'web',
    space_id: SPACE.guid,
    space_name: SPACE.name,
    uris: app.routes,
    users: null,
    version: app.version,
  };
}

// The full environment of one instance. `hostEnv` supplies PATH and friends;
// `instance.tmpDir`, when set, becomes TMPDIR, TMP and TEMP (the app's env still wins).
function instanceEnv(app, instance, services, hostEnv = process.env) {
  const env = {};
  for (const k of PASSED_THROUGH) if (hostEnv[k] !== undefined) env[k] = hostEnv[k];
  if (instance.tmpDir) for (const k of ['TMPDIR', 'TMP', 'TEMP']) env[k] = instance.tmpDir;
  Object.assign(env, app.env);
  const vs = vcapServices(app, services);
  const firstUri = Object.values(vs).flat().map((b) => b.credentials && b.credentials.uri).find(Boolean);
  Object.assign(env, {
    PORT: String(instance.port),
    INSTANCE_INDEX: String(instance.index),
    INSTANCE_GUID: instance.guid,
    CF_INSTANCE_INDEX: String(instance.index),
    CF_INSTANCE_GUID: instance.guid,
    CF_INSTANCE_IP: '127.0.0.1',
    CF_INSTANCE_INTERNAL_IP: '127.0.0.1',
    CF_INSTANCE_PORT: String(instance.port),
    CF_INSTANCE_ADDR: `127.0.0.1:${instance.port}`,
    CF_INSTANCE_PORTS: JSON.stringify([{ external: instance.port, internal: instance.port }]),
    // Diego writes the limit with a lower-case unit, e.g. "512m".
    MEMORY_LIMIT: `${app.memoryMb}m`,
    VCAP_APPLICATION: JSON.stringify(vcapApplication(app, instance)),
    VCAP_SERVICES: JSON.stringify(vs),
    VCAP_APP_HOST: '0.0.0.0',
    VCAP_APP_PORT: String(instance.port),
  });
  if (firstUri) env.DATABASE_URL = firstUri;
  return env;
}

module.exports = { instanceEnv, vcapServices, vcapApplication, FDS_QUOTA };
