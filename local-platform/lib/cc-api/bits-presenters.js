// bits-presenters.js — a package, a build and a droplet in CC's v3 shapes
// (cloud_controller_ng app/presenters/v3/{package,build,droplet}_presenter.rb); push.js answers with them.
'use strict';

const P = require('./presenters');

const meta = () => ({ labels: {}, annotations: {} });

function packageOf(base, pkg) {
  return {
    guid: pkg.guid, created_at: P.ts(pkg.createdAt), updated_at: P.ts(pkg.updatedAt), type: 'bits',
    data: { error: pkg.error, checksum: { type: 'sha256', value: pkg.sha256 } },
    state: pkg.state,
    relationships: { app: { data: { guid: pkg.appGuid } } },
    metadata: meta(),
    links: {
      self: { href: `${base}/v3/packages/${pkg.guid}` },
      upload: { href: `${base}/v3/packages/${pkg.guid}/upload`, method: 'POST' },
      download: { href: `${base}/v3/packages/${pkg.guid}/download` },
      app: { href: `${base}/v3/apps/${pkg.appGuid}` },
    },
  };
}

function buildOf(base, b) {
  return {
    guid: b.guid, created_at: P.ts(b.createdAt), updated_at: P.ts(b.updatedAt), state: b.state,
    staging_memory_in_mb: 1024, staging_disk_in_mb: 1024, staging_log_rate_limit_bytes_per_second: -1,
    error: b.error,
    lifecycle: { type: 'buildpack', data: { buildpacks: b.buildpack ? [b.buildpack] : [], stack: P.STACK.name } },
    package: { guid: b.packageGuid },
    droplet: b.state === 'STAGED' ? { guid: b.dropletGuid } : null,
    created_by: { guid: 'c3c3a6a8-3c8b-4b6e-9d6b-000000000001', name: 'admin', email: 'admin' },
    relationships: { app: { data: { guid: b.appGuid } } },
    metadata: meta(),
    links: { self: { href: `${base}/v3/builds/${b.guid}` }, app: { href: `${base}/v3/apps/${b.appGuid}` } },
  };
}

function dropletOf(base, d) {
  return {
    guid: d.guid, created_at: P.ts(d.createdAt), updated_at: P.ts(d.createdAt), state: 'STAGED', error: null,
    lifecycle: { type: 'buildpack', data: {} },
    checksum: d.sha256 ? { type: 'sha256', value: d.sha256 } : null,
    buildpacks: [{ name: d.buildpack, detect_output: null, buildpack_name: d.buildpack, version: null }],
    stack: P.STACK.name, image: null, execution_metadata: '',
    process_types: { web: d.command || '' },
    relationships: { app: { data: { guid: d.appGuid } } },
    metadata: meta(),
    links: {
      self: { href: `${base}/v3/droplets/${d.guid}` },
      app: { href: `${base}/v3/apps/${d.appGuid}` },
      assign_current_droplet: { href: `${base}/v3/apps/${d.appGuid}/relationships/current_droplet`, method: 'PATCH' },
    },
  };
}

module.exports = { packageOf, buildOf, dropletOf };
