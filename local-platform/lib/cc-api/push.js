// push.js — what `cf push` calls after the lookups (cli actor/v7pushaction): create the
// app, apply the manifest (a job), create a bits package, match resources (nothing is
// cached: every file is uploaded), upload the zip, build (staging), assign the current
// droplet; shapes from cloud_controller_ng app/presenters/v3/{package,build,droplet}_presenter.rb.
'use strict';

const path = require('node:path');
const P = require('./presenters');
const errors = require('./errors');
const { Bits } = require('./bits');
const { applyManifest, parse: parseManifest, createSkeletons, skeletonApp } = require('./app-manifest');
const { parseMultipart } = require('./multipart');
const { manifestDiff } = require('./manifest-diff');
const { packageOf, buildOf, dropletOf } = require('./bits-presenters');
const M = require('./messages');
const V = require('./validate');

function register(router, { platform, base, jobs }) {
  const bits = new Bits(platform.cfg.home);
  platform.bits = bits; // a deleted app's packages and droplets go with it (apps.js)
  // What CC writes to the app's log and its audit events as the user (docs/cf-platform.md §18).
  const record = (a, line, type, data) => {
    platform.logs.write(a.name, 'API/0', 'OUT', line);
    platform.events.app(type, a, { data });
  };
  const scratchDir = path.join(platform.cfg.home, 'bits', 'manifests');
  const apps = () => Object.values(platform.state.apps);
  const appOr404 = (guid) => {
    const a = platform.appByGuid(guid);
    if (!a) throw errors.resourceNotFound('App');
    return a;
  };
  const dropletOr404 = (guid) => {
    const d = guid && bits.droplet(guid, apps());
    if (!d) throw errors.resourceNotFound('Droplet');
    return d;
  };
  const ctx = { platform, base, jobs, bits, record, scratchDir, apps, appOr404, dropletOr404 };
  registerApps(router, ctx);
  registerPackages(router, ctx);
  registerBuilds(router, ctx);
  registerDroplets(router, ctx);
}

// POST /v3/apps, the manifest's apply and diff, resource matches.
function registerApps(router, { platform, base, jobs, record, scratchDir }) {
  // apps_controller.rb create: the message, the space, the lifecycle's feature flag, then
  // AppModel's checks (the name stripped, printable; its environment's names); the app is
  // made only once all of them pass, and taken back if saving it fails (§23).
  router.add('POST', '/v3/apps', ({ body }) => platform.exclusive(async () => {
    errors.refuseIf(M.appCreate(body));
    if (body.relationships.space.data?.guid !== P.SPACE.guid) throw errors.unprocessable('Invalid space. Ensure that the space exists and you have access to it.');
    const type = body.lifecycle?.type;
    if (type === 'docker' || type === 'cnb') throw errors.featureDisabled(type === 'docker' ? 'diego_docker' : 'diego_cnb');
    const { model, name } = V.appName(body.name);
    const env = body.environment_variables || {};
    const keys = V.environmentVariables('environment_variables', Object.fromEntries(Object.keys(env).map((k) => [k, null])));
    errors.refuseIf([...model, ...keys]);
    if (platform.state.apps[name]) throw errors.uniqueness(`App with the name '${name}' already exists.`);
    const app = skeletonApp(name, { buildpack: body.lifecycle?.data?.buildpacks?.[0] || null, env });
    platform.state.apps[app.name] = app;
    try {
      platform.save();
    } catch (e) {
      delete platform.state.apps[app.name];
      throw e;
    }
    const request = { ...body, ...(body.environment_variables ? { environment_variables: '[PRIVATE DATA HIDDEN]' } : {}) };
    record(app, `Created app with guid ${app.guid}`, 'audit.app.create', { request });
    return [201, P.app(base, app)];
  }));

  router.add('POST', '/v3/spaces/:guid/actions/apply_manifest', ({ params, raw, req }) => {
    if (params.guid !== P.SPACE.guid) throw errors.resourceNotFound('Space');
    return platform.exclusive(() => createSkeletons(platform, raw, req.headers['content-type'])).then(() => jobs.start(
      'space.apply_manifest', () => platform.exclusive(() => applyManifest(platform, raw, { scratchDir })),
    ));
  });

  // CC answers the changes the manifest would make (manifest-diff.js); the CLI prints them.
  router.add('POST', '/v3/spaces/:guid/manifest_diff', ({ params, raw, req }) => {
    if (params.guid !== P.SPACE.guid) throw errors.resourceNotFound('Space');
    return [201, manifestDiff(parseManifest(raw, req.headers['content-type']), platform.state.apps, P.STACK.name)];
  });

  router.add('POST', '/v3/resource_matches', ({ body }) => {
    errors.refuseIf(M.resourceMatches(body));
    return [201, { resources: [] }];
  });
}

// Packages: create, list, upload the bits.
function registerPackages(router, { platform, base, bits, record, appOr404 }) {
  // packages_controller.rb create_fresh: the message, the app ("App is invalid…"), then a
  // bits package for a buildpack app.
  router.add('POST', '/v3/packages', ({ body }) => {
    errors.refuseIf(M.packageCreate(body));
    const app = platform.appByGuid(body.relationships.app.data?.guid);
    if (!app) throw errors.unprocessable('App is invalid. Ensure it exists and you have access to it.');
    if (body.type !== 'bits') throw errors.unprocessable('Cannot create Docker package for a buildpack app.');
    const pkg = bits.createPackage(app.guid);
    record(app, `Adding app package for app with guid ${app.guid}`, 'audit.app.package.create', { package_guid: pkg.guid, request: { type: 'bits' } });
    return [201, packageOf(base, pkg)];
  });
  router.add('GET', '/v3/packages/:guid', ({ params }) => {
    const pkg = bits.packages.get(params.guid);
    if (!pkg) throw errors.resourceNotFound('Package');
    return packageOf(base, pkg);
  });
  // Newest first (the CLI's start asks whether a package is newer than the droplet).
  router.add('GET', '/v3/packages', ({ query }) => {
    const guids = query.get('app_guids') === null ? null : query.get('app_guids').split(',');
    const states = query.get('states') === null ? null : query.get('states').split(',');
    const list = [...bits.packages.values()].filter((p) => (!guids || guids.includes(p.appGuid)) && (!states || states.includes(p.state)))
      .sort((a, b) => (a.createdAt < b.createdAt ? 1 : -1));
    return P.list(base, '/v3/packages', list.map((p) => packageOf(base, p)));
  });
  router.add('GET', '/v3/apps/:guid/packages', ({ params }) => {
    const a = appOr404(params.guid);
    return P.list(base, `/v3/apps/${a.guid}/packages`, [...bits.packages.values()].filter((p) => p.appGuid === a.guid).map((p) => packageOf(base, p)));
  });
  router.add('POST', '/v3/packages/:guid/upload', async ({ params, req, raw }) => {
    const pkg = bits.packages.get(params.guid);
    if (!pkg) throw errors.resourceNotFound('Package');
    // packages_controller.rb upload: PackageUploadMessage, then the package's state.
    const parts = Buffer.isBuffer(raw) ? parseMultipart(req.headers['content-type'], raw) : {};
    if (!parts.bits && !parts.resources) throw errors.unprocessable('Upload must include either resources or bits');
    if (parts.resources) {
      try { JSON.parse(parts.resources.toString('utf8')); } catch { throw errors.unprocessable('Resources must be valid JSON.'); }
    }
    if (pkg.state !== 'AWAITING_UPLOAD') throw new errors.CcError(400, 150004, 'CF-PackageBitsAlreadyUploaded', 'Bits may be uploaded only once. Create a new package to upload different bits.');
    await bits.upload(pkg, parts.bits);
    const app = platform.appByGuid(pkg.appGuid);
    if (app) record(app, `Uploading bits for app with guid ${app.guid}`, 'audit.app.upload-bits', { package_guid: pkg.guid });
    return packageOf(base, pkg);
  });
}

// Builds: staging a package into a droplet.
function registerBuilds(router, { platform, base, bits, record, appOr404 }) {
  router.add('POST', '/v3/builds', ({ body }) => {
    errors.refuseIf(M.buildCreate(body));
    if (body.lifecycle?.type === 'docker' || body.lifecycle?.type === 'cnb') throw errors.featureDisabled(body.lifecycle.type === 'docker' ? 'diego_docker' : 'diego_cnb');
    const pkg = bits.packages.get(body.package.guid);
    if (!pkg) throw errors.unprocessable('Unable to use package. Ensure that the package exists and you have access to it.');
    if (pkg.state !== 'READY') throw errors.unprocessable('Package must be in the READY state');
    const app = appOr404(pkg.appGuid);
    const build = bits.createBuild(pkg);
    record(app, `Creating build for app with guid ${app.guid}`, 'audit.app.build.create', { build_guid: build.guid, package_guid: pkg.guid });
    // Staging's own lines, source type STG (the CLI prints those while it stages, cli
    // actor/sharedaction/logging.go StagingLog): what the local staging does.
    const stg = (m) => platform.logs.write(app.name, 'STG/0', 'OUT', m);
    stg(`Staging app ${app.name}: package ${pkg.guid} copied as the droplet (local platform: no buildpack runs)`);
    bits.stage(build, app.manifestEntry || { name: app.name, ...(app.buildpack ? { buildpacks: [app.buildpack] } : {}) })
      .then(() => stg(build.state === 'STAGED' ? `Staged with ${build.buildpack}: droplet ${build.dropletGuid}` : `Staging failed: ${build.error}`));
    return [201, buildOf(base, build)];
  });
  router.add('GET', '/v3/builds/:guid', ({ params }) => {
    const b = bits.builds.get(params.guid);
    if (!b) throw errors.resourceNotFound('Build');
    return buildOf(base, b);
  });
}

// Droplets: a package's, an app's current one, and assigning it.
function registerDroplets(router, { platform, base, bits, apps, appOr404, dropletOr404 }) {
  router.add('GET', '/v3/packages/:guid/droplets', ({ params, query }) => {
    const pkg = bits.packages.get(params.guid);
    if (!pkg) throw errors.resourceNotFound('Package');
    const states = query.get('states') === null ? null : query.get('states').split(',');
    const list = [...bits.builds.values()].filter((b) => b.packageGuid === pkg.guid && b.state === 'STAGED' && (!states || states.includes('STAGED')))
      .map((b) => bits.droplet(b.dropletGuid, apps())).filter(Boolean);
    return P.list(base, `/v3/packages/${pkg.guid}/droplets`, list.map((d) => dropletOf(base, d)));
  });
  router.add('GET', '/v3/droplets/:guid', ({ params }) => dropletOf(base, dropletOr404(params.guid)));
  router.add('GET', '/v3/apps/:guid/droplets/current', ({ params }) => dropletOf(base, dropletOr404(appOr404(params.guid).dropletGuid)));
  router.add('GET', '/v3/apps/:guid/droplets', ({ params }) => {
    const a = appOr404(params.guid);
    const list = a.dropletGuid ? [dropletOf(base, dropletOr404(a.dropletGuid))] : [];
    return P.list(base, `/v3/apps/${a.guid}/droplets`, list);
  });
  // apps_controller.rb assign_current_droplet: data null (or no guid) cannot remove it; an
  // unknown droplet or another app's is AppAssignDroplet's 422.
  router.add('PATCH', '/v3/apps/:guid/relationships/current_droplet', ({ params, body }) => platform.exclusive(() => {
    const a = appOr404(params.guid);
    if ('data' in body && !(V.isObject(body.data) && body.data.guid !== undefined && body.data.guid !== null)) {
      throw errors.unprocessable('Current droplet cannot be removed. Replace it with a preferred droplet.');
    }
    const guid = V.isObject(body.data) ? body.data.guid : undefined;
    const d = typeof guid === 'string' ? bits.droplets.get(guid) : null;
    if (!d || d.appGuid !== a.guid) throw errors.unprocessable('Unable to assign current droplet. Ensure the droplet exists and belongs to this app.');
    const previous = a.path;
    a.dropletGuid = d.guid;
    a.path = d.path;
    a.buildpack = d.buildpack;
    a.updatedAt = new Date().toISOString();
    platform.save();
    if (!platform.cell.list(a.name).length && previous !== d.path) bits.discard(previous, a);
    platform.logs.write(a.name, 'API/0', 'OUT', `Updated app with guid ${a.guid} ({"droplet_guid"=>"${d.guid}"})`);
    platform.events.app('audit.app.droplet.mapped', a, { data: { request: { droplet_guid: d.guid } } });
    return {
      data: { guid: d.guid },
      links: { self: { href: `${base}/v3/apps/${a.guid}/relationships/current_droplet` }, related: { href: `${base}/v3/apps/${a.guid}/droplets/current` } },
    };
  }));
}

module.exports = { register };
