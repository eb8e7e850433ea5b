// deployments.js — Cloud Controller's rolling deployments, with Diego's part done by the
// cell (docs/cf-platform.md §26). A deployment starts a new web process beside the app's
// (cc-api/deployments.js); every UPDATE_INTERVAL_MS the updater does what CC's deployment
// updater does (cloud_controller_ng lib/cloud_controller/deployment_updater/): the new
// process grows by max_in_flight once its instances are routable, the older ones shrink by
// as many, and at the target the new process becomes the app's web process (finalize); a
// cancel gives the prior process its instances back and drops the rest. Each process keeps
// the droplet it started with, so an old instance that crashes mid-deployment comes back as
// it was. Deployment records live in state.json; the processes do not: a daemon restart
// finalizes an active deployment (the app comes back from its current droplet).
'use strict';

const crypto = require('node:crypto');
const path = require('node:path');
const { stage } = require('./start-command');

// capi-release jobs/cc_deployment_updater/spec: update_frequency_in_seconds, default 5.
const UPDATE_INTERVAL_MS = 5000;
// DeploymentModel (app/models/runtime/deployment_model.rb): the states the updater works on;
// CC's PREPAUSED and PAUSED belong to canary deployments, not run here.
const PROGRESSING = new Set(['DEPLOYING']);
const CANCELABLE = new Set(['DEPLOYING', 'CANCELING']);

/**
 * One tick of CC's Actions::Scale for a deployment (scale.rb, up_scaler.rb, down_scaler.rb)
 * from counts: target (desired_web_instances), maxInFlight, oldInstances (the older web
 * processes' desired instances), newInstances (the deploying process's), and its instances
 * starting, routable and unhealthy. → null (nothing to do) or { oldInstances, newInstances,
 * finished }.
 */
function scaleStep({ target, maxInFlight, oldInstances, newInstances, starting, routable, unhealthy }) {
  const desiredOld = Math.max(target - routable, 0);
  const canDown = oldInstances > desiredOld;
  const canUp = starting < maxInFlight && unhealthy === 0 && routable >= newInstances - maxInFlight;
  if (!canUp && !canDown) return null;
  const next = { oldInstances: canDown ? desiredOld : oldInstances, newInstances, finished: false };
  if (newInstances >= target && routable >= target) return { ...next, finished: true };
  if (canUp) next.newInstances = Math.min(routable + maxInFlight, target);
  return next;
}

/** Counts of a process's instances as CC's instances reporter makes them (instance_count_summary). */
function instanceCounts(instances, desired) {
  const c = { starting: 0, routable: 0, unhealthy: 0 };
  for (let index = 0; index < desired; index++) {
    const i = instances.find((x) => x.index === index);
    if (!i || i.state === 'STARTING') c.starting++;
    else if (i.state === 'RUNNING' && i.ready !== false) c.routable++;
    else if (i.state === 'RUNNING') c.starting++;
    else c.unhealthy++;
  }
  return c;
}

const dropletOf = (a) => ({ dropletGuid: a.dropletGuid, path: a.path, buildpack: a.buildpack, command: a.command });
const now = () => new Date().toISOString();

class Deployments {
  constructor(platform) {
    this.platform = platform;
    // app name → its web processes besides the original, oldest first:
    // { guid, key, instances, createdAt, droplet, memoryMb, diskMb }
    this.procs = new Map();
    // app name → the droplet its original web process runs while others exist
    this.webDroplet = new Map();
    this.timer = null;
  }

  get records() { return this.platform.state.deployments; }

  /**
   * At boot, before the saved apps start: a deployment a previous daemon left active is final,
   * its app at the count it was going to (its droplet is the app's already); then the updater runs.
   */
  start() {
    for (const d of Object.values(this.records)) {
      const app = this.platform.appByGuid(d.appGuid);
      if (PROGRESSING.has(d.state)) {
        this.setState(d, 'DEPLOYED', 'FINALIZED', 'DEPLOYED');
        if (app) app.instances = d.webInstances ?? d.originalInstances;
      } else if (d.state === 'CANCELING') {
        this.setState(d, 'CANCELED', 'FINALIZED', 'CANCELED');
        if (app) app.instances = d.originalInstances;
      }
    }
    this.timer = setInterval(() => this.platform.exclusive(() => this.tick()).catch((e) => this.platform.log(`deployments: ${e.message}`)), UPDATE_INTERVAL_MS);
    this.timer.unref();
  }

  stop() { clearInterval(this.timer); }

  setState(d, state, value, reason) {
    Object.assign(d, { state, statusValue: value, statusReason: reason, updatedAt: now(), statusUpdatedAt: now() });
  }

  /** The app's active deployment (DEPLOYING or CANCELING), or null. */
  active(app) {
    return Object.values(this.records).find((d) => d.appGuid === app.guid && CANCELABLE.has(d.state)) || null;
  }

  /** CC's AppModel#deploying?: a scale of the web process is refused meanwhile. */
  deploying(app) { return Object.values(this.records).some((d) => d.appGuid === app.guid && PROGRESSING.has(d.state)); }

  /** The app's web processes, oldest first: { guid, key, instances, createdAt, original }. */
  processes(app) {
    return [{ guid: app.guid, key: app.name, instances: app.instances, createdAt: app.createdAt, original: true }, ...(this.procs.get(app.name) || [])];
  }

  /**
   * { app, proc } of a process guid, or null. A finalized deployment's process is the app's
   * web process from then on: its guid still finds it (locally the web process keeps the
   * app's guid, cc-api/README.md).
   */
  byGuid(guid) {
    for (const app of Object.values(this.platform.state.apps)) {
      const p = this.processes(app).find((x) => x.guid === guid);
      if (p) return { app, proc: p };
    }
    const d = Object.values(this.records).find((x) => x.processGuid === guid && x.statusReason === 'DEPLOYED');
    const app = d && this.platform.appByGuid(d.appGuid);
    return app ? { app, proc: this.processes(app)[0] } : null;
  }

  /** The record a process key's instances start from (instances.js hooks.appOf), or null. */
  record(key) {
    const apps = this.platform.state.apps;
    if (apps[key]) return this.webDroplet.has(key) ? { ...apps[key], ...this.webDroplet.get(key) } : apps[key];
    for (const [name, list] of this.procs) {
      const p = list.find((x) => x.key === key);
      if (p && apps[name]) return { ...apps[name], ...p.droplet, memoryMb: p.memoryMb, diskMb: p.diskMb, processGuid: p.guid };
    }
    return null;
  }

  /**
   * CC's DeploymentCreate for a validated message: { droplet (a droplet record of the app),
   * maxInFlight, webInstances, memoryMb, diskMb }. Quota errors throw QuotaError; returns the
   * deployment record.
   */
  async create(app, msg) {
    // desired_instances: an active deployment's original count, else the web process's.
    const original = this.previousTarget(app) ?? app.instances;
    const target = msg.webInstances ?? original;
    const starting = Math.min(msg.maxInFlight, target);
    const memoryMb = msg.memoryMb ?? app.memoryMb;
    if (app.state === 'STARTED') {
      const extra = this.processes(app).slice(1).reduce((s, p) => s + p.instances, 0);
      const over = this.platform.quotaErrors({ ...app, memoryMb: Math.max(memoryMb, app.memoryMb), instances: app.instances + extra + starting });
      if (over.length) throw new QuotaError(over.join(', '));
    }
    const previousDroplet = dropletOf(app);
    this.assign(app, msg.droplet);
    const dep = {
      guid: crypto.randomUUID(), appGuid: app.guid, strategy: 'rolling', maxInFlight: msg.maxInFlight,
      dropletGuid: msg.droplet.guid, previousDropletGuid: previousDroplet.dropletGuid, previousDroplet,
      originalInstances: original, webInstances: msg.webInstances ?? null, memoryMb: msg.memoryMb ?? null, diskMb: msg.diskMb ?? null,
      processGuid: null, createdAt: now(), lastHealthyAt: null, error: null,
    };
    this.setState(dep, 'DEPLOYING', 'ACTIVE', 'DEPLOYING');
    this.records[dep.guid] = dep;
    if (app.state !== 'STARTED') {
      // A stopped app starts with the new droplet at once (deployment_create.rb).
      Object.assign(app, { instances: target, memoryMb, diskMb: msg.diskMb ?? app.diskMb });
      this.setState(dep, 'DEPLOYED', 'FINALIZED', 'DEPLOYED');
      this.platform.save();
      await this.platform.start({ appName: app.name, wait: false });
      return dep;
    }
    const previous = Object.values(this.records).find((d) => d !== dep && d.appGuid === app.guid && CANCELABLE.has(d.state));
    if (previous) this.setState(previous, previous.state === 'DEPLOYING' ? 'DEPLOYED' : 'CANCELED', 'FINALIZED', 'SUPERSEDED');
    if (!this.webDroplet.has(app.name)) this.webDroplet.set(app.name, previousDroplet);
    const proc = { guid: crypto.randomUUID(), instances: starting, createdAt: now(), droplet: dropletOf(app), memoryMb, diskMb: msg.diskMb ?? app.diskMb };
    proc.key = `${app.name}@${proc.guid.slice(0, 8)}`;
    this.procs.set(app.name, [...(this.procs.get(app.name) || []), proc]);
    dep.processGuid = proc.guid;
    this.platform.save();
    const record = this.record(proc.key);
    this.platform.staged.set(proc.key, await stage(record, path.join(this.platform.cfg.home, 'droplets', proc.key)));
    await this.converge(app, proc);
    return dep;
  }

  /** CC's AppAssignDroplet: the app's current droplet, its API line and audit event. */
  assign(app, d) {
    const guid = d.guid ?? d.dropletGuid;
    Object.assign(app, { dropletGuid: guid, path: d.path, buildpack: d.buildpack, updatedAt: now() });
    this.platform.logs.write(app.name, 'API/0', 'OUT', `Updated app with guid ${app.guid} ({"droplet_guid"=>"${guid}"})`);
    this.platform.events.app('audit.app.droplet.mapped', app, { data: { request: { droplet_guid: guid } } });
  }

  /** The target of a deployment that supersedes an active one: that one's (desired_instances). */
  previousTarget(app) {
    const d = this.active(app);
    return d ? d.originalInstances : null;
  }

  /** CC's DeploymentCancel: the previous droplet back on the app; the updater does the rest. */
  cancel(dep) {
    if (!CANCELABLE.has(dep.state)) throw new StateError(`Cannot cancel a deployment with status: ${dep.statusValue} and reason: ${dep.statusReason}`);
    const app = this.platform.appByGuid(dep.appGuid);
    this.assign(app, dep.previousDroplet);
    this.setState(dep, 'CANCELING', 'ACTIVE', 'CANCELING');
    this.platform.save();
    return dep;
  }

  /** One run of CC's deployment updater over every deployment (dispatcher.rb). */
  async tick() {
    for (const dep of Object.values(this.records)) {
      const app = this.platform.appByGuid(dep.appGuid);
      if (!app) continue;
      if (dep.state === 'DEPLOYING') await this.scale(app, dep);
      else if (dep.state === 'CANCELING') await this.finishCancel(app, dep);
    }
  }

  async scale(app, dep) {
    const list = this.processes(app);
    const at = list.findIndex((p) => p.guid === dep.processGuid);
    if (at < 0 || app.state !== 'STARTED') return;
    const proc = list[at];
    const older = list.filter((p) => p !== proc);
    const counts = instanceCounts(this.platform.cell.list(proc.key), proc.instances);
    const step = scaleStep({
      target: dep.webInstances ?? dep.originalInstances, maxInFlight: dep.maxInFlight,
      oldInstances: older.reduce((s, p) => s + p.instances, 0), newInstances: proc.instances, ...counts,
    });
    if (!step) return;
    this.setState(dep, 'DEPLOYING', 'ACTIVE', 'DEPLOYING');
    let reduce = older.reduce((s, p) => s + p.instances, 0) - step.oldInstances;
    for (const p of older) {
      const cut = Math.min(reduce, p.instances);
      reduce -= cut;
      if (cut) await this.setInstances(app, p, p.instances - cut);
    }
    if (step.finished) return this.finalize(app, dep, proc);
    if (step.newInstances !== proc.instances) {
      dep.lastHealthyAt = now();
      await this.setInstances(app, proc, step.newInstances);
    }
    this.platform.save();
  }

  /** CC's Finalize: every other web process goes, the deploying one is the app's web process. */
  async finalize(app, dep, proc) {
    Object.assign(app, { memoryMb: proc.memoryMb, diskMb: proc.diskMb });
    await this.keepOnly(app, proc, proc.instances);
    this.setState(dep, 'DEPLOYED', 'FINALIZED', 'DEPLOYED');
    this.platform.save();
    // The previous droplet no process runs any more goes, as after a push (bits.js).
    if (this.platform.bits && dep.previousDroplet.path !== app.path) this.platform.bits.discard(dep.previousDroplet.path, app);
  }

  /** CC's Actions::Cancel: the prior process (the original web one) back at the original count. */
  async finishCancel(app, dep) {
    const original = this.processes(app)[0];
    await this.keepOnly(app, original, dep.originalInstances);
    this.setState(dep, 'CANCELED', 'FINALIZED', 'CANCELED');
    this.platform.save();
  }

  /** Only `proc` remains, with `instances`, as the app's web process (promoted when it was not). */
  async keepOnly(app, proc, instances) {
    for (const p of this.processes(app)) if (p.key !== proc.key) await this.setInstances(app, p, 0);
    if (!proc.original) {
      this.platform.cell.promote(proc.key, app.name);
      this.platform.staged.set(app.name, this.platform.staged.get(proc.key) || {});
      this.platform.staged.delete(proc.key);
    }
    this.procs.delete(app.name);
    this.webDroplet.delete(app.name);
    await this.setInstances(app, this.processes(app)[0], instances);
    await this.platform.routes.sync();
  }

  /** A process's desired instances, converged: extra ones stop (not waited for), missing ones start. */
  async setInstances(app, proc, n) {
    if (proc.original) app.instances = n;
    else proc.instances = n;
    await this.converge(app, { ...proc, instances: n });
  }

  async converge(app, proc) {
    const want = app.state === 'STARTED' && !this.platform.held.has(app.name) ? proc.instances : 0;
    const cell = this.platform.cell;
    for (const i of cell.list(proc.key)) {
      if (i.index >= want) cell.remove(proc.key, i.index).catch((e) => this.platform.log(`cannot stop ${proc.key}/${i.index}: ${e.message}`));
    }
    const record = this.record(proc.key);
    if (record) await Promise.all(Array.from({ length: want }, (_, i) => cell.ensure(record, i, proc.key)));
  }

  /** The app's other processes' instances started (start) or stopped (stop, delete). */
  async startOthers(app) { for (const p of this.processes(app).slice(1)) await this.converge(app, p); }

  async removeOthers(app, { forget = false } = {}) {
    await Promise.all(this.processes(app).slice(1).map((p) => this.platform.cell.removeApp(p.key)));
    if (!forget) return;
    this.procs.delete(app.name);
    this.webDroplet.delete(app.name);
    for (const [g, d] of Object.entries(this.records)) if (d.appGuid === app.guid) delete this.records[g];
  }

  /** Every process key with instances beside the apps' own (for shutdown). */
  otherKeys() { return [...this.procs.values()].flat().map((p) => p.key); }
}

class QuotaError extends Error {}
class StateError extends Error {}

module.exports = { Deployments, scaleStep, instanceCounts, QuotaError, StateError, UPDATE_INTERVAL_MS };
