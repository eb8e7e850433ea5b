// bits.js — packages, builds and droplets (CC's PackageModel, BuildModel, DropletModel):
// an uploaded zip is unpacked into $CFSCALE_HOME/bits/packages/GUID; a build ("staging")
// detects the buildpack as manifest.js does and makes the droplet: a hard-linked copy of the
// package (bits/droplets/GUID), or for a Java app, whose jar the CLI uploads unpacked
// (docs/cf-platform.md §4), the jar again. Setting the app's current droplet points the
// app's path there; the previous droplet of the app is removed.
'use strict';

const fs = require('node:fs');
const path = require('node:path');
const crypto = require('node:crypto');
const { execFile } = require('node:child_process');
const YAML = require('yaml');
const { readManifest } = require('../manifest');

function run(cmd, args, opts = {}) {
  return new Promise((resolve, reject) => {
    execFile(cmd, args, { maxBuffer: 16 * 1024 * 1024, ...opts }, (err, _out, stderr) => {
      if (err) reject(new Error(`${cmd} failed: ${String(stderr || err.message).trim().split('\n').slice(-1)[0]}`));
      else resolve();
    });
  });
}

class Bits {
  constructor(home) {
    this.dir = path.join(home, 'bits');
    this.packages = new Map();
    this.builds = new Map();
    this.droplets = new Map();
  }

  createPackage(appGuid) {
    const now = new Date().toISOString();
    const pkg = { guid: crypto.randomUUID(), appGuid, state: 'AWAITING_UPLOAD', createdAt: now, updatedAt: now, sha256: null, error: null };
    pkg.dir = path.join(this.dir, 'packages', pkg.guid);
    this.packages.set(pkg.guid, pkg);
    return pkg;
  }

  // Unpack the zip (may be empty: every file matched) into the package's dir.
  async upload(pkg, zip) {
    pkg.state = 'PROCESSING_UPLOAD';
    fs.rmSync(pkg.dir, { recursive: true, force: true });
    fs.mkdirSync(pkg.dir, { recursive: true });
    try {
      if (zip && zip.length) {
        const file = `${pkg.dir}.zip`;
        fs.writeFileSync(file, zip);
        try { await run('unzip', ['-q', '-o', file, '-d', pkg.dir]); } finally { fs.rmSync(file, { force: true }); }
      }
      pkg.sha256 = crypto.createHash('sha256').update(zip || '').digest('hex');
      pkg.state = 'READY';
    } catch (e) {
      pkg.state = 'FAILED';
      pkg.error = e.message;
    }
    pkg.updatedAt = new Date().toISOString();
  }

  createBuild(pkg) {
    const now = new Date().toISOString();
    const build = { guid: crypto.randomUUID(), packageGuid: pkg.guid, appGuid: pkg.appGuid, state: 'STAGING', createdAt: now, updatedAt: now, error: null, dropletGuid: null, buildpack: null };
    this.builds.set(build.guid, build);
    return build;
  }

  // Staging: the buildpack the manifest names or detects for the package's files (manifest.js
  // rules), then the droplet. `entry`: the app's manifest entry (apply_manifest) or {name}.
  async stage(build, entry) {
    const pkg = this.packages.get(build.packageGuid);
    try {
      const scratch = path.join(this.dir, 'manifests', `${build.guid}.yml`);
      fs.mkdirSync(path.dirname(scratch), { recursive: true });
      fs.writeFileSync(scratch, YAML.stringify({ applications: [{ ...entry, path: pkg.dir }] }));
      let spec;
      try { [spec] = readManifest(scratch); } finally { fs.rmSync(scratch, { force: true }); }
      const droplet = { guid: crypto.randomUUID(), appGuid: build.appGuid, buildpack: spec.buildpack, command: spec.command, createdAt: new Date().toISOString() };
      const dir = path.join(this.dir, 'droplets', droplet.guid);
      if (/java/.test(spec.buildpack) && fs.existsSync(path.join(pkg.dir, 'META-INF', 'MANIFEST.MF'))) {
        fs.mkdirSync(dir, { recursive: true });
        droplet.path = path.join(dir, `${spec.name}.jar`);
        await run('zip', ['-q', '-r', '-X', droplet.path, '.'], { cwd: pkg.dir });
      } else {
        fs.mkdirSync(path.dirname(dir), { recursive: true });
        await run('cp', ['-al', pkg.dir, dir]);
        droplet.path = dir;
      }
      droplet.sha256 = pkg.sha256;
      this.droplets.set(droplet.guid, droplet);
      build.dropletGuid = droplet.guid;
      build.buildpack = spec.buildpack;
      build.state = 'STAGED';
    } catch (e) {
      build.state = 'FAILED';
      build.error = `StagingError - ${e.message}`;
    }
    build.updatedAt = new Date().toISOString();
  }

  // The droplet an app runs: the staged one, or the current one rebuilt from the app's
  // record after a daemon restart.
  droplet(guid, apps) {
    if (this.droplets.has(guid)) return this.droplets.get(guid);
    const app = apps.find((a) => a.dropletGuid === guid);
    return app ? { guid, appGuid: app.guid, buildpack: app.buildpack, command: app.command, path: app.path, createdAt: app.updatedAt || app.createdAt } : null;
  }

  // Drop the package and the droplet an app no longer runs.
  discard(previousDropletPath, packageGuid) {
    const under = (p, d) => p && p.startsWith(path.join(this.dir, d) + path.sep);
    if (under(previousDropletPath, 'droplets')) {
      const rel = path.relative(path.join(this.dir, 'droplets'), previousDropletPath).split(path.sep)[0];
      fs.rmSync(path.join(this.dir, 'droplets', rel), { recursive: true, force: true });
    }
    const pkg = this.packages.get(packageGuid);
    if (pkg) fs.rmSync(pkg.dir, { recursive: true, force: true });
  }
}

module.exports = { Bits };
