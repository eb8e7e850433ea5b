// bits.js — packages, builds and droplets (CC's PackageModel, BuildModel, DropletModel):
// an uploaded zip is unpacked into $CFSCALE_HOME/bits/packages/GUID; a build ("staging")
// detects the buildpack as manifest.js does and makes the droplet: a hard-linked copy of the
// package (bits/droplets/GUID), or for a Java app, whose jar the CLI uploads unpacked
// (docs/cf-platform.md §4), the jar again. Setting the app's current droplet points the
// app's path there; the previous droplet of the app is removed. Packages are kept, as CC
// keeps them (`cf restage` stages the newest again, docs/cf-platform.md §18): the current
// droplet's and the newest others up to PACKAGES_KEPT per app. Packages and droplets are
// listed in bits/index.json, so they outlive a daemon restart.
'use strict';

const fs = require('node:fs');
const path = require('node:path');
const crypto = require('node:crypto');
const { execFile } = require('node:child_process');
const YAML = require('yaml');
const { readManifest } = require('../manifest');
const { appId } = require('../app-id');

function run(cmd, args, opts = {}) {
  return new Promise((resolve, reject) => {
    execFile(cmd, args, { maxBuffer: 16 * 1024 * 1024, ...opts }, (err, _out, stderr) => {
      if (err) reject(new Error(`${cmd} failed: ${String(stderr || err.message).trim().split('\n').slice(-1)[0]}`));
      else resolve();
    });
  });
}

// CC keeps max_valid_packages_stored packages per app besides the current droplet's
// (bits_expiration.rb); locally one more, for disk's sake on a shared machine.
const PACKAGES_KEPT = 2;

class Bits {
  constructor(home) {
    this.dir = path.join(home, 'bits');
    this.indexFile = path.join(this.dir, 'index.json');
    this.packages = new Map();
    this.builds = new Map();
    this.droplets = new Map();
    this.load();
  }

  // The packages and droplets a previous daemon kept whose files still exist.
  load() {
    let doc;
    try { doc = JSON.parse(fs.readFileSync(this.indexFile, 'utf8')); } catch { return; }
    for (const p of Array.isArray(doc.packages) ? doc.packages : []) {
      if (p && p.guid && p.state === 'READY' && fs.existsSync(p.dir)) this.packages.set(p.guid, p);
    }
    for (const d of Array.isArray(doc.droplets) ? doc.droplets : []) {
      if (d && d.guid && d.path && fs.existsSync(d.path)) this.droplets.set(d.guid, d);
    }
  }

  save() {
    fs.mkdirSync(this.dir, { recursive: true });
    const doc = { packages: [...this.packages.values()].filter((p) => p.state === 'READY'), droplets: [...this.droplets.values()] };
    fs.writeFileSync(`${this.indexFile}.tmp`, JSON.stringify(doc));
    fs.renameSync(`${this.indexFile}.tmp`, this.indexFile);
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
      this.save();
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
        droplet.path = path.join(dir, `${appId(spec.name)}.jar`);
        await run('zip', ['-q', '-r', '-X', droplet.path, '.'], { cwd: pkg.dir });
      } else {
        fs.mkdirSync(path.dirname(dir), { recursive: true });
        await run('cp', ['-al', pkg.dir, dir]);
        droplet.path = dir;
      }
      droplet.sha256 = pkg.sha256;
      droplet.packageGuid = pkg.guid;
      this.droplets.set(droplet.guid, droplet);
      this.save();
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

  // Drop the droplet an app no longer runs, and the packages beyond what is kept: the
  // current droplet's and the newest PACKAGES_KEPT − 1 others of the app.
  discard(previousDropletPath, app) {
    const under = (p, d) => p && p.startsWith(path.join(this.dir, d) + path.sep);
    if (under(previousDropletPath, 'droplets')) {
      const rel = path.relative(path.join(this.dir, 'droplets'), previousDropletPath).split(path.sep)[0];
      fs.rmSync(path.join(this.dir, 'droplets', rel), { recursive: true, force: true });
      this.droplets.delete(rel);
    }
    const current = this.droplets.get(app.dropletGuid)?.packageGuid;
    const others = [...this.packages.values()].filter((p) => p.appGuid === app.guid && p.guid !== current && p.state === 'READY')
      .sort((a, b) => (a.createdAt < b.createdAt ? 1 : -1));
    for (const p of others.slice(current ? PACKAGES_KEPT - 1 : PACKAGES_KEPT)) this.remove(p);
    this.save();
  }

  // Every package and droplet of a deleted app.
  discardApp(appGuid) {
    for (const p of [...this.packages.values()]) if (p.appGuid === appGuid) this.remove(p);
    for (const d of [...this.droplets.values()]) {
      if (d.appGuid !== appGuid) continue;
      if (d.path.startsWith(path.join(this.dir, 'droplets') + path.sep)) fs.rmSync(path.join(this.dir, 'droplets', d.guid), { recursive: true, force: true });
      this.droplets.delete(d.guid);
    }
    this.save();
  }

  remove(pkg) {
    fs.rmSync(pkg.dir, { recursive: true, force: true });
    this.packages.delete(pkg.guid);
  }
}

module.exports = { Bits };
