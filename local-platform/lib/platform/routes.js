// routes.js — the Platform's route verbs (`cf create-route`, `map-route`, `unmap-route`, the
// route's options), the router's access log into the apps' logs, and the router's and the TLS
// front proxies' verbs of `cfl`. A change reloads the router gracefully and is undone when
// the router refuses it. Methods of Platform (platform.js); `this` is the platform.
'use strict';

const { toRtrLine } = require('../rtr-log');
const { planRouteUpdate } = require('../route-options');
const { MAX_FRONT_PROXIES } = require('../config');
const { UsageError } = require('./usage-error');

const routeVerbs = {
  // The route's options (load balancing), applied with a graceful router reload.
  async updateRoute(args) {
    let plan;
    try { plan = planRouteUpdate(Object.values(this.state.apps), args); } catch (e) { throw new UsageError(e.message); }
    const { app, routeOptions } = plan;
    const before = app.routeOptions;
    app.routeOptions = routeOptions;
    await this.routeChange(() => { app.routeOptions = before; });
  },

  // `cf create-route` (POST /v3/routes): a route no app is mapped to yet, kept as CC keeps
  // it until deleted.
  createRoute({ url, options = {} }) {
    if (this.routeExists(url)) throw new UsageError(`Route ${url} already exists`);
    this.state.routes[url] = { options, createdAt: new Date().toISOString() };
    this.save();
  },

  routeExists(url) {
    return Boolean(this.state.routes[url]) || Object.values(this.state.apps).some((a) => a.routes.includes(url));
  },

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
  },

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
  },

  // The router reloaded with the changed state, which is saved; a reload the router refuses
  // runs undo() and reloads the state as it was.
  async routeChange(undo) {
    try {
      await this.routes.sync({ strict: true });
    } catch (e) {
      undo();
      await this.routes.sync();
      throw e;
    }
    this.save();
  },

  // One record of the router's access log, as a Gorouter line in its app's log.
  routerLog(rec) {
    const t = this.routes.target(rec);
    if (!t) return;
    const line = toRtrLine(rec, { appGuid: t.app.guid, index: t.index === null ? '-' : t.index, instanceGuid: t.instance && t.instance.guid });
    this.logs.write(t.app.name, 'RTR/0', 'OUT', line);
  },

  /**
   * `cfl router-usage`: the router's CPU since it started, from its cgroup, and its quota, as
   * JSON {cpu_ns, cpu_quota_cores} (cpu_ns null without cgroups; cpu_quota_cores null: none).
   */
  routerUsage() {
    return JSON.stringify({ cpu_ns: this.router.cpuNs(), cpu_quota_cores: this.router.cpuQuotaCores });
  },

  /**
   * `cfl front-proxies [-n N] [--cpu CORES|none] [--json]`: set how many TLS front proxies run
   * (and their quota), then print their URLs one per line, or with --json their stats
   * (front-proxy.js stats()).
   */
  async frontProxies({ count, cpu, json }) {
    if (count !== undefined) {
      if (!Number.isInteger(count) || count > MAX_FRONT_PROXIES) throw new UsageError(`-n must be an integer from 0 to ${MAX_FRONT_PROXIES}, got ${count}`);
      await this.front.set(count, cpu === undefined ? this.front.cpuCores : cpu === 'none' ? null : cpu);
    } else if (cpu !== undefined) {
      throw new UsageError('--cpu needs -n N');
    }
    if (json) return JSON.stringify(await this.front.stats());
    return this.front.urls().join('\n');
  },
};

module.exports = { routeVerbs };
