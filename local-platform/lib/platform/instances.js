// instances.js — the Platform's app verbs and Diego's part of them: an app's record from a
// pushed manifest, start, stop, restart, delete, the instances a count asks for
// (converge), and the apps a previous daemon ran, started again or held at boot. Methods of
// Platform (platform.js); `this` is the platform.
'use strict';

const fs = require('node:fs');
const path = require('node:path');
const crypto = require('node:crypto');
const { execFile } = require('node:child_process');
const { readPid, killAndWait } = require('../haproxy');
const { stage } = require('../start-command');
const { pushedRouteOptions } = require('../route-options');
const { quotaErrors } = require('../quota');
const { appId } = require('../app-id');
const { recordBinding } = require('./services');
const { UsageError } = require('./usage-error');

const instanceVerbs = {
  app(name) {
    const a = this.state.apps[name];
    if (!a) throw new UsageError(`App '${name}' not found.`);
    return a;
  },

  appByGuid(guid) { return Object.values(this.state.apps).find((a) => a.guid === guid) || null; },

  // How many instances of app should run now: none for a stopped or held app.
  desiredInstances(app) {
    return app.state === 'STARTED' && !this.held.has(app.name) ? app.instances : 0;
  },

  // The app record a manifest spec (manifest.js) makes: an existing app keeps its guid, its
  // set-env variables, its CPU override and the route options the spec does not set; the
  // spec's services are bound. UsageError for an unknown service.
  appFromSpec(spec, { instances, state }) {
    for (const s of spec.services) if (!this.state.services[s]) throw new UsageError(`Service instance ${s} not found`);
    const old = this.state.apps[spec.name];
    let routeOptions;
    try { routeOptions = pushedRouteOptions(old, spec); } catch (e) { throw new UsageError(e.message); }
    const app = {
      ...spec,
      routeOptions,
      guid: old ? old.guid : crypto.randomUUID(),
      env: { ...(old ? old.env : {}), ...spec.env },
      instances: instances !== undefined ? instances : spec.instances,
      cpuQuota: old ? old.cpuQuota : undefined,
      version: crypto.randomUUID(),
      state,
      createdAt: old ? old.createdAt : new Date().toISOString(),
      updatedAt: new Date().toISOString(),
    };
    for (const s of app.services) recordBinding(this.state.services[s], app.name);
    return app;
  },

  // Put `app` in place of its previous record: the old instances go, the disks of indices
  // the new count drops are discarded, the router follows.
  async replaceApp(app) {
    if (this.state.apps[app.name]) await this.cell.removeApp(app.name);
    this.cell.discardDisks(app.name, app.instances);
    this.state.apps[app.name] = app;
    for (const u of app.routes) delete this.state.routes[u]; // a pushed app maps a route no app had
    this.save();
    await this.routes.sync();
  },

  // wait: false returns once the instances are started, not yet healthy (CC's start).
  async start({ appName, wait = true }) {
    const app = this.app(appName);
    this.held.delete(app.name);
    app.state = 'STARTED';
    this.save();
    await this.stageApp(app);
    if (wait) await this.startAndWait(app, range(app.instances));
    else await this.startIndices(app, range(app.instances));
    await this.deployments.startOthers(app);
  },

  async stop({ appName }) {
    const app = this.app(appName);
    this.held.delete(app.name);
    app.state = 'STOPPED';
    this.save();
    await Promise.all([this.cell.removeApp(app.name), this.deployments.removeOthers(app)]);
  },

  async restart({ appName }) {
    await this.stop({ appName });
    await this.start({ appName });
  },

  // wait: false returns once the instance is started again, not yet healthy (CC's terminate).
  async restartInstance({ appName, index, wait = true }) {
    const app = this.app(appName);
    if (!(index >= 0 && index < app.instances)) throw new UsageError(`Instance ${index} of process web not found`);
    await this.cell.restartInstance(app.name, index);
    if (wait) await this.cell.waitRunning(app.name, [index], startWaitMs(app));
  },

  async deleteApp({ appName }) {
    const app = this.state.apps[appName];
    if (!app) return;
    await Promise.all([this.cell.removeApp(app.name), this.deployments.removeOthers(app, { forget: true })]);
    this.cell.discardDisks(app.name);
    this.held.delete(app.name);
    for (const s of Object.values(this.state.services)) if (s.bindings) delete s.bindings[app.name];
    delete this.state.apps[app.name];
    // Its routes outlive it, as CC keeps a route until it is deleted (docs/cf-platform.md §18).
    for (const url of app.routes) {
      if (!this.routeExists(url)) this.state.routes[url] = { options: app.routeOptions?.[url] || {}, createdAt: app.createdAt };
    }
    this.save();
    await this.routes.sync();
  },

  // Diego's part after CC saved a new instance count: start the missing instances, stop the
  // extra ones. Runs after the request is answered, one mutation at a time.
  converge(appName) {
    return this.exclusive(async () => {
      const app = this.state.apps[appName];
      const want = app ? this.desiredInstances(app) : 0;
      const extra = this.cell.list(appName).filter((i) => i.index >= want);
      await Promise.all(extra.map((i) => this.cell.remove(appName, i.index)));
      if (want) {
        if (!this.staged.has(appName)) await this.stageApp(app);
        await this.startIndices(app, range(want));
      }
      await this.routes.sync();
      this.cell.discardDisks(appName, want);
    }).catch((e) => this.log(`cannot converge ${appName}: ${e.message}`));
  },

  async stageApp(app) {
    this.staged.set(app.name, await stage(app, path.join(this.cfg.home, 'droplets', appId(app.name))));
    execFile('du', ['-sb', app.path], (err, out) => {
      if (!err) this.diskBytes.set(app.name, Number(String(out).split('\t')[0]) || 0);
    });
  },

  startIndices(app, indices) { return Promise.all(indices.map((i) => this.cell.ensure(app, i))); },

  async startAndWait(app, indices) {
    await this.startIndices(app, indices);
    await this.cell.waitRunning(app.name, indices, startWaitMs(app));
  },

  // The started apps of the saved state that cannot run (a record a hand or an older daemon
  // wrote, or beyond the quota), held before the router or any instance starts: they stay
  // in the state, listed by `cfl status`, and never stop the boot.
  holdUnrunnable() {
    const running = [];
    for (const app of Object.values(this.state.apps)) {
      if (app.state !== 'STARTED') continue;
      const why = savedAppProblem(app) || quotaErrors(this.quota, running, app).join(', ');
      if (why) {
        this.held.set(app.name, why);
        this.log(`not restarting ${app.name}: ${why}`);
      } else running.push(app);
    }
  },

  // The apps a previous daemon ran and that are not held, started again.
  async restartSavedApps() {
    for (const app of Object.values(this.state.apps)) {
      if (app.state !== 'STARTED' || this.held.has(app.name)) continue;
      try {
        await this.stageApp(app);
        this.startIndices(app, range(app.instances)).catch((e) => this.log(`cannot restart ${app.name}: ${e.message}`));
      } catch (e) {
        this.held.set(app.name, e.message);
        this.log(`cannot restart ${app.name}: ${e.message}`);
      }
    }
    await this.routes.sync();
  },

  // Processes a previous daemon left behind (it crashed or was killed).
  async cleanLeftovers() {
    const hp = readPid(path.join(this.cfg.haproxyDir, 'haproxy.pid'));
    if (hp) await killAndWait(hp, 'SIGUSR1', 3000);
    for (const pid of readPidList(path.join(this.cfg.home, 'instances.pids'))) {
      try { process.kill(-pid, 'SIGKILL'); } catch { /* gone */ }
    }
  },

  writePids() {
    const pids = this.cell.all().map((i) => i.pid).filter(Boolean);
    fs.writeFileSync(path.join(this.cfg.home, 'instances.pids'), `${pids.join('\n')}\n`);
  },
};

function range(n) { return Array.from({ length: n }, (_, i) => i); }

// How long to wait for instances to run: the app's start timeout and 5 s for the cell.
function startWaitMs(app) { return app.healthCheck.startTimeoutSec * 1000 + 5000; }

// What makes a saved app record unrunnable, before anything starts (a state file edited
// by hand or written by an older daemon): null when it is fine.
function savedAppProblem(app) {
  if (!Number.isInteger(app.instances) || app.instances < 0) return `instances ${JSON.stringify(app.instances)} is not a count`;
  if (!Number.isInteger(app.memoryMb) || app.memoryMb < 1) return `memory ${JSON.stringify(app.memoryMb)} MB is not a size`;
  if (!app.healthCheck || !Array.isArray(app.routes) || !Array.isArray(app.services)) return 'the record lacks health check, routes or services';
  if (!app.path || !fs.existsSync(app.path)) return `its droplet ${app.path} does not exist`;
  return null;
}

function readPidList(file) {
  try { return fs.readFileSync(file, 'utf8').split('\n').filter(Boolean).map(Number); } catch { return []; }
}

module.exports = { instanceVerbs };
