// platform.js — the local platform inside the daemon: apps, services, bindings (state.js),
// the cell (instances.js), the router (haproxy.js), PostgreSQL (services.js), the stats
// sampler and the router-log sink. Each operation of the Cloud Controller (cc-api/) and of
// `cfl` is one method; mutating ones run one at a time.
'use strict';

const fs = require('node:fs');
const path = require('node:path');
const crypto = require('node:crypto');
const { execFile } = require('node:child_process');
const { loadState, saveState } = require('./state');
const { AppLogs } = require('./app-log');
const { Cgroups, cfCpuShares } = require('./cgroups');
const { Cells } = require('./cells');
const { postmasterPid, placeBackends } = require('./db-backends');
const { Events, RESULTS_SERVICE } = require('./events');
const { Cell } = require('./instances');
const { Router, readPid, killAndWait } = require('./haproxy');
const { ensureSelfSignedCert } = require('./tls-cert');
const { RouterSync } = require('./router-sync');
const { FrontProxies } = require('./front-proxy');
const { MAX_FRONT_PROXIES } = require('./config');
const { startSink, toRtrLine } = require('./rtr-log');
const { Postgres } = require('./services');
const { stage } = require('./start-command');
const { sample } = require('./instance-usage');
const tables = require('./tables');
const { pushedRouteOptions, planRouteUpdate } = require('./route-options');
const { orgQuota, quotaErrors } = require('./quota');
const { appId } = require('./app-id');
const { Deployments } = require('./deployments');
const { Tasks } = require('./tasks');

class UsageError extends Error {}

class Platform {
  constructor(cfg, log) {
    this.cfg = cfg;
    this.log = log;
    this.queue = Promise.resolve();
    this.staged = new Map();
    this.diskBytes = new Map();
    // Started apps the boot could not run (app name → why), shown by `cfl status`.
    this.held = new Map();
    // While the shield is up (cells.js): when it lowers itself, in ms since the epoch.
    this.shieldUntil = null;
    this.quota = orgQuota(cfg);
  }

  /** The router's HTTPS listener, where every route is served with the self-signed certificate. */
  get routerHttpsUrl() { return `https://127.0.0.1:${this.cfg.routerTlsPort}`; }

  // Serialise mutating verbs.
  exclusive(fn) {
    const run = this.queue.then(fn, fn);
    this.queue = run.catch(() => {});
    return run;
  }

  async boot() {
    const { cfg } = this;
    fs.mkdirSync(cfg.home, { recursive: true });
    // PostgreSQL runs as `postgres` when we are root: it must be able to reach its dir.
    if (process.getuid && process.getuid() === 0) fs.chmodSync(cfg.home, 0o711);
    this.state = this.loadStateOrSetAside();
    this.logs = new AppLogs(cfg.logDir);
    this.cgroups = new Cgroups(cfg.cgroupRoot, cfg.homeHash, this.log, cfg.cpuPeriodUs);
    // The daemon, and so PostgreSQL and the router it starts, in the harness's cell.
    this.cells = new Cells({ root: cfg.cgroupRoot, group: this.cgroups.group, split: cfg.cells, log: this.log });
    this.cells.join('harness', process.pid);
    this.placedBackends = new Map();
    this.events = new Events({ log: this.log, file: path.join(cfg.home, 'events.jsonl'), resultsCredentials: () => this.state.services[RESULTS_SERVICE]?.credentials || null });
    this.deployments = new Deployments(this);
    this.tasks = new Tasks(this);
    this.cell = new Cell({
      cfg, cgroups: this.cgroups, logs: this.logs, events: this.events,
      hooks: {
        appOf: (key) => this.deployments.record(key),
        services: () => this.state.services,
        staged: (key) => this.staged.get(key) || {},
        cpuCores: (a) => this.cpuCores(a),
        cpuShares: (a) => this.cpuShares(a),
        cellEnter: (a) => this.cells.enterScript(this.cellOf(a)),
        onChange: () => { this.writePids(); return this.routes.sync(); },
      },
    });
    await this.cleanLeftovers();
    this.pg = new Postgres({ repoRoot: cfg.repoRoot, dir: cfg.pgDir, port: cfg.pgPort });
    await this.pg.start();
    this.sink = await startSink((rec) => this.routerLog(rec));
    await ensureSelfSignedCert(cfg.routerCertFile);
    this.router = new Router({
      dir: cfg.haproxyDir, routerPort: cfg.routerPort, tlsPort: cfg.routerTlsPort, certFile: cfg.routerCertFile,
      log: this.log, cgroups: this.cgroups,
    });
    this.routes = new RouterSync({
      router: this.router, log: this.log,
      apps: () => Object.values(this.state.apps), instances: (n) => this.cell.forApp(n),
      desired: (a) => this.desiredInstances(a),
    });
    this.routes.logPort = this.sink.port;
    this.holdUnrunnable();
    try {
      await this.routes.sync({ strict: true });
    } catch (e) {
      this.held.set('(router)', e.message);
      this.log(`router: ${e.message}`);
    }
    this.front = new FrontProxies({
      dir: cfg.frontProxyDir, portBase: cfg.frontProxyPortBase, routerPort: cfg.routerPort,
      cpuCores: cfg.frontProxyCpu, cgroups: this.cgroups, log: this.log,
    });
    await this.front.cleanLeftovers();
    await this.front.set(cfg.frontProxies);
    this.sampler = setInterval(() => this.sampleAll(), cfg.statsIntervalMs);
    this.deployments.start();
    await this.restartSavedApps();
    this.tasks.start();
    this.log(`up: router 127.0.0.1:${cfg.routerPort} and ${this.routerHttpsUrl}, postgres 127.0.0.1:${cfg.pgPort}, cgroups ${this.cgroups.available ? 'on' : 'OFF'}`);
  }

  // The saved state, or (unreadable) an empty one, the file kept beside it and reported.
  loadStateOrSetAside() {
    try {
      return loadState(this.cfg.stateFile);
    } catch (e) {
      const aside = `${this.cfg.stateFile}.unreadable-${Date.now()}`;
      fs.renameSync(this.cfg.stateFile, aside);
      this.held.set('(state)', `${e.message}; kept as ${aside}, started empty`);
      this.log(`state: ${e.message}; kept as ${aside}`);
      return loadState(this.cfg.stateFile);
    }
  }

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
  }

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
  }

  // How many instances of app should run now: none for a stopped or held app.
  desiredInstances(app) {
    return app.state === 'STARTED' && !this.held.has(app.name) ? app.instances : 0;
  }

  // "M MB, N instances" of the started apps, as the quota counts them.
  quotaUse() {
    const started = Object.values(this.state.apps).filter((a) => this.desiredInstances(a) > 0);
    return `${started.reduce((s, a) => s + a.instances * a.memoryMb, 0)} MB, ${started.reduce((s, a) => s + a.instances, 0)} instances`;
  }

  // CC's quota check of `candidate`, the record an app would be saved as: CC's messages.
  quotaErrors(candidate) { return quotaErrors(this.quota, Object.values(this.state.apps), candidate); }

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
  }

  // Processes a previous daemon left behind (it crashed or was killed).
  async cleanLeftovers() {
    const hp = readPid(path.join(this.cfg.haproxyDir, 'haproxy.pid'));
    if (hp) await killAndWait(hp, 'SIGUSR1', 3000);
    for (const pid of readPidList(path.join(this.cfg.home, 'instances.pids'))) {
      try { process.kill(-pid, 'SIGKILL'); } catch { /* gone */ }
    }
  }

  writePids() {
    const pids = this.cell.all().map((i) => i.pid).filter(Boolean);
    fs.writeFileSync(path.join(this.cfg.home, 'instances.pids'), `${pids.join('\n')}\n`);
  }

  save() { saveState(this.cfg.stateFile, this.state); }

  cpuCores(app) {
    if (app.cpuQuota === 'none') return null;
    if (typeof app.cpuQuota === 'number') return app.cpuQuota;
    if (this.cfg.cpuMode === 'shares') return null;
    return (app.memoryMb / 1024) * this.cfg.cpuPerGb;
  }

  cpuShares(app) {
    return this.cfg.cpuMode === 'shares' ? cfCpuShares(app.memoryMb) : undefined;
  }

  app(name) {
    const a = this.state.apps[name];
    if (!a) throw new UsageError(`App '${name}' not found.`);
    return a;
  }

  appByGuid(guid) { return Object.values(this.state.apps).find((a) => a.guid === guid) || null; }

  async stageApp(app) {
    this.staged.set(app.name, await stage(app, path.join(this.cfg.home, 'droplets', appId(app.name))));
    execFile('du', ['-sb', app.path], (err, out) => {
      if (!err) this.diskBytes.set(app.name, Number(String(out).split('\t')[0]) || 0);
    });
  }

  startIndices(app, indices) { return Promise.all(indices.map((i) => this.cell.ensure(app, i))); }

  async startAndWait(app, indices) {
    await this.startIndices(app, indices);
    await this.cell.waitRunning(app.name, indices, app.healthCheck.startTimeoutSec * 1000 + 5000);
  }

  routerLog(rec) {
    const t = this.routes.target(rec);
    if (!t) return;
    const line = toRtrLine(rec, { appGuid: t.app.guid, index: t.index === null ? '-' : t.index, instanceGuid: t.instance && t.instance.guid });
    this.logs.write(t.app.name, 'RTR/0', 'OUT', line);
  }

  sampleAll() {
    for (const inst of this.cell.all()) {
      try { sample(inst, this.cgroups, this.diskBytes.get(inst.app) || 0); } catch { /* process just went */ }
    }
    if (this.shieldUntil) this.keepShield();
    if (this.cfg.appDbCell === 'sut') placeBackends(this.cells, postmasterPid(this.cfg.pgDir), this.sutDatabases(), this.placedBackends);
  }

  /** The cell an app's instances run in: the harness's for CFSCALE_HARNESS_APPS, else the SUT's. */
  cellOf(app) { return this.cfg.harnessApps.includes(app.name) ? 'harness' : 'sut'; }

  /** The databases of the services bound only to apps of the SUT's cell (the apps' own databases). */
  sutDatabases() {
    const out = new Set();
    for (const [name, svc] of Object.entries(this.state.services)) {
      const bound = Object.values(this.state.apps).filter((a) => a.services.includes(name));
      if (bound.length && bound.every((a) => this.cellOf(a) === 'sut')) out.add(svc.credentials?.name ?? name);
    }
    return out;
  }

  /** While the shield is up, what started in the root cpuset since joins it; lowered once its time is up. */
  keepShield() {
    if (Date.now() < this.shieldUntil) { this.cells.raiseShield(); return; }
    this.shieldUntil = null;
    this.log(`shield lowered (its time was up): ${this.cells.lowerShield()} processes back on every CPU`);
  }

  /**
   * `cfl cells [--join PID] [--shield SECONDS]`: the split as JSON {sut_cpus, harness_cpus, app_db,
   * shield} (null: none); --join moves PID to the harness's cell; --shield raises the shield for
   * SECONDS (cells.js), 0 lowers it.
   */
  cellsVerb({ join, shield }) {
    if (shield !== undefined && this.cells.available && this.cfg.shield === 'on') {
      if (shield > 0) {
        const moved = this.cells.raiseShield();
        if (!this.shieldUntil) this.log(`shield raised for ${shield} s: ${moved} processes onto CPU ${this.cells.describe().harness_cpus}`);
        this.shieldUntil = Date.now() + shield * 1000;
      } else if (this.shieldUntil) {
        this.shieldUntil = null;
        this.log(`shield lowered: ${this.cells.lowerShield()} processes back on every CPU`);
      }
    }
    // Without cells there is nothing to join: the answer (null) says so.
    if (join !== undefined && this.cells.available && !this.cells.join('harness', join)) throw new UsageError(`cannot move pid ${join} into the harness's cell`);
    const d = this.cells.describe();
    return JSON.stringify(d && { ...d, app_db: this.cfg.appDbCell, shield: Boolean(this.shieldUntil) });
  }

  // ---------------------------------------------------------------- verbs
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
    for (const s of app.services) {
      const svc = this.state.services[s];
      svc.bindings = svc.bindings || {};
      svc.bindings[app.name] = svc.bindings[app.name] || crypto.randomUUID();
    }
    return app;
  }

  // Put `app` in place of its previous record: the old instances go, the disks of indices
  // the new count drops are discarded, the router follows.
  async replaceApp(app) {
    if (this.state.apps[app.name]) await this.cell.removeApp(app.name);
    this.cell.discardDisks(app.name, app.instances);
    this.state.apps[app.name] = app;
    for (const u of app.routes) delete this.state.routes[u]; // a pushed app maps a route no app had
    this.save();
    await this.routes.sync();
  }

  // The local CPU quota of an app's instances (cores, 'none', or null: the default that
  // follows memory, docs/cf-platform.md §7), applied to the running ones at once. Instance
  // counts and memory are CC's scale (cc-api/processes.js) and converge().
  async scale({ appName, cpu }) {
    const app = this.app(appName);
    if (cpu === undefined) return;
    const before = app.cpuQuota;
    app.cpuQuota = cpu;
    try {
      for (const i of this.cell.list(app.name)) this.cgroups.setCpu(i.cgName, this.cpuCores(app), this.cpuShares(app));
    } catch (e) {
      app.cpuQuota = before; // a refused quota leaves the old one in force everywhere
      for (const i of this.cell.list(app.name)) this.cgroups.setCpu(i.cgName, this.cpuCores(app), this.cpuShares(app));
      throw e;
    }
    this.save();
  }

  // The route's options (load balancing), applied with a graceful router reload.
  async updateRoute(args) {
    let plan;
    try { plan = planRouteUpdate(Object.values(this.state.apps), args); } catch (e) { throw new UsageError(e.message); }
    const { app, routeOptions } = plan;
    const before = app.routeOptions;
    app.routeOptions = routeOptions;
    try {
      await this.routes.sync({ strict: true });
    } catch (e) {
      app.routeOptions = before;
      await this.routes.sync();
      throw e;
    }
    this.save();
  }

  // `cf create-route` (POST /v3/routes): a route no app is mapped to yet, kept as CC keeps
  // it until deleted.
  createRoute({ url, options = {} }) {
    if (this.routeExists(url)) throw new UsageError(`Route ${url} already exists`);
    this.state.routes[url] = { options, createdAt: new Date().toISOString() };
    this.save();
  }

  routeExists(url) {
    return Boolean(this.state.routes[url]) || Object.values(this.state.apps).some((a) => a.routes.includes(url));
  }

  // `cf map-route` / `unmap-route`: the app joins or leaves a route's destinations; the
  // router sends the route's requests round-robin to every mapped app's instances
  // (docs/cf-platform.md §16). Applied with a graceful router reload. A route left without
  // apps stays (with its options), as in CC.
  async mapRoute({ appName, url }) {
    const app = this.app(appName);
    if (app.routes.includes(url)) return;
    const before = { routes: app.routes, routeOptions: app.routeOptions };
    const loose = this.state.routes[url];
    app.routes = [...app.routes, url];
    if (loose && Object.keys(loose.options).length) app.routeOptions = { ...app.routeOptions, [url]: loose.options };
    delete this.state.routes[url];
    await this.routeChange(() => {
      Object.assign(app, before);
      if (loose) this.state.routes[url] = loose;
    });
  }

  async unmapRoute({ appName, url }) {
    const app = this.app(appName);
    if (!app.routes.includes(url)) return;
    const before = { routes: app.routes, routeOptions: app.routeOptions };
    app.routes = app.routes.filter((u) => u !== url);
    app.routeOptions = { ...app.routeOptions };
    delete app.routeOptions[url];
    const last = !Object.values(this.state.apps).some((a) => a.routes.includes(url));
    if (last) this.state.routes[url] = { options: before.routeOptions?.[url] || {}, createdAt: new Date().toISOString() };
    await this.routeChange(() => {
      Object.assign(app, before);
      if (last) delete this.state.routes[url];
    });
  }

  async routeChange(undo) {
    try {
      await this.routes.sync({ strict: true });
    } catch (e) {
      undo();
      await this.routes.sync();
      throw e;
    }
    this.save();
  }

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
  }

  async stop({ appName }) {
    const app = this.app(appName);
    this.held.delete(app.name);
    app.state = 'STOPPED';
    this.save();
    await Promise.all([this.cell.removeApp(app.name), this.deployments.removeOthers(app)]);
  }

  async restart({ appName }) {
    await this.stop({ appName });
    await this.start({ appName });
  }

  // wait: false returns once the instance is started again, not yet healthy (CC's terminate).
  async restartInstance({ appName, index, wait = true }) {
    const app = this.app(appName);
    if (!(index >= 0 && index < app.instances)) throw new UsageError(`Instance ${index} of process web not found`);
    await this.cell.restartInstance(app.name, index);
    if (wait) await this.cell.waitRunning(app.name, [index], app.healthCheck.startTimeoutSec * 1000 + 5000);
  }

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
  }

  async createService({ offering, plan, name }) {
    if (offering !== 'postgres') throw new UsageError(`Service offering '${offering}' not found (local offers: postgres)`);
    if (this.state.services[name]) return;
    let svc;
    try { svc = await this.pg.createService(name, plan); } catch (e) { throw new UsageError(e.message); }
    svc.bindings = {};
    this.state.services[name] = svc;
    this.save();
  }

  async deleteService({ name }) {
    const svc = this.state.services[name];
    if (!svc) return;
    const bound = Object.values(this.state.apps).filter((a) => a.services.includes(name)).map((a) => a.name);
    if (bound.length) throw new UsageError(`Cannot delete service instance ${name}: bound to ${bound.join(', ')}; unbind first`);
    await this.pg.deleteService(name);
    delete this.state.services[name];
    this.save();
  }

  bindService({ appName, name }) {
    const app = this.app(appName);
    const svc = this.state.services[name];
    if (!svc) throw new UsageError(`Service instance ${name} not found`);
    if (!app.services.includes(name)) app.services.push(name);
    svc.bindings = svc.bindings || {};
    svc.bindings[app.name] = svc.bindings[app.name] || crypto.randomUUID();
    this.save();
  }

  unbindService({ appName, name }) {
    const app = this.app(appName);
    app.services = app.services.filter((s) => s !== name);
    if (this.state.services[name]?.bindings) delete this.state.services[name].bindings[app.name];
    this.save();
  }

  /** "quota, period N µs" (the daemon's CFSCALE_CPU_PERIOD_US: a round records it) or "shares". */
  cpuModeText() {
    return this.cfg.cpuMode === 'quota' ? `quota, period ${this.cgroups.periodUs} µs` : this.cfg.cpuMode;
  }

  cellsText() {
    const d = this.cells.describe();
    if (!d) return 'OFF: the system under test shares every CPU with the harness';
    return `system under test on CPU ${d.sut_cpus} (apps; ${this.cfg.appDbCell === 'sut' ? 'their databases' : 'not their databases'}), `
      + `harness on CPU ${d.harness_cpus} (${this.cfg.harnessApps.join(', ')}, router, PostgreSQL, daemon, run-round)`;
  }

  status() {
    const lines = [
      `cfl daemon pid ${process.pid}, home ${this.cfg.home}`,
      `api:      ${this.apiUrl} (scripts/cfl login; or cf login -a ${this.apiUrl} -u admin -o local -s local, password admin)`,
      `router:   http://127.0.0.1:${this.cfg.routerPort} ${this.routerHttpsUrl} (haproxy ${this.router.isRunning() ? 'running' : 'DOWN'})`,
      `postgres: 127.0.0.1:${this.cfg.pgPort}, data in ${this.cfg.pgDir}`,
      `front proxies (TLS): ${this.front.urls().join(' ') || 'none'}`,
      `cgroups:  ${this.cgroups.available ? `on (cfscale-${this.cfg.homeHash}), CPU mode ${this.cpuModeText()}` : 'OFF: instances unconstrained'}`,
      `cells:    ${this.cellsText()}`,
      `services: ${Object.keys(this.state.services).join(', ') || '(none)'}`,
      `quota:    org ${this.quota.name}: ${this.quota.memoryMb} MB, ${this.quota.instances} instances (in use: ${this.quotaUse()})`,
      ...[...this.held].map(([name, why]) => `held:     ${name}: ${why}`),
      '',
    ];
    const rows = [['app', 'index', 'state', 'port', 'pid', 'cpu quota', 'crashes', 'cell']];
    for (const a of Object.values(this.state.apps)) {
      const insts = this.cell.forApp(a.name);
      const cell = this.cells.available ? this.cellOf(a) : '-';
      if (!insts.length) rows.push([a.name, '-', a.state.toLowerCase(), '-', '-', '-', '-', cell]);
      for (const i of insts) {
        const q = this.cpuCores(a);
        rows.push([a.name, i.index, i.state.toLowerCase(), i.port, i.pid || '-', q === null ? 'none' : q.toFixed(3), i.crashCount, cell]);
      }
    }
    return lines.join('\n') + tables.table(rows);
  }

  /**
   * `cfl front-proxies [-n N] [--cpu CORES|none] [--json]`: set how many TLS front proxies run
   * (and their quota), then print their URLs one per line, or with --json their stats
   * (front-proxy.js stats()).
   */
  /**
   * `cfl router-usage`: the router's CPU since it started, from its cgroup, and its quota, as
   * JSON {cpu_ns, cpu_quota_cores} (cpu_ns null without cgroups; cpu_quota_cores null: none).
   */
  routerUsage() {
    return JSON.stringify({ cpu_ns: this.router.cpuNs(), cpu_quota_cores: this.router.cpuQuotaCores });
  }

  async frontProxies({ count, cpu, json }) {
    if (count !== undefined) {
      if (!Number.isInteger(count) || count > MAX_FRONT_PROXIES) throw new UsageError(`-n must be an integer from 0 to ${MAX_FRONT_PROXIES}, got ${count}`);
      await this.front.set(count, cpu === undefined ? this.front.cpuCores : cpu === 'none' ? null : cpu);
    } else if (cpu !== undefined) {
      throw new UsageError('--cpu needs -n N');
    }
    if (json) return JSON.stringify(await this.front.stats());
    return this.front.urls().join('\n');
  }

  // Teardown: every instance, the router, PostgreSQL, the cgroups; with `discard` (cfl down)
  // also the instances' temp dirs (kept when the daemon just stops, e.g. a failed boot).
  async shutdown({ discard = false } = {}) {
    clearInterval(this.sampler);
    if (this.deployments) this.deployments.stop();
    if (this.tasks) this.tasks.stopAll();
    if (this.cell) await Promise.all([...Object.keys(this.state.apps), ...this.deployments.otherKeys()].map((k) => this.cell.removeApp(k)));
    if (discard) fs.rmSync(this.cfg.instancesDir, { recursive: true, force: true });
    if (this.front) await this.front.stopAll();
    if (this.routes) await this.routes.stop();
    else if (this.router) await this.router.stop();
    if (this.sink) this.sink.close();
    if (this.pg) await this.pg.stop().catch((e) => this.log(`postgres stop: ${e.message}`));
    const left = this.cgroups ? this.cgroups.removeAll() : [];
    if (this.cells) this.cells.removeAll();
    try { fs.unlinkSync(path.join(this.cfg.home, 'instances.pids')); } catch { /* gone */ }
    if (this.logs) this.logs.closeAll();
    if (left.length) this.log(`cgroups left behind: ${left.join(', ')}`);
    return left;
  }
}

function range(n) { return Array.from({ length: n }, (_, i) => i); }

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

module.exports = { Platform, UsageError };
