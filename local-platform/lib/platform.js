// platform.js — the local platform inside the daemon: apps, services, bindings (state.js),
// the cell (instances.js), the router (haproxy.js), PostgreSQL (services.js), the stats
// sampler and the router-log sink. Each operation of the Cloud Controller (cc-api/) and of
// `cfl` is one method; mutating ones run one at a time. This file boots, reports and shuts
// the platform down; the verbs live in platform/, one file a concern (instances, routes,
// services, quotas, cells), and become methods of Platform here.
'use strict';

const fs = require('node:fs');
const path = require('node:path');
const { loadState, saveState } = require('./state');
const { AppLogs } = require('./app-log');
const { Cgroups } = require('./cgroups');
const { Cells } = require('./cells');
const { postmasterPid, placeBackends } = require('./db-backends');
const { Events, RESULTS_SERVICE } = require('./events');
const { Cell } = require('./instances');
const { Router } = require('./haproxy');
const { ensureSelfSignedCert } = require('./tls-cert');
const { RouterSync } = require('./router-sync');
const { FrontProxies } = require('./front-proxy');
const { startSink } = require('./rtr-log');
const { Postgres } = require('./services');
const { sample } = require('./instance-usage');
const tables = require('./tables');
const { orgQuota } = require('./quota');
const { Deployments } = require('./deployments');
const { Tasks } = require('./tasks');
const { UsageError } = require('./platform/usage-error');
const { instanceVerbs } = require('./platform/instances');
const { routeVerbs } = require('./platform/routes');
const { serviceVerbs } = require('./platform/services');
const { quotaVerbs } = require('./platform/quotas');
const { cellVerbs } = require('./platform/cells');

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

  save() { saveState(this.cfg.stateFile, this.state); }

  // Every statsIntervalMs: the instances' usage (instance-usage.js), the shield, and the SUT's
  // database backends into its cell.
  sampleAll() {
    for (const inst of this.cell.all()) {
      try { sample(inst, this.cgroups, this.diskBytes.get(inst.app) || 0); } catch { /* process just went */ }
    }
    if (this.shieldUntil) this.keepShield();
    if (this.cfg.appDbCell === 'sut') placeBackends(this.cells, postmasterPid(this.cfg.pgDir), this.sutDatabases(), this.placedBackends);
  }

  // `cfl status`: the platform's parts, the quota, the held apps, then a row an instance.
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

// The verbs of platform/ become Platform's methods; a name two of them define is a mistake.
for (const verbs of [instanceVerbs, routeVerbs, serviceVerbs, quotaVerbs, cellVerbs]) {
  for (const name of Object.keys(verbs)) {
    if (name in Platform.prototype) throw new Error(`platform: method ${name} defined twice`);
    Platform.prototype[name] = verbs[name];
  }
}

module.exports = { Platform, UsageError };
