// router-sync.js — keeps HAProxy in step with the apps and their instances: a reload when
// apps, routes, their load balancing or server slots change; otherwise each instance entering or leaving RUNNING
// is switched on or off through the runtime API (so client keep-alive connections live on).
// Also maps an access-log record back to its app and instance (for the RTR line).
'use strict';

const crypto = require('node:crypto');
const { slotCount, backendName, pinBackendName, sharedServerName } = require('./haproxy-config');
const { appLoadbalancing, haproxyBalance } = require('./route-options');
const { appId } = require('./app-id');

class RouterSync {
  // apps() → app records; instances(name) → that app's instances; desired(app) → how many
  // should run (the slots follow it, never a stopped app's count).
  constructor({ router, log, apps, instances, desired = (a) => a.instances }) {
    this.router = router;
    this.log = log;
    this.apps = apps;
    this.instances = instances;
    this.desired = desired;
    this.logPort = null;
    this.key = null;
    this.serverState = new Map();
    this.slotHigh = new Map();
    this.queue = Promise.resolve();
    this.next = null;
    // target()'s answers by backend and server: every access-log record asks, thousands a
    // second in a round; a sync (a change of apps, routes or instances) forgets them.
    this.targets = new Map();
  }

  model() {
    const apps = this.apps().filter((a) => a.routes.length).map((a) => {
      const insts = this.instances(a.name);
      const instances = {};
      for (const i of insts) instances[i.index] = { port: i.port, ready: i.state === 'RUNNING' && i.ready !== false };
      // Slots only grow while the app exists: shrinking would reload the router for nothing.
      const want = slotCount(Math.max(this.desired(a), ...insts.map((i) => i.index + 1), 1));
      const slots = Math.max(this.slotHigh.get(a.guid) || 0, want);
      this.slotHigh.set(a.guid, slots);
      return { name: a.name, guid: a.guid, routes: a.routes, balance: haproxyBalance(appLoadbalancing(a)), slots, instances };
    });
    return { apps, shared: sharedRoutes(apps), logPort: this.logPort };
  }

  async run() {
    this.targets = new Map();
    const model = this.model();
    const key = JSON.stringify([model.logPort, model.apps.map((a) => [a.name, a.guid, a.routes, a.balance, a.slots]),
      model.shared.map((g) => [g.name, g.urls, g.members, g.balance])]);
    this.shared = new Map(model.shared.map((g) => [g.name, g.members]));
    if (key !== this.key || !this.router.isRunning()) {
      await this.router.apply(model);
      this.key = key;
      this.serverState = new Map();
      for (const a of model.apps) {
        for (let i = 0; i < a.slots; i++) {
          const inst = a.instances[i];
          this.serverState.set(`${a.name}/${i}`, { port: inst && inst.port ? inst.port : 1, ready: Boolean(inst && inst.ready) });
        }
      }
      return;
    }
    for (const a of model.apps) {
      for (let i = 0; i < a.slots; i++) {
        const want = a.instances[i] || null;
        const k = `${a.name}/${i}`;
        // A slot without an instance has port 1 in the config (haproxy-config.js serverLine).
        const cur = this.serverState.get(k) || { port: 1, ready: false };
        const ready = Boolean(want && want.ready);
        const port = want && want.port ? want.port : cur.port;
        if (cur.ready === ready && cur.port === port) continue;
        await this.router.setServer(backendName(a), `s${i}`, want, cur.port);
        await this.router.setServer(pinBackendName(a, i), `s${i}`, want, cur.port);
        for (const g of model.shared) {
          const k2 = g.members.indexOf(a.name);
          if (k2 >= 0) await this.router.setServer(g.name, sharedServerName(k2, i), want, cur.port);
        }
        this.serverState.set(k, { port, ready });
      }
    }
  }

  // Resolves when the router reflects the state as of this call. strict: reject on error.
  sync({ strict = false } = {}) {
    // Coalesce: a run not yet begun will read the latest state anyway.
    if (this.next && !strict) return this.next;
    const done = this.queue.then(() => { this.next = null; return this.run(); });
    this.queue = done.catch((e) => this.log(`router: ${e.message}`));
    if (!strict) this.next = this.queue;
    return strict ? done : this.queue;
  }

  // {app, index, instance} of an access-log record (backend app_ID / pin_ID_I, ID the app's
  // app-id.js, server sI; or a shared route's backend, server mKsI: member K's instance I).
  target(rec) {
    const key = `${rec.b}\u0000${rec.s}`;
    if (this.targets.has(key)) return this.targets.get(key);
    const t = this.lookup(rec);
    this.targets.set(key, t);
    return t;
  }

  lookup(rec) {
    const m = /^(?:app_(.+)|pin_(.+)_\d+)$/.exec(rec.b || '');
    const sm = /^(?:m(\d+))?s(\d+)$/.exec(rec.s || '');
    const members = this.shared && this.shared.get(rec.b);
    const id = m && (m[1] || m[2]);
    const name = members ? (sm && sm[1] !== undefined ? members[Number(sm[1])] : members[0]) : null;
    const app = this.apps().find((a) => (name !== null ? a.name === name : id && appId(a.name) === id));
    if (!app) return null;
    const index = sm ? Number(sm[2]) : null;
    const instance = index !== null ? this.instances(app.name).find((i) => i.index === index) : null;
    return { app, index, instance };
  }

  async stop() {
    await this.queue;
    await this.router.stop();
  }
}

// Routes mapped to more than one app (`cf map-route`): one backend per set of apps, with
// every member's server slots, as Gorouter keeps one endpoint pool per route with every
// mapped app's instances (docs/cf-platform.md §16). Members in the order of the apps (the
// route's first app sets its load balancing).
function sharedRoutes(models) {
  const byUrl = new Map();
  for (const a of models) for (const u of a.routes) byUrl.set(u, [...(byUrl.get(u) || []), a]);
  const groups = new Map();
  for (const [url, members] of byUrl) {
    if (members.length < 2) continue;
    const names = members.map((a) => a.name);
    const key = names.join('\n');
    const g = groups.get(key) || { name: `route_${crypto.createHash('sha1').update(key).digest('hex').slice(0, 12)}`, urls: [], members: names, balance: members[0].balance };
    g.urls.push(url);
    groups.set(key, g);
  }
  return [...groups.values()];
}

module.exports = { RouterSync, sharedRoutes };
