// app-manifest.js — POST /v3/spaces/GUID/actions/apply_manifest (cloud_controller_ng
// app/actions/app_apply_manifest.rb, app/jobs/space_apply_manifest_action_job.rb): the
// manifest the CLI sends, vars already resolved, is read by manifest.js (with the app's
// current droplet, or an empty dir, standing in for `path`, which the CLI uploads as bits);
// each app is created if missing, takes the manifest's attributes and binds its services.
// A running app keeps running: only a new instance count takes effect at once (scale).
'use strict';

const fs = require('node:fs');
const path = require('node:path');
const crypto = require('node:crypto');
const YAML = require('yaml');
const { readManifest } = require('../manifest');
const errors = require('./errors');
const P = require('./presenters');
const { manifestProblems, manifestNames, withWebProcess, randomHost } = require('./manifest-message');
const V = require('./validate');

const DEFAULT_HEALTH_CHECK = { type: 'port', endpoint: '/', invocationTimeoutSec: 1, intervalSec: 30, startTimeoutSec: 60 };

// A new app as CC makes it (AppCreate / AppFindOrCreateSkeleton): STOPPED, no droplet, the
// process defaults (1 instance, 1G memory and disk, port health check).
function skeletonApp(name, { buildpack = null, env = {} } = {}) {
  const now = new Date().toISOString();
  return {
    name, path: null, buildpack, command: null, memoryMb: 1024, diskMb: 1024, instances: 1,
    env: { ...env }, services: [], routes: [], routeOptions: {}, healthCheck: { ...DEFAULT_HEALTH_CHECK },
    guid: crypto.randomUUID(), state: 'STOPPED', createdAt: now, updatedAt: now, dropletGuid: null,
  };
}

// CC's app_apply_manifest.rb: without `routes`, an app keeps its routes; `default-route`
// (which the CLI adds) gives an app with none APP.DEFAULT_DOMAIN.
// `random-route` gives an app with none APP-ADJECTIVE-NOUN-xy.DEFAULT_DOMAIN.
function withRoutes(entry, old) {
  if (entry.routes !== undefined || entry['no-route'] === true) return entry;
  if (old && old.routes.length) return { ...entry, routes: old.routes.map((r) => ({ route: r, ...(old.routeOptions?.[r] ? { options: old.routeOptions[r] } : {}) })) };
  if (entry['random-route'] === true) return { ...entry, routes: [{ route: `${randomHost(entry.name)}.${P.DOMAIN.name}` }] };
  if (entry['default-route'] === true) return { ...entry, routes: [{ route: `${entry.name}.${P.DOMAIN.name}` }] };
  return entry;
}

// The process attributes an app keeps when the manifest does not name them (CC updates
// only what the manifest holds).
const KEPT = [['instances', 'instances'], ['memory', 'memoryMb'], ['disk_quota', 'diskMb']];

// The manifest body as CC reads it (application_controller.rb parsed_yaml,
// space_manifests_controller.rb; docs/cf-platform.md §23): YAML of at most 1 MB, no aliases,
// a mapping, version 1, a non-empty `applications`; then every entry's problems in one
// compound 422, then the names AppCreate would refuse. The entries, names stripped as CC
// saves them.
const MANIFEST_MAX_BYTES = 1024 * 1024;
const YAML_TYPES = ['application/x-yaml', 'text/yaml', 'application/yaml'];
const utf8 = new TextDecoder('utf-8', { fatal: true });
function parse(raw, contentType = 'application/x-yaml') {
  if (!YAML_TYPES.includes(String(contentType || '').split(';')[0].trim().toLowerCase())) throw errors.badRequest('Content-Type must be yaml');
  const bytes = Buffer.isBuffer(raw) ? raw : Buffer.from(String(raw));
  if (bytes.length > MANIFEST_MAX_BYTES) throw errors.badRequest('Manifest size is too large. The maximum supported size is 1MB.');
  let doc;
  try {
    const parsed = YAML.parseDocument(utf8.decode(bytes), { uniqueKeys: false });
    if (parsed.errors.length) throw parsed.errors[0];
    let aliases = false;
    YAML.visit(parsed, { Alias() { aliases = true; return YAML.visit.BREAK; } });
    if (aliases) throw errors.badRequest('Manifest does not support Anchors and Aliases');
    doc = parsed.toJS();
  } catch (e) {
    if (e instanceof errors.CcError) throw e;
    throw errors.messageParseError(e.message.split('\n')[0]);
  }
  if (!V.isObject(doc)) throw errors.messageParseError('invalid request body');
  if (doc.version !== undefined && doc.version !== null && doc.version !== 1) {
    throw errors.unprocessable('Unsupported manifest schema version. Currently supported versions: [1].');
  }
  const apps = doc.applications;
  if (!Array.isArray(apps) || !apps.length) throw errors.unprocessable("Cannot parse manifest with no 'applications' field.");
  if (apps.some((a) => !V.isObject(a))) throw errors.messageParseError('invalid request body');
  for (const a of apps) if (a.name === undefined || a.name === null || a.name === '') throw errors.unprocessable('Name must not be empty');
  const problems = manifestProblems(apps);
  if (problems.length) throw new errors.CompoundError(problems.map((m) => errors.unprocessable(m)));
  const { problems: refused, names } = manifestNames(apps);
  if (refused.length) throw errors.unprocessable(refused[0]);
  return apps.map((a, i) => ({ ...a, name: names[i] }));
}

// The normalised spec of one manifest entry (manifest.js), with `dir` as its path.
function specOf(entry, dir, scratchDir) {
  fs.mkdirSync(scratchDir, { recursive: true });
  const file = path.join(scratchDir, `${process.pid}-${Date.now()}-${Math.random().toString(36).slice(2)}.yml`);
  const { path: _ignored, ...rest } = entry;
  // No buildpack and no command: detection waits for the bits (bits.js); `binary_buildpack`
  // keeps manifest.js from detecting on the stand-in dir.
  const standIn = rest.buildpacks || rest.buildpack || rest.command ? rest : { ...rest, buildpacks: ['binary_buildpack'] };
  fs.writeFileSync(file, YAML.stringify({ applications: [{ ...standIn, path: dir }] }));
  try { return readManifest(file)[0]; } catch (e) {
    throw errors.unprocessable(`For application '${entry.name}': ${e.message}`);
  } finally { fs.rmSync(file, { force: true }); }
}

// The apps a manifest names, created when missing before the job runs (as CC's
// space_manifests_controller.rb does): a failed job leaves them, STOPPED.
function createSkeletons(platform, raw, contentType) {
  const entries = parse(raw, contentType).map(withWebProcess);
  const created = entries.filter((e) => !platform.state.apps[e.name]).map((e) => skeletonApp(e.name));
  for (const app of created) platform.state.apps[app.name] = app;
  try {
    platform.save();
  } catch (e) {
    for (const app of created) delete platform.state.apps[app.name];
    throw e;
  }
  for (const app of created) {
    platform.logs.write(app.name, 'API/0', 'OUT', `Created app with guid ${app.guid}`);
    platform.events.app('audit.app.create', app, { data: { request: { name: app.name } } });
  }
  // space_manifests_controller.rb record_apply_manifest_audit_event, at the request.
  for (const e of entries) {
    platform.events.app('audit.app.apply_manifest', platform.state.apps[e.name], { data: { request: { manifest: YAML.stringify({ applications: [{ ...e, ...(e.env ? { env: '[PRIVATE DATA HIDDEN]' } : {}) }] }) } } });
  }
  return entries;
}

// Apply every entry; the job's errors are CC's (prefixed with the app's name).
async function applyManifest(platform, raw, { scratchDir }) {
  const entries = parse(raw).map(withWebProcess);
  for (const given of entries) {
    const old = platform.state.apps[given.name];
    const entry = withRoutes(given, old);
    for (const s of entry.services || []) {
      const name = typeof s === 'string' ? s : s && s.name;
      if (!platform.state.services[name]) {
        throw new errors.CcError(404, 10010, 'CF-ResourceNotFound', `For application '${entry.name}': Service instance '${name}' not found`);
      }
    }
    const emptyDir = path.join(scratchDir, 'empty');
    fs.mkdirSync(emptyDir, { recursive: true });
    const spec = specOf(entry, old && old.path && fs.existsSync(old.path) ? old.path : emptyDir, scratchDir);
    const app = platform.appFromSpec(spec, { state: old ? old.state : 'STOPPED' });
    for (const [key, field] of KEPT) if (old && entry[key] === undefined) app[field] = old[field];
    app.manifestEntry = entry;
    // What the droplet decided stays until the next droplet.
    app.path = old ? old.path : null;
    app.buildpack = entry.buildpacks || entry.buildpack || entry.command ? spec.buildpack : (old ? old.buildpack : null);
    app.dropletGuid = old ? old.dropletGuid : null;
    // CC's ProcessScale of the manifest: the quota first, then saved; Diego converges after.
    const over = platform.quotaErrors(app);
    if (over.length) throw errors.unprocessable(`For application '${app.name}': ${over.join(', ')}`);
    const scaled = Object.fromEntries([['instances', 'instances'], ['memory', 'memory_in_mb'], ['disk_quota', 'disk_in_mb']]
      .filter(([k]) => entry[k] !== undefined).map(([k, field]) => [field, app[KEPT.find(([m]) => m === k)[1]]]));
    // process_scale.rb: the manifest's scale is refused while the app deploys.
    if (old && Object.keys(scaled).length && platform.deployments.deploying(old)) {
      throw errors.unprocessable(`For application '${app.name}': Cannot scale this process while a deployment is in flight.`);
    }
    const moved = old && old.state === 'STARTED' && app.instances !== old.instances;
    platform.state.apps[app.name] = app;
    platform.save();
    if (Object.keys(scaled).length) {
      platform.events.app('audit.app.process.scale', app, { data: { process_guid: app.guid, process_type: 'web', request: scaled, manifest_triggered: true } });
    }
    platform.events.app('audit.app.update', app, { data: { request: { name: app.name }, manifest_triggered: true } });
    await platform.routes.sync();
    if (moved) platform.converge(app.name);
  }
}

module.exports = { applyManifest, parse, createSkeletons, skeletonApp };
